// What the C2PA signals rubric adds to a cold `provenance check --json` of a signed file (issue 38:
// at most 10 ms), measured two ways:
//   1. side by side: this build's CLI and another build's (e.g. main's, without the rubric) on
//      the same signed file, runs interleaved (A B A B ...) so that the machine's load drifts
//      over both alike; the medians and their difference;
//   2. the part itself, in fresh processes: importing the rubric's bundle (dist/lazy/rubrics-
//      signals.js, json-formula inside), reading and parsing the rubric, and evaluating it on the
//      file's crJSON, timed inside the process.
// With the load average and the machine's speed (SHA-256 of 1.9 MB, scripts/machine-speed.ts's
// gauge) before and after. Usage:
//   npm run build && node scripts/bench-rubric-cost.mjs OTHER_BUILD_DIR [SIGNED_FILE]
// OTHER_BUILD_DIR: a checkout of the other commit with `node scripts/build.mjs` run in it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const [other, fileArg] = process.argv.slice(2);
if (!other) {
  console.error('usage: node scripts/bench-rubric-cost.mjs OTHER_BUILD_DIR [SIGNED_FILE]');
  process.exit(2);
}
const file = resolve(fileArg ?? join(root, '..', 'shared', 'corpus', 'files', 'CA.jpg'));
const runs = Number(process.env.BENCH_RUNS ?? '40');

function sha256Ms() {
  const bytes = Buffer.alloc(1957448, 7);
  for (let i = 0; i < 20; i++) createHash('sha256').update(bytes).digest();
  const start = performance.now();
  for (let i = 0; i < 200; i++) createHash('sha256').update(bytes).digest();
  return (performance.now() - start) / 200;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const env = { ...process.env, PROVENANCE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'bench-rubric-')) };
delete env.NODE_EXTRA_CA_CERTS;

function timeCli(dir) {
  const start = performance.now();
  execFileSync(process.execPath, [join(dir, 'bin', 'provenance.js'), 'check', '--json', file], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  return performance.now() - start;
}

console.log(`machine: sha256 of 1.9 MB ${sha256Ms().toFixed(2)} ms, load ${loadavg()[0].toFixed(2)}; node ${process.version}; file ${file}; ${runs} runs each`);
for (let i = 0; i < 3; i++) {
  timeCli(root);
  timeCli(other);
}
const ours = [];
const theirs = [];
for (let i = 0; i < runs; i++) {
  if (i % 2) {
    theirs.push(timeCli(other));
    ours.push(timeCli(root));
  } else {
    ours.push(timeCli(root));
    theirs.push(timeCli(other));
  }
}
const [a, b] = [median(ours), median(theirs)];
console.log(`1. cold check --json, medians: this build ${a.toFixed(1)} ms, the other ${b.toFixed(1)} ms, difference ${(a - b).toFixed(1)} ms (min ${Math.min(...ours).toFixed(1)} vs ${Math.min(...theirs).toFixed(1)})`);

// 2. The rubric's own cost in a fresh process: the same steps the c2pa detector takes after a read.
const probe = `
const { readFileSync } = await import('node:fs');
const { createRequire } = await import('node:module');
const c2pa = await import('@contentauth/c2pa-wasm');
const require = createRequire(${JSON.stringify(join(root, 'package.json'))});
c2pa.initSync({ module: new WebAssembly.Module(readFileSync(require.resolve('@contentauth/c2pa-wasm/c2pa.wasm'))) });
const reader = await c2pa.WasmReader.fromBytes('image/jpeg', readFileSync(${JSON.stringify(file)}), JSON.stringify({ verify: { remote_manifest_fetch: false, ocsp_fetch: false } }));
const cr = JSON.parse(reader.crJson());
const active = JSON.parse(reader.json()).active_manifest;
const t0 = performance.now();
const { fileSignals } = await import(${JSON.stringify(join(root, 'dist', 'lazy', 'rubrics-signals.js'))});
const t1 = performance.now();
fileSignals(cr, active);
const t2 = performance.now();
console.log(JSON.stringify({ load: t1 - t0, evaluate: t2 - t1 }));
`;
const parts = [];
for (let i = 0; i < Math.min(runs, 20); i++) {
  parts.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: root, env }).toString()));
}
const load = median(parts.map((p) => p.load));
const evaluate = median(parts.map((p) => p.evaluate));
console.log(`2. the rubric in a fresh process, medians of ${parts.length}: import ${load.toFixed(1)} ms + read, parse and evaluate ${evaluate.toFixed(1)} ms = ${(load + evaluate).toFixed(1)} ms`);
console.log(`machine after: sha256 of 1.9 MB ${sha256Ms().toFixed(2)} ms, load ${loadavg()[0].toFixed(2)}`);
rmSync(env.PROVENANCE_CONFIG_DIR, { recursive: true, force: true });
