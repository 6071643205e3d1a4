// What the whole-process benches share (bench-cold-start.mjs, bench-c2pa-cost.mjs): the machine's
// gauge and load, the environment the timed processes run in, and one hyperfine round of several
// commands with their wall and CPU times. Plain JavaScript: these benches run without the TS loader.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

/** scripts/machine-speed.ts's gauge: SHA-256 of 1.9 MB on one thread, ms per run (lower is faster). */
export function sha256Ms() {
  const bytes = Buffer.alloc(1957448, 7);
  for (let i = 0; i < 20; i++) createHash('sha256').update(bytes).digest();
  const start = performance.now();
  for (let i = 0; i < 200; i++) createHash('sha256').update(bytes).digest();
  return (performance.now() - start) / 200;
}

/** The load average over the last minute, as printed beside every figure. */
export const loadAverage = () => loadavg()[0].toFixed(2);

/** "load 3.10, SHA-256 1.12 ms": what the machine was doing, taken now. */
export const machineNow = () => `load ${loadAverage()}, SHA-256 ${sha256Ms().toFixed(2)} ms`;

/**
 * The environment of the timed processes. NODE_EXTRA_CA_CERTS makes every Node start parse that
 * certificate bundle before any code runs (about 45 ms on the machine of docs/PERFORMANCE.md;
 * ExifTool, in Perl, never pays it). Some sandboxes set it; an ordinary user's shell does not. It
 * is left out unless BENCH_KEEP_ENV=1 asks to keep the environment exactly as it is.
 */
export function benchEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  const dropped = process.env.BENCH_KEEP_ENV ? [] : ['NODE_EXTRA_CA_CERTS'].filter((k) => k in env);
  for (const k of dropped) delete env[k];
  return { env, dropped };
}

/** Exits 2 with the Debian package to install when a tool is missing. */
export function requireTools(tools) {
  const packages = { hyperfine: 'hyperfine', exiftool: 'libimage-exiftool-perl' };
  for (const tool of tools) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      console.error(`${tool} is not installed (Debian: apt-get install ${packages[tool] ?? tool})`);
      process.exit(2);
    }
  }
}

/**
 * One hyperfine round (-N: no shell between us and the process): each command `runs` times after
 * `warmup` runs, in the order given. Per command, in ms: mean and least wall time, and the mean
 * CPU time of the process (user + system, from hyperfine's rusage of each run).
 */
export function hyperfineRound(commands, { runs, warmup = 3, env }) {
  const dir = mkdtempSync(join(tmpdir(), 'prov-bench-'));
  try {
    const out = join(dir, 'h.json');
    execFileSync('hyperfine', ['-N', '--warmup', String(warmup), '--runs', String(runs), '--export-json', out, ...commands], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
    return JSON.parse(readFileSync(out, 'utf8')).results.map((r) => ({ mean: r.mean * 1000, min: r.min * 1000, cpu: (r.user + r.system) * 1000 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
