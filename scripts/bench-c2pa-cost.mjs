// What the C2PA lists and the signals rubric add to a cold `provenance check --json` of a signed
// file (issue 38: at most 10 ms; both are loaded only when a manifest is found). Two ways:
//   1. whole processes, hyperfine (bench-processes.mjs), BENCH_REPEATS rounds (default 5) of
//      BENCH_RUNS runs (default 20), the commands in turn and in another order each round: this
//      build as users run it; the same with `--trust-anchors` one certificate (the 52-anchor
//      lists replaced by one: what the lists' size costs); and, given OTHER_BUILD_DIR, another
//      build (a checkout before the lists and the rubric, or main's), each with its mean wall
//      and CPU time (user + system) per round;
//   2. the parts alone, in fresh processes taking turns (15 each; c2pa-rs compiled and another
//      module of the build imported first, as a check has them by then), CPU time: the cold
//      c2pa-rs read without anchors, with all of the lists' anchors, and with those the check
//      gives it (src/media/trust-anchor-filter.ts: the anchors whose subject is in the file's
//      manifest store); and, after a read, importing the signals rubric's module (json-formula
//      inside) and evaluating it on the file's crJSON; beside it, the FLOOR: what json-formula
//      alone must do for that output on the same crJSON, in the same rounds: import the dist
//      chunk json-formula is bundled into (the one the rubric's module imports), parse the
//      built rubric's JSON, construct the engine with the rubric's named expressions as its
//      custom functions (their trees compiled at build time), and run every statement's
//      compiled tree on every manifest. No provenance graph, no output, none of our CLI. The
//      floor again with Node's module compile cache (NODE_COMPILE_CACHE, Node 22.1+) in a
//      directory a first run filled: cold processes, warm cache, as a CLI that enabled it would be.
// With the load average and the gauge (SHA-256 of 1.9 MB) before and after. Usage:
//   npm run build && node scripts/bench-c2pa-cost.mjs [OTHER_BUILD_DIR] [SIGNED_FILE]
// OTHER_BUILD_DIR: a checkout with `node scripts/build.mjs` run in it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { benchEnv, hyperfineRound, machineNow, median, requireTools } from './bench-processes.mjs';

const root = resolve(import.meta.dirname, '..');
const [other, fileArg] = process.argv.slice(2);
const file = resolve(fileArg ?? join(root, 'examples', 'signed.jpg'));
const runs = Number(process.env.BENCH_RUNS ?? '20');
const repeats = Number(process.env.BENCH_REPEATS ?? '5');
requireTools(['hyperfine']);

const scratch = mkdtempSync(join(tmpdir(), 'bench-c2pa-cost-'));
const { env, dropped } = benchEnv({ PROVENANCE_CONFIG_DIR: join(scratch, 'config') });
const lists = ['C2PA-TRUST-LIST.pem', 'C2PA-TSA-TRUST-LIST.pem'].map((f) => readFileSync(join(root, 'data', 'c2pa', f), 'utf8')).join('');
const oneAnchor = join(scratch, 'one-anchor.pem');
writeFileSync(oneAnchor, /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/.exec(lists)[0]);

console.log(`machine: ${machineNow()}; node ${process.version}${dropped.length ? `, without ${dropped.join(', ')}` : ''}; file ${file}`);
const contenders = [
  ['this build', `${process.execPath} ${join(root, 'bin', 'provenance.js')} check --json ${file}`],
  ['this build, --trust-anchors one certificate', `${process.execPath} ${join(root, 'bin', 'provenance.js')} check --json --trust-anchors ${oneAnchor} ${file}`],
  ...(other ? [[`other build (${other})`, `${process.execPath} ${join(resolve(other), 'bin', 'provenance.js')} check --json ${file}`]] : []),
];
const rounds = contenders.map(() => []);
try {
  for (let round = 0; round < repeats; round++) {
    const order = contenders.map((_, i) => (i + round) % contenders.length);
    const before = machineNow();
    const results = hyperfineRound(order.map((i) => contenders[i][1]), { runs, env });
    order.forEach((i, k) => rounds[i].push(results[k]));
    console.log(`round ${round + 1} (${before} -> ${machineNow()}): ${contenders.map(([label], i) => `${label} ${rounds[i].at(-1).mean.toFixed(1)} ms wall, ${rounds[i].at(-1).cpu.toFixed(1)} ms CPU`).join('; ')}`);
  }
  console.log(`\n1. whole processes, medians over ${repeats} rounds of ${runs} runs:`);
  const base = { wall: median(rounds[0].map((r) => r.mean)), cpu: median(rounds[0].map((r) => r.cpu)) };
  contenders.forEach(([label], i) => {
    const wall = median(rounds[i].map((r) => r.mean));
    const cpu = median(rounds[i].map((r) => r.cpu));
    const vs = i === 0 ? '' : ` (this build - it: wall ${(base.wall - wall).toFixed(1)} ms, CPU ${(base.cpu - cpu).toFixed(1)} ms)`;
    console.log(`   ${label}: wall ${wall.toFixed(1)} ms, CPU ${cpu.toFixed(1)} ms${vs}`);
  });

  // 2. The parts alone. Each probe is a fresh process: c2pa-rs compiled (and another module of the
  // build imported), then the part timed with process.cpuUsage(). The anchors the check keeps for
  // this file come from the filter itself, bundled from src/ for this script.
  const type = { '.png': 'image/png', '.mp4': 'video/mp4', '.webp': 'image/webp' }[extname(file).toLowerCase()] ?? 'image/jpeg';
  const filter = await build({ entryPoints: [join(root, 'src', 'media', 'trust-anchor-filter.ts')], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'warning' });
  const { anchorsForFile } = await import(`data:text/javascript;base64,${Buffer.from(filter.outputFiles[0].text).toString('base64')}`);
  const kept = anchorsForFile(readFileSync(file), type, lists);
  const anchorSets = { 'no anchors': undefined, 'all anchors': lists, 'anchors the check keeps': kept };
  // The floor's inputs: the chunk holding json-formula (found by its bundled source's path, and
  // checked to be the one the rubric's module imports) and the built rubric's JSON text.
  const lazy = join(root, 'dist', 'lazy');
  const formulaChunk = readdirSync(lazy).find((f) => f.startsWith('chunk-') && readFileSync(join(lazy, f), 'utf8').includes('@adobe/json-formula/src/json-formula.js'));
  if (!formulaChunk || !readFileSync(join(lazy, 'rubrics-signals.js'), 'utf8').includes(`"./${formulaChunk}"`)) throw new Error('no dist/lazy chunk with json-formula imported by rubrics-signals.js: run npm run build');
  const builtText = JSON.parse(/export default (".*");/.exec(readFileSync(join(root, 'src', 'rubrics', 'built-signals.ts'), 'utf8'))[1]);
  const rubricText = join(scratch, 'signals-rubric.json');
  writeFileSync(rubricText, builtText);
  const probe = (part) => `
const { readFileSync } = await import('node:fs');
const { createRequire } = await import('node:module');
const { setFlagsFromString } = await import('node:v8');
const require = createRequire(${JSON.stringify(join(root, 'package.json'))});
const c2pa = await import('@contentauth/c2pa-wasm');
setFlagsFromString('--wasm-tiering-budget=40000000');
c2pa.initSync({ module: new WebAssembly.Module(readFileSync(require.resolve('@contentauth/c2pa-wasm/c2pa.wasm'))) });
await import(${JSON.stringify(join(root, 'dist', 'lazy', 'rubrics-shipped-rubrics.js'))});
const bytes = readFileSync(${JSON.stringify(file)});
const settings = (anchors) => JSON.stringify({ verify: { remote_manifest_fetch: false, ocsp_fetch: false }, ...(anchors ? { trust: { trust_anchors: anchors } } : {}) });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
${
  part === 'rubric'
    ? `const first = await c2pa.WasmReader.fromBytes(${JSON.stringify(type)}, bytes, settings());
const cr = JSON.parse(first.crJson());
const active = JSON.parse(first.json()).active_manifest;
first.free();
const c0 = cpu();
const { fileSignals } = await import(${JSON.stringify(join(root, 'dist', 'lazy', 'rubrics-signals.js'))});
fileSignals(cr, active);`
    : part.startsWith('floor')
    ? `const first = await c2pa.WasmReader.fromBytes(${JSON.stringify(type)}, bytes, settings());
const cr = JSON.parse(first.crJson());
first.free();
const text = readFileSync(${JSON.stringify(rubricText)}, 'utf8');
const c0 = cpu();
const { createRubricEngine } = await import(${JSON.stringify(join(lazy, formulaChunk))});
const rubric = JSON.parse(text);
const { engine, variables } = createRubricEngine(rubric.metadata, { compiled: rubric.compiled });
for (const manifest of cr.manifests) {
  for (const stmt of rubric.statements) {
    const tree = rubric.compiled.expressions[String(stmt.expression).trim()];
    if (tree === undefined) continue;
    try { engine.run(tree, manifest, 'en-US', variables); } catch {}
  }
}`
    : `const c0 = cpu();
const reader = await c2pa.WasmReader.fromBytes(${JSON.stringify(type)}, bytes, settings(${JSON.stringify(anchorSets[part] ?? null)}));
reader.json();
reader.crJson();
reader.free();`
}
console.log(cpu() - c0);
`;
  const parts = Object.fromEntries([...Object.keys(anchorSets), 'rubric', 'floor', 'floor, compile cache'].map((k) => [k, []]));
  const cacheEnv = { ...env, NODE_COMPILE_CACHE: join(scratch, 'compile-cache') };
  const run = (part) => execFileSync(process.execPath, ['--input-type=module', '-e', probe(part)], { cwd: root, env: part === 'floor, compile cache' ? cacheEnv : env }).toString();
  run('floor, compile cache'); // fills the cache directory
  const partsBefore = machineNow();
  for (let i = 0; i < 15; i++) {
    for (const part of Object.keys(parts)) {
      parts[part].push(Number(run(part)));
    }
  }
  const m = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(v)]));
  const n = (pem) => (pem?.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
  console.log(`\n2. the parts alone, CPU, medians of 15 fresh processes each, taking turns (${partsBefore} -> ${machineNow()}):`);
  console.log(`   the cold c2pa-rs read: no anchors ${m['no anchors'].toFixed(1)} ms; all ${n(lists)} of the lists' anchors ${m['all anchors'].toFixed(1)} ms (+${(m['all anchors'] - m['no anchors']).toFixed(1)}); the ${n(kept)} the check keeps for this file ${m['anchors the check keeps'].toFixed(1)} ms (+${(m['anchors the check keeps'] - m['no anchors']).toFixed(1)})`);
  console.log(`   the signals rubric (import and evaluate): ${m.rubric.toFixed(1)} ms; its FLOOR, json-formula alone on the same crJSON (import its chunk, parse the built rubric, construct, run every statement on every manifest): ${m.floor.toFixed(1)} ms; ours above the floor: ${(m.rubric - m.floor).toFixed(1)} ms`);
  console.log(`   the floor with Node's compile cache warm: ${m['floor, compile cache'].toFixed(1)} ms (${(m['floor, compile cache'] - m.floor).toFixed(1)})`);
  console.log(`   the lists as the check gives them and the rubric together: +${(m.rubric + m['anchors the check keeps'] - m['no anchors']).toFixed(1)} ms (target: at most 10 ms)`);
  console.log(`machine after: ${machineNow()}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
