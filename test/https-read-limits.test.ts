// Issue 40 items 4 and 8, against a real HTTPS server on 127.0.0.1 (a throw-away CA, trusted by
// the built CLI through NODE_EXTRA_CA_CERTS):
// - a whole read has a deadline (--read-timeout, the library's readTimeoutMs): a server sending
//   one byte a second is cut there, with a read_error saying so, where only the 60 s idle
//   timeouts stood before (it kept `check` reading for over 130 s);
// - the read budget counts what a read holds, not what a HEAD answer said: bodies without a
//   Content-Length behind a refused HEAD (which counted 0 bytes each, so six 100 MB bodies took
//   `check` to 1.3-1.5 GB) are held within the budget, one going alone past it when each is
//   larger than the whole budget, and never waiting on each other for ever.
// An S3 object's read shares the body reader and its deadline (a stand-in store on 127.0.0.1).
// Every wait is bounded; no address but 127.0.0.1 is contacted.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { httpsInput, openHttps, readHttpsUrl, type HttpsConnection } from '../src/engine/https-source.js';
import { readInput } from '../src/engine/inputs.js';
import { holdRead, ReadBudget } from '../src/engine/read-budget.js';
import { readS3Url } from '../src/engine/s3-source.js';
import { check } from '../src/library/check.js';
import { tinyJpeg } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { makeServerCertificate, startHttpsServer, type HttpsTestServer, type TlsFiles } from './helpers/https-server.js';
import { s3rverEnv } from './helpers/s3rver.js';

const MB = 1024 * 1024;
let dir: string;
let tls: TlsFiles;
let server: HttpsTestServer;
/** Timers of trickling answers, stopped when their connection closes or the suite ends. */
const trickles = new Set<NodeJS.Timeout>();
/** Bodies being sent at this moment, and the most at once. */
let sending = 0;
let peakSending = 0;

/**
 * /trickle          1,000 bytes promised, one sent each second
 * /trickle-chunked  the same without a Content-Length
 * /sizeless/N       HEAD refused (405); GET: N MB, chunked, no Content-Length, no ETag
 */
function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  if (url.pathname.startsWith('/trickle')) {
    res.writeHead(200, url.pathname === '/trickle' ? { 'content-length': '1000' } : {});
    if (req.method === 'HEAD') return void res.end();
    res.write(tinyJpeg().subarray(0, 1));
    const timer = setInterval(() => res.write(Buffer.from([0])), 1000);
    trickles.add(timer);
    res.on('close', () => (clearInterval(timer), trickles.delete(timer)));
    return;
  }
  const sized = /^\/sizeless\/(\d+)/.exec(url.pathname);
  if (sized) {
    if (req.method === 'HEAD') return void res.writeHead(405).end();
    res.writeHead(200, { 'content-type': 'image/jpeg' });
    const total = Number(sized[1]) * MB;
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sent = 0;
    sending++;
    peakSending = Math.max(peakSending, sending);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      sending--;
    };
    res.on('close', finish);
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      finish();
      res.end();
    };
    pump();
    return;
  }
  res.writeHead(404).end();
}

/** The built CLI, killed after `ms` if it has not ended (so a read without a deadline fails the test, never hangs it). */
function runBounded(args: string[], ms: number): Promise<{ code: number | null; stdout: string; stderr: string; elapsedMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), ...args], {
      env: { ...process.env, NO_COLOR: '1', NODE_EXTRA_CA_CERTS: tls.caFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const killer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), elapsedMs: Date.now() - started });
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'https-read-limits-'));
  tls = makeServerCertificate(dir);
  server = await startHttpsServer(tls, route);
});

afterAll(async () => {
  for (const t of trickles) clearInterval(t);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a whole https:// read has a deadline', () => {
  it('readHttpsUrl stops a body sent a byte a second at its deadline, saying how far it came', async () => {
    const started = Date.now();
    await expect(readHttpsUrl(`${server.origin}/trickle?token=SECRET`, { ca: tls.caPem, deadlineMs: 2500 })).rejects.toMatchObject({
      type: 'read_error',
      message: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/trickle\?token=\*\*\*: the read did not finish within 2\.5 seconds \(\d of 1,000 bytes read\); a whole read has that long \(--read-timeout\)\.$/),
    });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2400);
    expect(elapsed).toBeLessThan(10_000);
    await expect(readHttpsUrl(`${server.origin}/trickle-chunked`, { ca: tls.caPem, deadlineMs: 1500 })).rejects.toMatchObject({
      message: expect.stringMatching(/the read did not finish within 1\.5 seconds \(\d bytes read\)/),
    });
  }, 30_000);

  it('check --read-timeout 2: the URL is an error line within seconds, the rest checked; a bad value is a usage error', async () => {
    // Two URLs: through the pool and the read budget, as a list is read.
    const run = await runBounded(['check', '--json', '--read-timeout', '2', `${server.origin}/trickle`, `${server.origin}/trickle-chunked`], 30_000);
    expect(run.elapsedMs).toBeLessThan(25_000);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.error).toEqual({ type: 'read_error', message: expect.stringMatching(/: the read did not finish within 2 seconds \(\d+( of 1,000)? bytes read\); a whole read has that long \(--read-timeout\)\.$/) });
    }
    // One URL alone: read in this thread, with the same deadline.
    const alone = await runBounded(['check', '--json', '--read-timeout', '1', `${server.origin}/trickle`], 30_000);
    expect(alone.code).toBe(1);
    expect(JSON.parse(alone.stdout).error.message).toContain('the read did not finish within 1 second (');
    for (const bad of ['0', '3601', 'soon']) {
      const refused = await runBounded(['check', '--read-timeout', bad, `${server.origin}/trickle`], 30_000);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--read-timeout|Whole seconds/);
    }
  }, 120_000);

  it('check --crjson and --rubric take --read-timeout too: the URL is cut at the deadline, a bad value is a usage error', async () => {
    for (const mode of [['--crjson'], ['--rubric', 'signals']]) {
      const run = await runBounded(['check', ...mode, '--read-timeout', '1', `${server.origin}/trickle`], 30_000);
      expect(run.elapsedMs).toBeLessThan(20_000);
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr).toMatch(/: the read did not finish within 1 second \(\d+ of 1,000 bytes read\); a whole read has that long \(--read-timeout\)\.\n$/);
      const refused = await runBounded(['check', ...mode, '--read-timeout', '0', `${server.origin}/trickle`], 30_000);
      expect([refused.code, refused.stderr]).toEqual([2, 'provenance: --read-timeout takes whole seconds from 1 to 3600.\n']);
    }
  }, 120_000);

  it("the library's check() takes readTimeoutMs, and refuses a bad one before any request", async () => {
    await expect(check(`${server.origin}/trickle`, { readTimeoutMs: 0 })).rejects.toThrow(RangeError);
  });
});

describe('the read budget counts what is read, not what HEAD said', () => {
  let connection: HttpsConnection;
  beforeAll(async () => {
    connection = await openHttps({ ca: tls.caPem });
  });
  afterAll(async () => {
    await connection?.agent.close();
  });

  /** Reads `urls` as a scan does (hold, read, check, release) within `budget`; the most bytes held read at once. */
  async function scanWithin(budget: ReadBudget, urls: string[]): Promise<{ peakHeldRead: number; sizes: number[] }> {
    let live = 0;
    let peakHeldRead = 0;
    const sizes = await Promise.all(
      urls.map(async (url) => {
        const item = await httpsInput(url, async () => connection);
        const hold = await holdRead(budget, item);
        try {
          const bytes = await readInput(item, process.stdin, hold?.room);
          live += bytes.length;
          peakHeldRead = Math.max(peakHeldRead, live);
          await new Promise((r) => setTimeout(r, 100)); // its check on a worker
          live -= bytes.length;
          return bytes.length;
        } finally {
          hold?.();
        }
      }),
    );
    return { peakHeldRead, sizes };
  }

  it('six 3 MB bodies without sizes, HEAD refused, within a 4 MB budget: at most one over it at a time', async () => {
    peakSending = 0;
    const budget = new ReadBudget(16, 4 * MB);
    const urls = Array.from({ length: 6 }, (_, i) => `${server.origin}/sizeless/3?n=${i}`);
    const { peakHeldRead, sizes } = await scanWithin(budget, urls);
    expect(sizes).toEqual(Array(6).fill(3 * MB));
    // Before: each counted 0 bytes, so all six were read and held at once (18 MB).
    expect(peakHeldRead).toBeLessThanOrEqual(6 * MB);
    expect(budget.inUse).toEqual({ objects: 0, bytes: 0 });
  }, 60_000);

  it('bodies each larger than the whole budget go one after another, never all waiting on each other', async () => {
    const budget = new ReadBudget(16, 1 * MB);
    const urls = Array.from({ length: 4 }, (_, i) => `${server.origin}/sizeless/3?alone=${i}`);
    const run = scanWithin(budget, urls);
    const outcome = await Promise.race([run, new Promise<'stuck'>((r) => setTimeout(() => r('stuck'), 40_000))]);
    expect(outcome).not.toBe('stuck');
    const { peakHeldRead, sizes } = outcome as Awaited<typeof run>;
    expect(sizes).toEqual(Array(4).fill(3 * MB));
    expect(peakHeldRead).toBeLessThanOrEqual(3 * MB + 1 * MB);
    expect(budget.inUse).toEqual({ objects: 0, bytes: 0 });
  }, 60_000);

  it('a read waiting for room fails cleanly at its deadline rather than waiting for ever', async () => {
    const budget = new ReadBudget(16, 1 * MB);
    const blocker = await budget.take(0);
    await blocker.room(1 * MB); // the whole budget, held by a check that does not end
    const short = await openHttps({ ca: tls.caPem, deadlineMs: 1500 });
    try {
      const item = await httpsInput(`${server.origin}/sizeless/2?blocked`, async () => short);
      const hold = await holdRead(budget, item);
      await expect(readInput(item, process.stdin, hold?.room)).rejects.toMatchObject({ type: 'read_error', message: expect.stringContaining('the read did not finish within 1.5 seconds') });
      hold?.();
    } finally {
      blocker();
      await short.agent.close();
    }
    expect(budget.inUse).toEqual({ objects: 0, bytes: 0 });
  }, 30_000);
});

describe('an s3:// read has the same deadline (the same body reader)', () => {
  it('an object whose store sends a byte a second is cut at readTimeoutMs', async () => {
    // A plain-HTTP stand-in for the store on 127.0.0.1: GetObject's answer trickles.
    const store = createHttpServer((req, res) => {
      res.writeHead(200, { 'content-length': '1000', 'content-type': 'image/jpeg', etag: '"v1"' });
      const timer = setInterval(() => res.write(Buffer.from([0])), 1000);
      trickles.add(timer);
      res.on('close', () => (clearInterval(timer), trickles.delete(timer)));
    });
    await new Promise<void>((r) => store.listen(0, '127.0.0.1', r));
    try {
      const env = s3rverEnv(`http://127.0.0.1:${(store.address() as AddressInfo).port}`, dir);
      // The SDK's credential chain reads process.env itself: the stand-in's, for this test only.
      const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
      const restore = () => {
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      };
      onTestFinished(restore);
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      const started = Date.now();
      await expect(readS3Url('s3://bucket/slow.jpg', env, 2000)).rejects.toMatchObject({
        type: 'read_error',
        message: expect.stringMatching(/^s3:\/\/bucket\/slow\.jpg: the read did not finish within 2 seconds \(\d of 1,000 bytes read\); a whole read has that long \(--read-timeout\)\.$/),
      });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      store.closeAllConnections();
      await new Promise((r) => store.close(r));
    }
  }, 30_000);
});
