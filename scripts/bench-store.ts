// `npm run bench:store`: does a counted call cost the same whatever the store holds? Stores of
// 0, 10,000 and 100,000 accounts (2 keys each) are written straight to the data dir (a fixture
// step, not HTTP), one daemon is started on each, and counted detect calls (a ~300 KB JPEG,
// `camera_reference` only, 8 connections) go to one daemon at a time, the sizes taking turns
// round after round, so that a machine shared with other work slows every size alike.
// Per size: p50/p99 latency and calls/s (the median over the rounds), the time from spawning the
// daemon to its `listening` line, the store's open time in a fresh process, the daemon's RSS, and what a
// compaction costs at that size (how long it takes, and how much of it blocks the event loop).
// Prints a Markdown table for docs/PERFORMANCE.md ("Store").
//
// The load rotates over 64 keys of one custom-plan account: the per-key burst limit (300/min)
// would otherwise be what is measured. The load generator is scripts/http-load.ts (127.0.0.1 only).
//
// Options: --store KIND (the store to measure: `embedded`, the default and so far the only kind;
//          the PostgreSQL store adds its own), --sizes 0,10000,100000, --rounds N (default 3),
//          --duration SECONDS per size per round (default 8), --connections N (default 8),
//          --file PATH (default: the shared corpus's Pixel_tiny.jpg, 311 KB), --bin PATH (another
//          build's bin/provenance.js, to compare builds on the same fixtures; the store-open and
//          compaction columns, measured with this build's store code, are then left out).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { newKeyValue, sha256Hex } from '../src/daemon/accounts/key-format.js';
import { periodOf } from '../src/daemon/contract/time.js';
import { openStore, STORE_FILE, type StoreData } from '../src/daemon/store/file-store.js';
import { benchOption, listeningUrl } from './bench-kit.js';
import { runLoad, type LoadRequest } from './http-load.js';
import { sha256Ms } from './machine-speed.js';
import { cpuMs, rssMb } from './proc-stats.js';

const ROOT = resolve('.');
const THIS_BIN = join(ROOT, 'bin', 'provenance.js');
const opt = benchOption;
// Child mode: open the store in a data dir in this fresh process, print the milliseconds, exit.
const measureOpen = opt('measure-open', '');
if (measureOpen) {
  const start = performance.now();
  const store = await openStore(measureOpen);
  console.log((performance.now() - start).toFixed(1));
  await store.close();
  process.exit(0);
}

const STORE_KINDS = ['embedded'] as const;
type StoreKind = (typeof STORE_KINDS)[number];
const kind = opt('store', 'embedded');
if (!(STORE_KINDS as readonly string[]).includes(kind)) {
  console.error(`provenance: --store must be one of ${STORE_KINDS.join(', ')}, not "${kind}"`);
  process.exit(2);
}
const sizes = opt('sizes', '0,10000,100000').split(',').map(Number);
if (sizes.some((n) => !Number.isSafeInteger(n) || n < 0)) {
  console.error('provenance: --sizes must be a comma-separated list of account counts');
  process.exit(2);
}
const rounds = Number(opt('rounds', '3'));
const duration = Number(opt('duration', '8'));
const connections = Number(opt('connections', '8'));
const corpusJpeg = join(ROOT, '..', 'shared', 'corpus', 'files', 'Pixel_tiny.jpg');
const file = opt('file', existsSync(corpusJpeg) ? corpusJpeg : '');
if (!file) {
  console.error('provenance: no JPEG to send: pass --file PATH');
  process.exit(2);
}
const bytes = new Uint8Array(readFileSync(file));
const BIN = resolve(opt('bin', THIS_BIN));
const otherBuild = BIN !== THIS_BIN;
const BENCH_KEYS = 64;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const MB = 1_048_576;

/** A data dir for one size, made without HTTP; returns the bench account's key values. */
interface Fixture {
  size: number;
  dataDir: string;
  keys: string[];
  storeBytes: number;
  writeMs: number;
}

/** The embedded store: provenance.json written directly, in the store's own document layout. */
function embeddedFixture(size: number): Fixture {
  const start = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), `prov-bench-store-${size}-`));
  mkdirSync(dataDir, { recursive: true });
  const created = '2026-11-01T00:00:00.000Z';
  const period = periodOf(new Date());
  const data: StoreData = { version: 1, accounts: {}, keys: {}, usage: {}, uploads: {}, sessions: {}, signin_tokens: {} };
  const id = (prefix: string, n: number) => `${prefix}_${n.toString(36).padStart(12, '0')}`;
  for (let i = 0; i < size; i++) {
    const account = id('acct', i);
    data.accounts[account] = { id: account, email: `user${i}@example.test`, plan: 'free', created_at: created };
    for (let k = 0; k < 2; k++) {
      const key = id('key', i * 2 + k);
      const hash = randomBytes(32).toString('hex');
      data.keys[key] = { id: key, account, name: 'key', prefix: `prv_${hash.slice(0, 4)}`, sha256: hash, created_at: created, last_used_at: null, revoked_at: null };
    }
    data.usage[account] = { [period]: i % 500 };
  }
  const bench = 'acct_bench';
  data.accounts[bench] = { id: bench, email: 'bench@example.test', plan: 'custom', quota: 1_000_000_000, created_at: created };
  const keys: string[] = [];
  for (let k = 0; k < BENCH_KEYS; k++) {
    const value = newKeyValue();
    keys.push(value);
    const key = `key_bench${k}`;
    data.keys[key] = { id: key, account: bench, name: 'bench', prefix: value.slice(0, 8), sha256: sha256Hex(value), created_at: created, last_used_at: null, revoked_at: null };
  }
  const path = join(dataDir, STORE_FILE);
  writeFileSync(path, JSON.stringify(data), { mode: 0o600 });
  return { size, dataDir, keys, storeBytes: statSync(path).size, writeMs: performance.now() - start };
}

const FIXTURES: Record<StoreKind, (size: number) => Fixture> = { embedded: embeddedFixture };

interface Daemon {
  url: string;
  pid: number;
  startMs: number;
  stop(): Promise<void>;
}

async function startDaemon(dataDir: string): Promise<Daemon> {
  const start = performance.now();
  const child = spawn(process.execPath, [BIN, 'daemon', 'start', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await listeningUrl(child);
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  return {
    url,
    pid: child.pid!,
    startMs: performance.now() - start,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Opening the store in a fresh process (this script, bundled, in its child mode): the median of three. */
function openMs(dataDir: string): number {
  const self = fileURLToPath(import.meta.url);
  const runs = [0, 1, 2].map(() => Number(execFileSync(process.execPath, [self, '--measure-open', dataDir], { encoding: 'utf8' }).trim()));
  return median(runs);
}

/**
 * One compaction on a copy of the fixture: its whole time, and the longest the event loop was
 * held meanwhile (the gap between ticks of a 5 ms timer, less 5 ms): how long requests stall.
 */
async function compactionMs(dataDir: string): Promise<{ total: number; blocking: number }> {
  const copy = mkdtempSync(join(tmpdir(), 'prov-bench-compact-'));
  try {
    writeFileSync(join(copy, STORE_FILE), readFileSync(join(dataDir, STORE_FILE)));
    const store = await openStore(copy);
    await store.touchKey('key_bench0', new Date().toISOString());
    await store.commit();
    let last = performance.now();
    let blocking = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      blocking = Math.max(blocking, now - last - 5);
      last = now;
    }, 5);
    const start = performance.now();
    await store.compact();
    const total = performance.now() - start;
    clearInterval(ticker);
    blocking = Math.max(blocking, performance.now() - last - 5);
    await store.close();
    return { total, blocking: Math.max(0, blocking) };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

interface Row {
  fixture: Fixture;
  daemon: Daemon;
  openMs: number;
  compaction: { total: number; blocking: number };
  rssIdle: number;
  rssPeak: number;
  runs: { rps: number; p50: number; p99: number; ok: number; other: number; cpuPerCall: number }[];
}

async function main() {
  const speedBefore = sha256Ms(bytes);
  const loadBefore = loadavg()[0]!;
  const fixtures = sizes.map((size) => FIXTURES[kind as StoreKind](size));
  for (const f of fixtures) console.error(`[bench:store] ${f.size} accounts: ${(f.storeBytes / MB).toFixed(1)} MB store written in ${f.writeMs.toFixed(0)} ms`);
  const rows: Row[] = [];
  try {
    for (const fixture of fixtures) {
      const opened = otherBuild ? NaN : openMs(fixture.dataDir);
      const compaction = otherBuild ? { total: NaN, blocking: NaN } : await compactionMs(fixture.dataDir);
      const daemon = await startDaemon(fixture.dataDir);
      rows.push({ fixture, daemon, openMs: opened, compaction, rssIdle: rssMb(daemon.pid), rssPeak: 0, runs: [] });
    }
    const body = Buffer.from(JSON.stringify({ media: Buffer.from(bytes).toString('base64'), checks: ['camera_reference'] }));
    const requestsOf = (row: Row): LoadRequest[] =>
      row.fixture.keys.map((key) => ({ method: 'POST', path: '/v1/detect', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body }));
    for (const row of rows) {
      const warm = await runLoad({ url: row.daemon.url, connections, requests: requestsOf(row), amount: 200 });
      if ((warm.statuses[200] ?? 0) !== 200) throw new Error(`warm-up at ${row.fixture.size} accounts: ${JSON.stringify(warm.statuses)}`);
    }
    for (let round = 0; round < rounds; round++) {
      // The sizes take turns, in a different order each round.
      for (let i = 0; i < rows.length; i++) {
        const row = rows[(i + round) % rows.length]!;
        let peak = 0;
        const sampler = setInterval(() => {
          peak = Math.max(peak, rssMb(row.daemon.pid));
        }, 50);
        const cpuBefore = cpuMs(row.daemon.pid);
        const r = await runLoad({ url: row.daemon.url, connections, requests: requestsOf(row), durationMs: duration * 1000 });
        const cpu = cpuMs(row.daemon.pid) - cpuBefore;
        clearInterval(sampler);
        row.rssPeak = Math.max(row.rssPeak, peak, rssMb(row.daemon.pid));
        const ok = r.statuses[200] ?? 0;
        row.runs.push({ rps: (ok / r.durationMs) * 1000, p50: r.latencyMs.p50, p99: r.latencyMs.p99, ok, other: r.answered - ok + r.errors, cpuPerCall: cpu / r.answered });
        console.error(`[bench:store] round ${round + 1}, ${row.fixture.size} accounts: ${((ok / r.durationMs) * 1000).toFixed(1)} calls/s, p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms`);
      }
    }
  } finally {
    for (const row of rows) await row.daemon.stop();
    for (const f of fixtures) rmSync(f.dataDir, { recursive: true, force: true });
  }
  const speedAfter = sha256Ms(bytes);
  const loadAfter = loadavg()[0]!;

  const base = rows[0]!;
  const p50Of = (row: Row) => median(row.runs.map((r) => r.p50));
  const rpsOf = (row: Row) => median(row.runs.map((r) => r.rps));
  const lines = [
    `store: ${kind}${otherBuild ? ` (daemon: ${BIN})` : ''}; file: ${file} (${(bytes.length / 1024).toFixed(0)} KB, inline base64, checks: camera_reference), ${connections} connections, ${rounds} rounds of ${duration} s per size, sizes taking turns`,
    `machine: ${cpus()[0]?.model ?? 'unknown'}, ${availableParallelism()} cores, Node ${process.version}; speed: SHA-256 of the file in ${speedBefore.toFixed(3)} ms before, ${speedAfter.toFixed(3)} ms after; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
    '',
    '| accounts (2 keys each) | store file | p50 per call | p99 per call | calls/s | p50 / empty | calls/s / empty | daemon main-thread CPU per call | store open | spawn to listening | RSS idle / peak under load | compaction (blocking) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const failed = row.runs.reduce((n, r) => n + r.other, 0);
      return [
        `${row.fixture.size.toLocaleString('en-US')}${failed ? ` (${failed} not 200)` : ''}`,
        `${(row.fixture.storeBytes / MB).toFixed(1)} MB`,
        `${p50Of(row).toFixed(1)} ms`,
        `${median(row.runs.map((r) => r.p99)).toFixed(1)} ms`,
        `${rpsOf(row).toFixed(1)}`,
        `${(p50Of(row) / p50Of(base)).toFixed(2)}x`,
        `${(rpsOf(row) / rpsOf(base)).toFixed(2)}x`,
        `${median(row.runs.map((r) => r.cpuPerCall)).toFixed(2)} ms`,
        otherBuild ? 'n/a' : `${row.openMs.toFixed(0)} ms`,
        `${row.daemon.startMs.toFixed(0)} ms`,
        `${row.rssIdle.toFixed(0)} / ${row.rssPeak.toFixed(0)} MB`,
        otherBuild ? 'n/a' : `${row.compaction.total.toFixed(0)} ms (${row.compaction.blocking.toFixed(0)} ms)`,
      ].join(' | ').replace(/^/, '| ').replace(/$/, ' |');
    }),
    '',
    'Per round (calls/s; p50):',
    ...rows.map((row) => `- ${row.fixture.size.toLocaleString('en-US')} accounts: ${row.runs.map((r) => `${r.rps.toFixed(1)}; ${r.p50.toFixed(1)} ms`).join(' | ')}`),
  ];
  console.log(lines.join('\n'));
}

await main();
