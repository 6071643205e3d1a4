// What `import 'provenance-check'` costs a fresh process, side by side with `node -e 0` (issue 16:
// at most 15 ms more). Runs are interleaved (A, B, C, A, B, C, ...) so that a busy moment of a
// shared machine falls on every command alike; the medians and their difference are printed.
// The entry is imported by name: the package resolves itself through its "exports", as it
// does once installed. Needs a build (npm run build).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('dist/index.js is missing: run `npm run build` first.');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_RUNS ?? 40);
// As in bench-cold-start.mjs: NODE_EXTRA_CA_CERTS, which some sandboxes set, makes every start
// parse a certificate bundle; the comparison runs without it unless BENCH_KEEP_ENV=1.
const env = { ...process.env };
if (!process.env.BENCH_KEEP_ENV) delete env.NODE_EXTRA_CA_CERTS;

// The floor for any ES module package: Node loads its file loader (fs/promises, and with it
// streams and readline internals) for the first module read from a file.
const scratch = mkdtempSync(join(tmpdir(), 'bench-import-'));
const empty = join(scratch, 'empty.mjs');
writeFileSync(empty, 'export {};\n');
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

const commands = [
  ['node -e 0', ['-e', '0']],
  ['node --input-type=module -e 0', ['--input-type=module', '-e', '0']],
  ['node empty.mjs (an empty ES module file)', [empty]],
  ["node --input-type=module -e \"import 'provenance-check'\"", ['--input-type=module', '-e', "import 'provenance-check'"]],
];

function once(args) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${run.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

// The same import timed inside the process (performance.now() around `await import(...)`):
// what the import itself adds, without the process start and exit around it, which on a busy
// machine swing by more than the figure being measured.
const inProcess = [
  ['await import(empty.mjs)', empty],
  ["await import('provenance-check')", 'provenance-check'],
];
function timedImport(specifier) {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`import ${specifier} failed: ${run.stderr}`);
  return Number(run.stdout);
}

const times = commands.map(() => []);
const importTimes = inProcess.map(() => []);
for (let i = 0; i < 3; i++) for (const [, args] of commands) once(args); // warm the file cache
for (let r = 0; r < rounds; r++) {
  commands.forEach(([, args], i) => times[i].push(once(args)));
  inProcess.forEach(([, specifier], i) => importTimes[i].push(timedImport(specifier)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const medians = times.map(median);
console.log(`node ${process.version}, ${rounds} interleaved rounds, median wall time of a whole process:`);
commands.forEach(([label], i) => console.log(`  ${medians[i].toFixed(1).padStart(7)} ms  ${label}`));
const extra = medians[3] - medians[0];
console.log(`import 'provenance-check' costs ${extra.toFixed(1)} ms more than node -e 0 (target: at most 15 ms), ${(medians[3] - medians[2]).toFixed(1)} ms more than an empty ES module file`);
const importMedians = importTimes.map(median);
console.log('timed inside a fresh process (median):');
inProcess.forEach(([label], i) => console.log(`  ${importMedians[i].toFixed(1).padStart(7)} ms  ${label}`));
