// Hostile requests (issue 18), generated with fast-check across every route that reads input:
// the /v1 API from the daemon's own OpenAPI document (and a few undocumented routes), the
// sign-in form and its link, sign-out, the dashboard and its key forms, and the admin endpoint
// with its token and without. At least 5,000 requests: wrong JSON types, huge and empty strings,
// 10,000-level nesting, duplicate keys, invalid UTF-8, NUL bytes, broken base64, broken
// multipart and forms, CSRF tokens and cookies right, wrong and repeated, bodies really encoded
// with gzip, deflate or br (and codings that lie), lying lengths, 1,000 headers and an 80 KB
// header. Requests go one at a time, each on its own connection.
//
// Every answer: never a 5xx, never a hang (60 s), always `X-Content-Type-Options: nosniff`.
// - /v1 and /admin/v1: a CONTRACT error body with a documented status, or a 2xx; a /v1 2xx body
//   valid against the document's schema for it; an admin 2xx only with the token.
// - Pages: an HTML page with a documented status, or a redirect to a path of the daemon's own;
//   the JSON body only for what Node's parser refuses before any route, and for unknown routes.
// - A body with a Content-Encoding is never accepted: past the route's door, 415.
// - A refused request changes nothing: no account, key, session, sign-in token, upload or usage
//   appears or changes (the store's export is compared around every request that could change
//   it), and a refused /v1/detect never counts a call (X-Quota-Used, request by request).
// - The daemon's RSS, once it is idle again, is within 50 MB of where it started.
//
// Seeded: FUZZ_SEED=N reproduces a run (a failure prints its seed and counterexample);
// FUZZ_RUNS=N changes the count. The daemon runs in its own process on 127.0.0.1, and it can
// reach no other address (test/daemon/fuzz/server.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/corpus.js';
import { tinyJpeg } from '../fixtures/make.js';
import { tempDir } from './helpers.js';
import { adminCases, type AdminFixtures } from './fuzz/admin-cases.js';
import { apiCases, operationsOf, type Operation } from './fuzz/api-cases.js';
import { overlongSegment, routable, type Case } from './fuzz/cases.js';
import { DaemonFixtures } from './fuzz/fixtures.js';
import { pageCases, type WebFixtures } from './fuzz/page-cases.js';
import { compactFailure } from './fuzz/compact-failure.js';
import { declaresBody, encode, hangsUp, isRealCoding, send, type Answer, type Req } from './fuzz/wire.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

const ERROR_STATUS: Record<string, number[]> = {
  invalid_request: [400, 408, 431],
  authentication_error: [401],
  not_found: [404],
  media_too_large: [413],
  unsupported_content_type: [415],
  download_failed: [422],
  quota_exceeded: [429],
  rate_limited: [429],
  // An account past its live uploads (100 by default): a long run uploads more than that.
  upload_limit_exceeded: [429],
  storage_full: [503],
};
/** Answers of Node's parser and the slow-client bounds, on any route (docs/API.md). */
const TRANSPORT = [400, 408, 431];
const MB = 2 ** 20;

/** The daemon's RSS after a full garbage collection. */
async function settledRss(server: ChildProcess, pid: number): Promise<number> {
  const collected = new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      if (d.toString().includes('gc')) {
        server.stdout!.off('data', onData);
        resolve();
      }
    };
    server.stdout!.on('data', onData);
  });
  server.kill('SIGUSR2');
  await collected;
  return rssOf(pid);
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What differs between two exports, record by record (for a failure's message). */
function stateDiff(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  const out: string[] = [];
  for (const list of Object.keys({ ...a, ...b })) {
    const x = Array.isArray(a[list]) ? (a[list] as unknown[]).map((r) => JSON.stringify(r)) : [JSON.stringify(a[list])];
    const y = Array.isArray(b[list]) ? (b[list] as unknown[]).map((r) => JSON.stringify(r)) : [JSON.stringify(b[list])];
    for (const r of x) if (!y.includes(r)) out.push(`${list} - ${r}`);
    for (const r of y) if (!x.includes(r)) out.push(`${list} + ${r}`);
  }
  return out.join('; ').slice(0, 2_000);
}

/** The body of a CONTRACT error, checked: only `error`, a known type for its status, a message. */
function contractError(answer: Answer): { type: string; message: string } {
  expect(answer.headers['content-type'], answer.body.slice(0, 200)).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: { type: string; message: string; param?: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(ERROR_STATUS[body.error.type], answer.body).toContain(answer.status);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

describe('hostile requests on every route', () => {
  const dir = tempDir();
  let server: ChildProcess;
  let port = 0;
  let base = '';
  let keys: string[] = [];
  let pid = 0;
  let adminToken = '';
  let operations: Operation[] = [];
  /** The document's schema of each 2xx answer, by "METHOD /path STATUS". */
  const schemas = new Map<string, ValidateFunction>();
  let web: WebFixtures;
  let admin: AdminFixtures;

  beforeAll(async () => {
    server = spawn(process.execPath, ['--expose-gc', 'scripts/run-ts.mjs', 'test/daemon/fuzz/server.ts', dir.dir, '20'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      server.on('exit', (code) => reject(new Error(`fuzz server exited (${code})`)));
    });
    const started = JSON.parse(line) as { url: string; pid: number; keys: string[]; adminToken: string };
    base = started.url;
    port = Number(new URL(base).port);
    keys = started.keys;
    pid = started.pid;
    adminToken = started.adminToken;
    const doc = JSON.parse((await send(port, encode({ method: 'GET', path: '/v1/openapi.json', headers: [], body: Buffer.alloc(0), framing: 'none' })))!.body);
    operations = operationsOf(doc);
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    ajv.addFormat('uri', true);
    ajv.addFormat('binary', true);
    for (const [path, ops] of Object.entries<Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          const schema = response.content?.['application/json']?.schema;
          if (status.startsWith('2') && schema) schemas.set(`${method.toUpperCase()} ${path} ${status}`, ajv.compile(schema));
        }
      }
    }
    const fixtures = new DaemonFixtures(base, dir.dir, adminToken);
    admin = await fixtures.adminFixtures();
    web = await fixtures.web();
  }, 120_000);
  afterAll(async () => {
    server?.kill('SIGTERM');
    await sleep(200);
    dir.cleanup();
  });

  /** The store as the admin export gives it, without what reads may touch (a key's last use). */
  async function stateNow(): Promise<string> {
    const r = (await send(port, encode({ method: 'GET', path: '/admin/v1/export', headers: [['X-Provenance-Admin-Token', adminToken]], body: Buffer.alloc(0), framing: 'none' })))!;
    expect(r.status, r.body.slice(0, 200)).toBe(200);
    // The export's lists are sorted and its records' fields in a fixed order: equal states give
    // equal text.
    return r.body.replace(/,"last_used_at":(?:null|"[^"]*")/g, '');
  }

  /** An account's usage, read without spending a call: a well-formed request refused by validation. */
  async function usageOf(key: string): Promise<number> {
    const a = await send(port, encode({ method: 'POST', path: '/v1/detect', headers: [['Authorization', `Bearer ${key}`], ['Content-Type', 'application/json']], body: Buffer.from('{}'), framing: 'length' }));
    return Number(a!.headers['x-quota-used']);
  }

  /** A few dozen ordinary requests of each family: the JIT compiles the paths the run will take. */
  async function warmUp(): Promise<void> {
    const jpeg = Buffer.from(tinyJpeg());
    const auth: [string, string] = ['Authorization', `Bearer ${keys[0]}`];
    const boundary = 'WARM';
    const multipart = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`), jpeg, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const ordinary: Req[] = [
      { method: 'GET', path: '/v1/detectors', headers: [], body: Buffer.alloc(0), framing: 'none' },
      { method: 'POST', path: '/v1/detect', headers: [auth, ['Content-Type', 'application/json']], body: Buffer.from(JSON.stringify({ media: jpeg.toString('base64') })), framing: 'length' },
      { method: 'POST', path: '/v1/detect', headers: [auth, ['Content-Type', `multipart/form-data; boundary=${boundary}`]], body: multipart, framing: 'length' },
      { method: 'POST', path: '/v1/uploads', headers: [auth, ['Content-Type', 'image/jpeg']], body: jpeg, framing: 'length' },
      { method: 'GET', path: '/signin', headers: [], body: Buffer.alloc(0), framing: 'none' },
      { method: 'GET', path: '/dashboard', headers: [['Cookie', `prv_session=${web.sessions[0]!.token}`]], body: Buffer.alloc(0), framing: 'none' },
      { method: 'GET', path: '/admin/v1/accounts', headers: [['X-Provenance-Admin-Token', adminToken]], body: Buffer.alloc(0), framing: 'none' },
    ];
    for (let round = 0; round < 6; round++) {
      for (const req of ordinary) expect((await send(port, encode(req)))!.status).toBeLessThan(300);
    }
  }

  it(`${RUNS} requests across the API, pages and admin: documented answers, no 5xx, nothing changed or counted by a refusal, RSS back within 50 MB`, async () => {
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(expect.arrayContaining(['POST /v1/detect', 'POST /v1/uploads', 'GET /v1/detectors']));

    const request = fc.oneof({ weight: 6, arbitrary: apiCases(operations, keys) }, { weight: 3, arbitrary: pageCases(web) }, { weight: 2, arbitrary: adminCases(admin) });

    // Where the daemon "started": after its start, the fixtures above and a warm-up of a few dozen
    // ordinary requests, which compile the request paths (the JIT) and grow the heap to what a
    // daemon that has served anything at all holds; past a full collection. Not after a warm-up
    // of the hostile kinds themselves: whatever those make the daemon keep is what this measures.
    await warmUp();
    const rssBefore = await settledRss(server, pid);

    const lastUsed = new Map<string, number>();
    const seen = new Map<string, number>();
    let unanswered = 0;
    let stateChecks = 0;
    let acceptedChanges = 0;
    /** The store's state as last read, or undefined when a request since may have changed it. */
    let known: string | undefined;
    /** The last few requests, for a failure's message. */
    const recent: string[] = [];
    await compactFailure(fc.assert(
      fc.asyncProperty(request, async (req: Case) => {
        const key = req.key;
        // A key's usage before its first fuzzed request, read from a refused request's headers.
        if (key && keys.includes(key) && !lastUsed.has(key)) lastUsed.set(key, await usageOf(key));
        const before = req.mutating ? (known ??= await stateNow()) : undefined;
        const answer = await send(port, encode(req), hangsUp(req));
        const label = `${req.method} ${req.path.slice(0, 120)} (${req.family}, framed ${req.framing}${req.coding ? `, coded ${req.coding}` : ''})`;

        if (req.mutating) {
          const after = await stateNow();
          stateChecks++;
          const refused = !answer || answer.status >= 400 || (answer.status === 303 && /^\/signin\?(expired|next=)/.test(answer.headers.location ?? ''));
          if (refused && after !== before) expect.fail(`${label} was refused (${answer?.status ?? 'no answer'}) but changed the store: ${stateDiff(before!, after)}; the requests before it: ${recent.join(' | ')}`);
          else if (after !== before) acceptedChanges++;
          known = after;
        } else if (req.path === '/v1/detect') {
          known = undefined; // a counted call changes the usage
        }

        recent.push(`${label} -> ${answer?.status ?? 'no answer'}`);
        if (recent.length > 6) recent.shift();
        if (!answer) {
          // Only a client that lied about its length and then hung up may get no answer: the
          // server saw the connection end mid-body, and there is nobody left to answer.
          expect(['length-long', 'chunked-lying'], `no answer to ${label}`).toContain(req.framing);
          unanswered++;
          return;
        }
        const tally = `${req.family} ${answer.status}`;
        seen.set(tally, (seen.get(tally) ?? 0) + 1);
        expect(answer.status, `${label}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
        expect(answer.headers['x-content-type-options'], label).toBe('nosniff');

        // A body with a content coding is never accepted; past the route's door it is a 415.
        // (Behind 1,000 other header lines the coding may not arrive: Node keeps the first 1,000.)
        if (isRealCoding(req.coding) && declaresBody(req) && req.method === 'POST' && !req.unknown && !req.oversized) {
          expect(answer.status, `${label}: ${answer.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
          // Unless a header decides first: Provenance-Test-Response is a 400 without --test-mode.
          const forced = req.headers.some(([name]) => name === 'Provenance-Test-Response');
          if (!forced && routable(req.path) && (req.framing === 'length' || req.framing === 'chunked') && req.admitted !== undefined) {
            const expected = !req.admitted ? [401] : req.route === 'POST /v1/detect' ? [415, 429] : [415];
            expect(expected, `${label}: ${answer.status} ${answer.body.slice(0, 200)}`).toContain(answer.status);
          }
        }

        if (req.family === 'page') checkPage(req, answer, label);
        else checkJson(req, answer, label);

        // Counting: only a 200 (and a 422 download_failed, whose download step was reached)
        // counts a call. X-Quota-Used says the account's usage after this request.
        const used = answer.headers['x-quota-used'];
        if (req.path === '/v1/detect' && key && used !== undefined) {
          const last = lastUsed.get(key)!;
          const counted = answer.status === 200 || (answer.status === 422 && answer.body.includes('download_failed'));
          expect(Number(used), `${answer.status} ${answer.body.slice(0, 200)}`).toBe(last + (counted ? 1 : 0));
          lastUsed.set(key, Number(used));
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    ));

    // The check above is not vacuous: accepted requests did change the store.
    expect(acceptedChanges).toBeGreaterThan(0);

    // Memory once the storm is over. A full collection right after it leaves the RSS 45 to 60 MB
    // over the start, little of it live objects (the heap in use grows by about 5 MB: the uploads,
    // sessions, keys and sign-in tokens the run made, which the store keeps). V8's young
    // generation has grown under the run's allocation rate (+20 MB resident and more); glibc's main
    // arena keeps 10 to 20 MB of freed native memory (socket reads, body chunks); the reused body
    // and media buffers have their pages touched (about +8 MB, by design). Measured: 15,000
    // requests end about 10 MB above 5,000, the heap in use the same (no leak). V8 gives the young
    // generation back at a collection once the allocation rate it measures over the last 5 s is
    // low (Node 20), and a memory-reducing collection hands its pages back to the system (Node 24
    // keeps them pooled otherwise; see fuzz/server.ts). So: collect now (which closes the run's
    // allocation sample), leave the daemon idle for 5.5 s, collect again, and read the RSS as it
    // settles (bounded: 4 s, 20 reads).
    await settledRss(server, pid);
    await sleep(5_500);
    let rssAfter = await settledRss(server, pid);
    for (let i = 0; i < 20 && rssAfter - rssBefore >= 50 * MB; i++) {
      await sleep(200);
      rssAfter = Math.min(rssAfter, rssOf(pid));
    }
    console.log(
      `[fuzz] seed ${SEED}, ${RUNS} requests; ${[...seen].sort().map(([s, n]) => `${s}×${n}`).join(' ')}; ` +
        `${unanswered} hung up mid-body; store compared around ${stateChecks} requests (${acceptedChanges} accepted ones changed it); ` +
        `daemon RSS ${(rssBefore / MB).toFixed(0)} -> ${(rssAfter / MB).toFixed(0)} MB`,
    );
    expect(rssAfter - rssBefore).toBeLessThan(50 * MB);
  }, 600_000);

  /** /v1 and admin answers: JSON, a CONTRACT error with a documented status, or a documented 2xx. */
  function checkJson(req: Case, answer: Answer, label: string): void {
    if (answer.status >= 400) {
      expect([...req.statuses, ...TRANSPORT], `${label}: ${answer.status} ${answer.body.slice(0, 300)}`).toContain(answer.status);
      contractError(answer);
      return;
    }
    expect(req.statuses, `${label}: ${answer.status} ${answer.body.slice(0, 300)}`).toContain(answer.status);
    expect(answer.headers['content-type'], label).toMatch(/^application\/json/);
    const body = JSON.parse(answer.body) as unknown;
    if (req.family === 'admin') {
      expect(req.admitted, `${label}: an admin answer ${answer.status} without the token`).not.toBe(false);
      return;
    }
    const validate = schemas.get(`${req.route} ${answer.status}`);
    expect(validate, `${req.route} ${answer.status} has no schema in the document`).toBeDefined();
    expect(validate!(body), `${label}: ${answer.status} body not as documented: ${JSON.stringify(validate!.errors)} ${answer.body.slice(0, 300)}`).toBe(true);
  }

  /** Page answers: an HTML page, a redirect to the daemon's own path, or JSON only where a route never ran. */
  function checkPage(req: Case, answer: Answer, label: string): void {
    const type = answer.headers['content-type'] ?? '';
    if (type.startsWith('application/json')) {
      // Node's parser or fastify's router refused the request before any route ran (a path that
      // does not decode: 400), or there is no such route.
      expect([...TRANSPORT, ...(req.unknown || overlongSegment(req.path) ? [404] : [])], `${label}: ${answer.status} ${answer.body.slice(0, 300)}`).toContain(answer.status);
      contractError(answer);
      return;
    }
    expect(req.unknown, `${label}: ${answer.status} is not the JSON 404 of an unknown route`).toBe(false);
    expect(req.statuses, `${label}: ${answer.status} ${answer.body.slice(0, 300)}`).toContain(answer.status);
    if (answer.status === 303) {
      // Never an open redirect: a path of the daemon's own.
      expect(answer.headers.location, label).toMatch(/^\/(?![/\\])/);
      return;
    }
    if (req.path.startsWith('/assets/')) return;
    expect(type, label).toBe('text/html; charset=utf-8');
    expect(answer.body.startsWith('<!doctype html>'), `${label}: ${answer.body.slice(0, 200)}`).toBe(true);
  }
});


