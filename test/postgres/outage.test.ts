// PostgreSQL going away under load on three daemons (issue 14 §3), two ways: restarted (it
// refuses, then is back) and hanging (frozen with SIGSTOP: its port accepts and nothing answers).
// Each daemon answers the CONTRACT's 500 body while the database is away (never a 200 for a call
// it could not record), never hangs past a bound derived from the store's own timeouts, /healthz
// says the store is down, and service resumes without restarting the daemons.
// The database here is a throwaway server of this test's own (test/helpers/pg-cluster.ts): the
// machine's shared server is never restarted or frozen by a test.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_TIMEOUTS_MS } from '../../src/daemon/store/pg-store.js';
import { tinyJpeg } from '../fixtures/make.js';
import { runCli } from '../helpers/run-cli.js';
import { sql } from '../helpers/postgres.js';
import { clusterUnavailable, startCluster, type Cluster } from '../helpers/pg-cluster.js';
import { b64, expectError, http, tempDir, type HttpResult } from '../daemon/helpers.js';
import { startDaemonProcess, type DaemonProcess } from '../daemon/process.js';

const unavailable = clusterUnavailable();
if (unavailable) {
  if (process.env.CI) throw new Error(`the PostgreSQL outage test needs a throwaway server: ${unavailable}`);
  process.stderr.write(`NOTICE: PostgreSQL outage test SKIPPED: ${unavailable}\n`);
}

// A store call waits at most for a connection (connect) and then for its query (query); a request
// that meets a database that does not answer fails at that call and asks it nothing more on its
// way out (no ROLLBACK on the dead connection, clean-ups and give-backs behind the answer, no
// quota headers read). Four seconds more for the rest of the request: three daemons, PostgreSQL
// and this test share two cores, and under CI's load an event loop can lag by seconds (with one
// second, waits of 15.0 to 15.9 s came within 0.1 s of failing before the fixes).
// /healthz: a connection, then its probe.
const SLACK_MS = 4_000;
const REQUEST_BOUND_MS = PG_TIMEOUTS_MS.connect + PG_TIMEOUTS_MS.query + SLACK_MS;
const HEALTH_BOUND_MS = PG_TIMEOUTS_MS.connect + PG_TIMEOUTS_MS.health + SLACK_MS;

const body = JSON.stringify({ media: b64(tinyJpeg()) });
const json = { 'content-type': 'application/json' };
const dirs = [tempDir('prov-pg-outage-a-'), tempDir('prov-pg-outage-b-'), tempDir('prov-pg-outage-c-')];
let cluster: Cluster;
let daemons: DaemonProcess[] = [];
// One account, a key per client: the burst limit (300 requests a minute per key on the custom
// plan) is not what these tests are about. keys[0] for probes, then the detect clients (two per
// daemon), then the uploaders (one per daemon).
const DETECT_CLIENTS_PER_DAEMON = 2;
const KEYS = 1 + (DETECT_CLIENTS_PER_DAEMON + 1) * dirs.length;
let keys: string[] = [];

beforeAll(async () => {
  if (unavailable) return;
  cluster = await startCluster();
  daemons = await Promise.all(dirs.map((d) => startDaemonProcess(['--data-dir', d.dir, '--store', cluster.url])));
  const admin = async (args: string[]) => {
    const r = await runCli(['daemon', ...args, '--store', cluster.url, '--json']);
    if (r.code !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout).key.value as string;
  };
  const first = await admin(['accounts', 'create', '--email', 'outage@example.test', '--plan', 'custom', '--quota', '1000000']);
  keys = [first, ...(await Promise.all(Array.from({ length: KEYS - 1 }, () => admin(['keys', 'create', '--email', 'outage@example.test']))))];
});

afterAll(async () => {
  for (const d of daemons) d.child.kill('SIGTERM');
  await Promise.all(daemons.map((d) => d.exited));
  cluster?.destroy();
  for (const d of dirs) d.cleanup();
});

type Answer = HttpResult & { what: string; start: number; end: number; ms: number };

/**
 * One request, timed. A request still unanswered at twice the bound is cut (status 0), so that a
 * hang fails the latency assertion with its number rather than running into the test's timeout.
 */
async function timed(what: string, request: (signal: AbortSignal) => Promise<HttpResult>): Promise<Answer> {
  const start = performance.now();
  let r: HttpResult;
  try {
    r = await request(AbortSignal.timeout(2 * REQUEST_BOUND_MS));
  } catch (err) {
    r = { status: 0, headers: {}, body: undefined, text: String(err) };
  }
  const end = performance.now();
  return { ...r, what, start, end, ms: end - start };
}

const detect = (i: number, key = keys[0]) =>
  timed(`detect via daemon ${i}`, (signal) => http(daemons[i]!.url, 'POST', '/v1/detect', { key, body, headers: json, signal }));
const detectUpload = (i: number, upload: string, key = keys[0]) =>
  timed(`detect of an upload via daemon ${i}`, (signal) => http(daemons[i]!.url, 'POST', '/v1/detect', { key, json: { upload }, signal }));
const healthz = (i: number) => timed(`healthz of daemon ${i}`, (signal) => http(daemons[i]!.url, 'GET', '/healthz', { signal }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const usage = async () => (await sql(cluster.url, 'SELECT coalesce(sum(used), 0)::int AS used FROM usage'))[0]!.used as number;

/**
 * Every answer within `bound` ms of its request, or of `since` (the moment the database stopped
 * answering) for a request that was under way then: what it did before is not waiting for the
 * database (an 8 MB upload streamed in). The slowest is named in the failure.
 */
function expectWithin(answers: Answer[], bound: number, since = -Infinity) {
  const waited = (a: Answer) => a.end - Math.max(a.start, since);
  const slowest = answers.reduce((a, b) => (waited(b) > waited(a) ? b : a), answers[0]!);
  expect(waited(slowest), `${slowest.what} waited ${Math.round(waited(slowest))} ms (status ${slowest.status})`).toBeLessThan(bound);
}

/** A non-2xx answer is the CONTRACT's 500 internal_error body (never a bare {} or a cut connection). */
function expectContract500(answers: Answer[]) {
  for (const a of answers) expectError(a, 500, 'internal_error');
}

/**
 * Detect loops on every daemon until stop() (bounded: `perClient` requests each at most). With
 * `upload`, every other client detects that upload by its id (the call is reserved, then the
 * upload read: more than one store call in a request).
 */
function detectLoad(upload?: string, perClient = 2000) {
  const answers: Answer[] = [];
  let loading = true;
  const clients = daemons.flatMap((_, d) =>
    Array.from({ length: DETECT_CLIENTS_PER_DAEMON }, async (_, c) => {
      const key = keys[1 + d * DETECT_CLIENTS_PER_DAEMON + c];
      for (let n = 0; loading && n < perClient; n++) {
        const r = upload && c % 2 ? await detectUpload(d, upload, key) : await detect(d, key);
        answers.push(r);
        if (r.status !== 200) await sleep(20);
      }
    }),
  );
  return {
    answers,
    async stop() {
      loading = false;
      await Promise.all(clients);
    },
  };
}

/** Uploads of `size` bytes (a JPEG at the start) through every daemon until stop() (bounded). */
function uploadLoad(size: number, perDaemon = 500) {
  const bytes = new Uint8Array(size);
  bytes.set(tinyJpeg());
  const answers: Answer[] = [];
  let loading = true;
  const uploaders = daemons.map(async (d, i) => {
    for (let n = 0; loading && n < perDaemon; n++) {
      const r = await timed(`upload via daemon ${i}`, (signal) =>
        http(d.url, 'POST', '/v1/uploads', { key: keys[1 + DETECT_CLIENTS_PER_DAEMON * daemons.length + i], body: bytes as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/octet-stream' }, signal }),
      );
      answers.push(r);
      if (r.status !== 201) await sleep(20);
    }
  });
  return {
    answers,
    async stop() {
      loading = false;
      await Promise.all(uploaders);
    },
  };
}

/** Each daemon answers a detect with 200 again, without a restart (bounded wait). */
async function expectResumed(): Promise<Answer[]> {
  const probes: Answer[] = [];
  for (const d of daemons.keys()) {
    let resumed = false;
    for (let i = 0; i < 100 && !resumed; i++) {
      const r = await detect(d);
      probes.push(r);
      resumed = r.status === 200;
      if (!resumed) await sleep(100);
    }
    const last = probes.at(-1)!;
    expect(resumed, `daemon ${d} resumed (last answer ${last.status} ${last.text.slice(0, 200)} after ${Math.round(last.ms)} ms)`).toBe(true);
    expect((await healthz(d)).body).toEqual({ status: 'ok', test_mode: false });
  }
  return probes;
}

describe.skipIf(Boolean(unavailable))('PostgreSQL restarted under load', () => {
  it('errors are contract bodies within the bound, no 200 is lost, /healthz says down, and service resumes', async () => {
    const usageBefore = await usage();
    const load = detectLoad();
    // And uploads of 3 MB (three 1 MB rows, written in one transaction) through each daemon.
    const uploads = uploadLoad(3 * 1024 * 1024);
    await sleep(500);

    cluster.stop();
    const down: Answer[] = [];
    for (const d of daemons.keys()) {
      const health = await healthz(d);
      down.push(health);
      expect(health.status).toBe(503);
      expect(health.body).toEqual({ status: 'unavailable', store: 'down', test_mode: false });
    }
    expectWithin(down, HEALTH_BOUND_MS);
    const refused = await Promise.all([...daemons.keys()].map((d) => detect(d)));
    expectContract500(refused);
    await sleep(1000);

    cluster.start();
    // Service resumes by itself: the pool reconnects on demand.
    const probes = await expectResumed();
    await sleep(300);
    await Promise.all([load.stop(), uploads.stop()]);
    // No daemon died (a connection lost mid-transaction must not be an uncaught error).
    for (const d of daemons) expect(d.child.exitCode ?? d.child.signalCode).toBeNull();

    const all = [...load.answers, ...uploads.answers, ...refused, ...probes];
    expectWithin(all, REQUEST_BOUND_MS);
    expectContract500(uploads.answers.filter((u) => u.status !== 201));
    expect(uploads.answers.filter((u) => u.status === 201).length).toBeGreaterThan(0);
    const detects = [...load.answers, ...probes];
    const ok = detects.filter((r) => r.status === 200).length;
    const failed = detects.filter((r) => r.status !== 200);
    expectContract500(failed);
    const used = (await usage()) - usageBefore;
    const slowest = Math.max(...all.map((a) => a.ms));
    console.log(`[pg restart] ${ok} 200s, ${failed.length} 500s, usage +${used}; uploads ${uploads.answers.filter((u) => u.status === 201).length} 201s; slowest answer ${Math.round(slowest)} ms`);
    expect(failed.length).toBeGreaterThan(0);
    // Every 200 was recorded (a call that failed may have been counted too: never fewer).
    expect(used).toBeGreaterThanOrEqual(ok);
  });
});

describe.skipIf(Boolean(unavailable))('PostgreSQL hanging under load (SIGSTOP, then SIGCONT)', () => {
  it('requests answer the contract 500 within the bound, /healthz says down within its bound, service resumes', async () => {
    const stored = await http(daemons[0]!.url, 'POST', '/v1/uploads', { key: keys[0], body: tinyJpeg() as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/octet-stream' } });
    expect(stored.status).toBe(201);
    const usageBefore = await usage();
    const load = detectLoad(stored.body.id);
    // Uploads too: each is one transaction of eight 1 MB statements, the longest a store call gets.
    const uploads = uploadLoad(8 * 1024 * 1024);
    await sleep(500);

    // Frozen with requests part-way, for certain: a lock of this test's own on upload_chunks
    // holds each upload inside its transaction (its record written, its first chunk's INSERT
    // sent, no COMMIT) and each detect of an upload after its call was reserved (the bytes'
    // SELECT sent). The longest a request can wait: a statement that never answers, then what
    // the request does about it. Polled until both are waiting (bounded), then frozen.
    // Every daemon's pool full of idle connections first (twelve requests at once each): a
    // request that asked the frozen database a second time would meet one, and wait out a second
    // query timeout on it, rather than only a connection timeout on a new one.
    const warmup = await Promise.all(daemons.flatMap((_, d) => Array.from({ length: 12 }, () => detect(d))));
    const locker = new pg.Client({ connectionString: cluster.url });
    locker.on('error', () => {});
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE upload_chunks IN ACCESS EXCLUSIVE MODE');
    const waiting = async () =>
      (
        await sql(
          cluster.url,
          `SELECT count(*) FILTER (WHERE query LIKE 'INSERT INTO upload_chunks%')::int AS uploads,
                  count(*) FILTER (WHERE query LIKE 'SELECT data FROM upload_chunks%')::int AS detects
             FROM pg_stat_activity WHERE application_name = 'provenance-daemon' AND wait_event_type = 'Lock'`,
        )
      )[0]!;
    let held = { uploads: 0, detects: 0 };
    for (let i = 0; i < 200 && !(held.uploads && held.detects); i++) {
      held = (await waiting()) as typeof held;
      if (!(held.uploads && held.detects)) await sleep(25);
    }
    cluster.pause();
    const pausedAt = performance.now();
    let hung: Answer[];
    let health: Answer[];
    try {
      // While it hangs, each daemon is asked at once: a detect, and its health.
      [hung, health] = await Promise.all([
        Promise.all([...daemons.keys()].map((d) => detect(d))),
        Promise.all([...daemons.keys()].map((d) => healthz(d))),
      ]);
      // Frozen past the bound (the load keeps asking meanwhile): a request that would wait
      // longer than the bound is still waiting then, not let go by the server coming back.
      await sleep(Math.max(0, pausedAt + REQUEST_BOUND_MS + 1_000 - performance.now()));
    } finally {
      cluster.resume();
      await locker.end().catch(() => {});
    }
    expect(held.uploads, 'uploads held inside their transaction when the server froze').toBeGreaterThan(0);
    expect(held.detects, 'detects of an upload held after their reservation when the server froze').toBeGreaterThan(0);
    expectContract500(hung);
    expectWithin(hung, REQUEST_BOUND_MS);
    for (const h of health) {
      expect(h.status, h.what).toBe(503);
      expect(h.body).toEqual({ status: 'unavailable', store: 'down', test_mode: false });
    }
    expectWithin(health, HEALTH_BOUND_MS);

    const probes = await expectResumed();
    await sleep(300);
    await Promise.all([load.stop(), uploads.stop()]);
    for (const d of daemons) expect(d.child.exitCode ?? d.child.signalCode).toBeNull();

    const detects = [...load.answers, ...warmup, ...probes];
    const all = [...detects, ...hung, ...uploads.answers];
    expectWithin(all, REQUEST_BOUND_MS, pausedAt);
    expectContract500(uploads.answers.filter((u) => u.status !== 201));
    const ok = detects.filter((r) => r.status === 200).length;
    const failed = detects.filter((r) => r.status !== 200);
    expectContract500(failed);
    // The requests in flight when it froze waited, then failed: the load saw the hang too.
    expect(failed.length).toBeGreaterThan(0);
    const used = (await usage()) - usageBefore;
    const longest = Math.max(...all.map((a) => a.end - Math.max(a.start, pausedAt)));
    const uploaded = uploads.answers.filter((u) => u.status === 201).length;
    console.log(`[pg hang] ${ok} 200s, ${failed.length} 500s, usage +${used}; uploads ${uploaded} 201s, ${uploads.answers.length - uploaded} 500s; longest wait ${Math.round(longest)} ms`);
    expect(used).toBeGreaterThanOrEqual(ok);
  }, 120_000);
});
