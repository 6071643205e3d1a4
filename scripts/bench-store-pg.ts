// `npm run bench:store-pg`: the daemon on a PostgreSQL store (issue 14, "Figures"). Counted
// detect calls (an inline ~300 KB camera JPEG, `camera_reference` only, 8 connections, one
// custom-plan account) with 0, 10,000 and 100,000 other accounts (2 keys each) in the database:
// p50/p99 and calls per second, the daemon's start-up time and RSS; then the same load split
// over two daemons on the same database, with the CPU each process used (the daemons, and the
// PostgreSQL backends serving them), since the machine has two cores for all of it.
//
// The load cycles over 200 keys of the one account, so the per-key burst limit (300 a minute on
// the custom plan) never refuses a call: every 200 is a counted call, reserved in the database.
// Runs against PROVENANCE_BENCH_DATABASE_URL, else PROVENANCE_TEST_DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/postgres, in a database of its own that it drops after.
// Needs a build (dist/), which the npm script runs first.
//
// Options: --duration SECONDS (default 10), --sizes 0,10000,100000, --connections N (default 8).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Accounts } from '../src/daemon/accounts/accounts.js';
import { PgStore } from '../src/daemon/store/pg-store.js';
import { tinyJpeg } from '../test/fixtures/make.js';
import { benchOption, listeningUrl } from './bench-kit.js';
import { runLoad, type LoadRequest, type LoadResult } from './http-load.js';

const ROOT = resolve('.');
const BIN = join(ROOT, 'bin', 'provenance.js');
const opt = benchOption;
const duration = Number(opt('duration', '10'));
const connections = Number(opt('connections', '8'));
const sizes = opt('sizes', '0,10000,100000').split(',').map(Number);
const KEYS = 200;
const server = process.env.PROVENANCE_BENCH_DATABASE_URL || process.env.PROVENANCE_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function sql(url: string, text: string, values?: unknown[]): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A camera JPEG of about 300 KB: the fixture's EXIF with an incompressible image body. */
function jpeg300k(): Buffer {
  const base = Buffer.from(tinyJpeg({ width: 64, height: 64 }));
  // Pad inside a COM segment chain before EOI so the file stays a valid JPEG.
  const segments: Buffer[] = [];
  let left = 300 * 1024 - base.length;
  let seed = 1;
  while (left > 4) {
    const n = Math.min(65_533, left - 4);
    const body = Buffer.alloc(n);
    for (let i = 0; i < n; i++) body[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    segments.push(Buffer.from([0xff, 0xfe, (n + 2) >> 8, (n + 2) & 0xff]), body);
    left -= n + 4;
  }
  return Buffer.concat([base.subarray(0, 2), ...segments, base.subarray(2)]);
}

interface Daemon {
  url: string;
  pid: number;
  startMs: number;
  stop(): Promise<void>;
}

async function startDaemon(storeUrl: string): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'prov-bench-pg-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'daemon', 'start', '--port', '0', '--data-dir', dataDir, '--store', storeUrl], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await listeningUrl(child);
  const startMs = performance.now() - t0;
  return {
    url,
    pid: child.pid!,
    startMs,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const TICK = 100; // clock ticks per second (Linux USER_HZ)
/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function backendPids(url: string): Promise<number[]> {
  return (await sql(url, "SELECT pid FROM pg_stat_activity WHERE application_name = 'provenance-daemon' AND datname = current_database()")).map((r) => r.pid);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function seed(url: string, accounts: number): Promise<void> {
  if (!accounts) return;
  // Accounts and keys as the daemon writes them (ids, ISO times, SHA-256 hex), in two statements.
  await sql(
    url,
    `INSERT INTO accounts (id, email, plan, quota, created_at)
     SELECT 'acct_bench' || lpad(i::text, 8, '0'), 'user' || i || '@bench.example', 'starter', NULL, '2026-11-01T00:00:00.000Z'
     FROM generate_series(1, $1) AS i`,
    [accounts],
  );
  await sql(
    url,
    `INSERT INTO api_keys (id, account, name, prefix, sha256, created_at, last_used_at, revoked_at)
     SELECT 'key_bench' || lpad(i::text, 8, '0') || k, 'acct_bench' || lpad(i::text, 8, '0'), 'key ' || k, 'prv_xxxx',
            encode(sha256(('bench' || i || '/' || k)::bytea), 'hex'), '2026-11-01T00:00:00.000Z', NULL, NULL
     FROM generate_series(1, $1) AS i, generate_series(1, 2) AS k`,
    [accounts],
  );
  await sql(url, 'ANALYZE');
}

function requestsFor(keys: string[], body: Buffer): LoadRequest[] {
  return keys.map((key) => ({ method: 'POST', path: '/v1/detect', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body }));
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Row {
  accounts: number;
  single: LoadResult;
  startMs: number;
  rss: number;
  singleCpu: { daemon: number; pg: number };
  two: { rps: number; p50: number; p99: number; cpu: number[]; pg: number; non200: number; calls: number };
}

async function benchSize(accounts: number, body: Buffer): Promise<Row> {
  const name = `prov_bench_${Math.random().toString(16).slice(2, 10)}`;
  await sql(server, `CREATE DATABASE ${name}`);
  const url = withDatabase(server, name);
  try {
    execFileSync(process.execPath, [BIN, 'daemon', 'migrate', '--store', url], { stdio: 'ignore' });
    await seed(url, accounts);
    // The measured accounts and their keys, made by the same code as `daemon accounts/keys create`
    // (an account has at most 25 active keys: 20 each).
    const store = await PgStore.open(url);
    const accountsApi = new Accounts(store);
    const keys: string[] = [];
    for (let a = 0; keys.length < KEYS; a++) {
      const email = `bench-${a}@example.test`;
      keys.push((await accountsApi.createAccount({ email, plan: 'custom', quota: 100_000_000 })).key.value);
      for (let i = 1; i < 20 && keys.length < KEYS; i++) keys.push((await accountsApi.createKey(email)).value);
    }
    await store.close();
    const requests = requestsFor(keys, body);

    // One daemon.
    const a = await startDaemon(url);
    await runLoad({ url: a.url, connections, requests, durationMs: 2000 }); // warm-up
    let pgPids = await backendPids(url);
    let cpu0 = cpuSeconds(a.pid);
    let pg0 = sum(pgPids.map(cpuSeconds));
    const single = await runLoad({ url: a.url, connections, requests, durationMs: duration * 1000 });
    const singleCpu = { daemon: cpuSeconds(a.pid) - cpu0, pg: sum(pgPids.map(cpuSeconds)) - pg0 };
    const rss = rssMb(a.pid);

    // Two daemons on the same database, the connections split between them.
    const b = await startDaemon(url);
    await runLoad({ url: b.url, connections, requests, durationMs: 2000 });
    pgPids = await backendPids(url);
    cpu0 = cpuSeconds(a.pid);
    const cpuB0 = cpuSeconds(b.pid);
    pg0 = sum(pgPids.map(cpuSeconds));
    const half = Math.max(1, Math.floor(connections / 2));
    const [ra, rb] = await Promise.all([
      runLoad({ url: a.url, connections: half, requests: requests.slice(0, KEYS / 2), durationMs: duration * 1000 }),
      runLoad({ url: b.url, connections: connections - half, requests: requests.slice(KEYS / 2), durationMs: duration * 1000 }),
    ]);
    const two = {
      rps: ra.requestsPerSecond + rb.requestsPerSecond,
      p50: Math.max(ra.latencyMs.p50, rb.latencyMs.p50),
      p99: Math.max(ra.latencyMs.p99, rb.latencyMs.p99),
      cpu: [cpuSeconds(a.pid) - cpu0, cpuSeconds(b.pid) - cpuB0],
      pg: sum(pgPids.map(cpuSeconds)) - pg0,
      calls: (ra.statuses[200] ?? 0) + (rb.statuses[200] ?? 0),
      non200: ra.answered - (ra.statuses[200] ?? 0) + rb.answered - (rb.statuses[200] ?? 0) + ra.errors + rb.errors,
    };
    const startMs = a.startMs;
    await a.stop();
    await b.stop();
    const non200 = single.answered - (single.statuses[200] ?? 0) + single.errors;
    if (non200 || two.non200) console.error(`  ${accounts} accounts: ${non200} + ${two.non200} answers were not 200: ${JSON.stringify(single.statuses)}`);
    return { accounts, single, startMs, rss, singleCpu, two };
  } finally {
    await sql(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

const body = Buffer.from(JSON.stringify({ media: jpeg300k().toString('base64'), checks: ['camera_reference'] }));
console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model}), load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`PostgreSQL store bench: ${duration} s per run, ${connections} connections, ${fmt(body.length / 1024)} KB JSON bodies, server ${server.replace(/:[^:@/]*@/, ':***@')}`);
const rows: Row[] = [];
for (const size of sizes) {
  const load = loadavg()[0]!.toFixed(2);
  const row = await benchSize(size, body);
  rows.push(row);
  console.log(`  (1-minute load average before this size: ${load}, after: ${loadavg()[0]!.toFixed(2)})`);
  console.log(
    `  ${fmt(size)} accounts: 1 daemon ${fmt(row.single.requestsPerSecond)} calls/s, p50 ${fmt(row.single.latencyMs.p50, 1)} ms, p99 ${fmt(row.single.latencyMs.p99, 1)} ms, ` +
      `start ${fmt(row.startMs)} ms, RSS ${fmt(row.rss)} MB; 2 daemons ${fmt(row.two.rps)} calls/s`,
  );
}

/** Peak RSS of a fresh daemon on PostgreSQL while 8 clients upload 25 MB each at once, 3 rounds. */
async function uploadsRss(): Promise<{ idle: number; peak: number; uploaded: number }> {
  const name = `prov_bench_${Math.random().toString(16).slice(2, 10)}`;
  await sql(server, `CREATE DATABASE ${name}`);
  const url = withDatabase(server, name);
  try {
    const store = await PgStore.open(url);
    const accountsApi = new Accounts(store);
    const first = await accountsApi.createAccount({ email: 'up@example.test', plan: 'growth' });
    const keys = [first.key.value];
    for (let i = 1; i < 8; i++) keys.push((await accountsApi.createKey('up@example.test')).value);
    await store.close();
    const daemon = await startDaemon(url);
    const idle = rssMb(daemon.pid);
    const big = new Uint8Array(25 * 1024 * 1024);
    big.set(jpeg300k());
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(daemon.pid));
    }, 20);
    let uploaded = 0;
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        keys.map(async (key) => {
          const r = await fetch(`${daemon.url}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, body: big });
          await r.arrayBuffer();
          if (r.status === 201) uploaded++;
        }),
      );
    }
    clearInterval(sampler);
    await daemon.stop();
    return { idle, peak, uploaded };
  } finally {
    await sql(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

const up = await uploadsRss();
console.log(`  uploads: daemon RSS idle ${fmt(up.idle)} MB, peak ${fmt(up.peak)} MB while 8 clients upload 25 MB at once (x3, ${up.uploaded}/24 accepted)`);

const secs = duration;
// CPU per call (CPU seconds used during the run / calls answered) changes far less than calls per
// second when other work shares the machine, so it is the figure to compare across sizes.
const perCall = (cpuS: number, calls: number) => (calls ? fmt((1000 * cpuS) / calls, 2) : '-');
console.log('\n| other accounts (2 keys each) | daemons | calls/s | p50 | p99 | daemon CPU | daemon CPU per call | PostgreSQL backends CPU per call | daemon start | daemon RSS |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const calls1 = r.single.statuses[200] ?? 0;
  const calls2 = r.two.calls;
  console.log(
    `| ${fmt(r.accounts)} | 1 | ${fmt(r.single.requestsPerSecond)} | ${fmt(r.single.latencyMs.p50, 1)} ms | ${fmt(r.single.latencyMs.p99, 1)} ms | ${fmt((100 * r.singleCpu.daemon) / secs)} % | ${perCall(r.singleCpu.daemon, calls1)} ms | ${perCall(r.singleCpu.pg, calls1)} ms | ${fmt(r.startMs)} ms | ${fmt(r.rss)} MB |`,
  );
  console.log(
    `| ${fmt(r.accounts)} | 2 | ${fmt(r.two.rps)} | ${fmt(r.two.p50, 1)} ms | ${fmt(r.two.p99, 1)} ms | ${r.two.cpu.map((c) => `${fmt((100 * c) / secs)} %`).join(' + ')} | ${perCall(sum(r.two.cpu), calls2)} ms | ${perCall(r.two.pg, calls2)} ms | | |`,
  );
}
