// GET /metrics (issue 27): a known sequence of requests over real HTTP, then the exposition read
// with a strict parser (test/helpers/prom-text.ts) and its counters compared exactly; no label
// value carries anything a client sent; the admin token guards the daemon's own address; and
// --metrics-listen serves without one. Runs on both stores (CONTRACT_FILES in vitest.config.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, newKeyValue } from '../../src/daemon/accounts/key-format.js';
import { MetricsListenError, parseMetricsListen } from '../../src/daemon/http/metrics-listen.js';
import { parseExposition, sampleValue, type Exposition } from '../helpers/prom-text.js';
import { timeStore } from '../../src/daemon/store/timed-store.js';
import type { Store } from '../../src/daemon/store/store.js';
import { b64, bearer, expectError, http, listen, makeApp, startDaemon, storeKind, tempDir, type TestApp } from './helpers.js';
import { startDaemonProcess } from './process.js';

const PHOTO = readFileSync('examples/camera.jpg');
const SIGNED = readFileSync('examples/signed.jpg');
const TOKEN = randomBytes(32).toString('base64url');
const CHECKS = ['c2pa', 'camera_reference'];

/** Strings a client chose: none may appear anywhere in the exposition. */
const UNUSUAL_PATH = '/no/such/route-zq9x7wvb';
const UNUSUAL_EMAIL = 'metrics-secret-7f3k@example.test';
const UNKNOWN_KEY = newKeyValue();
const UNUSUAL_KEY_ID = 'key_zz8metricsLeakCheck';

describe('GET /metrics after a known sequence of requests', () => {
  let t: TestApp;
  let base: string;
  let fixture: Server;
  let origin: string;
  let exposition: Exposition;
  let text: string;
  const chosen: string[] = [UNUSUAL_PATH.slice(1), UNUSUAL_EMAIL, UNKNOWN_KEY, UNUSUAL_KEY_ID, TOKEN];
  /** check -> result -> count, from the 200 bodies themselves. */
  const tally = new Map<string, number>();
  const statuses: Record<string, number> = {};

  const count = (body: { matches: { check: string; result: string }[] }) => {
    for (const m of body.matches) tally.set(`${m.check} ${m.result}`, (tally.get(`${m.check} ${m.result}`) ?? 0) + 1);
  };

  beforeAll(async () => {
    // A local origin for the `url` source (the address rule lets 127.0.0.1 through, and only it).
    fixture = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(SIGNED));
    await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(fixture.address() as { port: number }).port}`;
    // One live upload per account: the second is the upload refusal counted below.
    t = await makeApp({ adminTokenSha256: sha256Hex(TOKEN), addressPolicy: (a) => a === '127.0.0.1', uploadLimits: { perAccount: 1, storageFloorBytes: 0 } });
    base = await listen(t.app);
    const { key } = await t.account(UNUSUAL_EMAIL);
    const { key: lastCall } = await t.account('quota-metrics', 'custom', 1);
    chosen.push(key, lastCall, origin, `${origin}/photo-secret.jpg`);

    // 3 inline detects, 1 multipart, 1 url, then 1 upload and a detect of it.
    for (const media of [PHOTO, SIGNED, PHOTO]) {
      const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(media), checks: CHECKS } });
      expect(r.status).toBe(200);
      count(r.body);
    }
    const form = new FormData();
    form.append('file', new Blob([SIGNED]), 'x.jpg');
    form.append('checks', CHECKS.join(','));
    const multipart = await http(base, 'POST', '/v1/detect', { key, body: form });
    expect(multipart.status).toBe(200);
    count(multipart.body);
    const byUrl = await http(base, 'POST', '/v1/detect', { key, json: { url: `${origin}/photo-secret.jpg`, checks: CHECKS } });
    expect(byUrl.status).toBe(200);
    count(byUrl.body);
    const upload = await http(base, 'POST', '/v1/uploads', { key, body: PHOTO, headers: { 'content-type': 'image/jpeg' } });
    expect(upload.status).toBe(201);
    chosen.push(upload.body.id);
    const byUpload = await http(base, 'POST', '/v1/detect', { key, json: { upload: upload.body.id, checks: CHECKS } });
    expect(byUpload.status).toBe(200);
    count(byUpload.body);
    const second = await http(base, 'POST', '/v1/uploads', { key, body: SIGNED, headers: { 'content-type': 'image/jpeg' } });
    expectError(second, 429, 'upload_limit_exceeded');

    // The quota account's one call, then its refusal.
    const first = await http(base, 'POST', '/v1/detect', { key: lastCall, json: { media: b64(PHOTO), checks: ['c2pa'] } });
    expect(first.status).toBe(200);
    count(first.body);
    expectError(await http(base, 'POST', '/v1/detect', { key: lastCall, json: { media: b64(PHOTO) } }), 429, 'quota_exceeded');

    // A key nobody has (well-formed), an unknown route, a route with a parameter.
    expectError(await http(base, 'POST', '/v1/detect', { key: UNKNOWN_KEY, json: { media: b64(PHOTO) } }), 401, 'authentication_error');
    expectError(await http(base, 'GET', UNUSUAL_PATH), 404, 'not_found');
    // (Not followed: a redirect to /signin would be a request of its own.)
    const revoke = await fetch(`${base}/dashboard/keys/${UNUSUAL_KEY_ID}/revoke`, {
      method: 'POST',
      body: 'csrf=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    await revoke.arrayBuffer();
    statuses.revoke = revoke.status;

    const scrape = await http(base, 'GET', '/metrics', { headers: bearer(TOKEN) });
    expect(scrape.status).toBe(200);
    expect(scrape.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    text = scrape.text;
    exposition = parseExposition(text);
  });

  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => fixture?.close(resolve));
  });

  it('counts requests by method, route pattern and status, exactly', () => {
    const requests = (method: string, route: string, status: number) =>
      sampleValue(exposition, 'provenance_http_requests_total', { method, route, status: String(status) });
    expect(requests('POST', '/v1/detect', 200)).toBe(7);
    expect(requests('POST', '/v1/detect', 429)).toBe(1);
    expect(requests('POST', '/v1/detect', 401)).toBe(1);
    expect(requests('POST', '/v1/uploads', 201)).toBe(1);
    expect(requests('POST', '/v1/uploads', 429)).toBe(1);
    expect(requests('GET', 'unmatched', 404)).toBe(1);
    expect(requests('POST', '/dashboard/keys/:id/revoke', statuses.revoke!)).toBe(1);
    // The scrape itself is counted once it is answered: not in its own text.
    expect(requests('GET', '/metrics', 200)).toBeUndefined();
    const all = exposition.samples.filter((s) => s.name === 'provenance_http_requests_total').reduce((n, s) => n + s.value, 0);
    expect(all).toBe(13);
  });

  it('counts error answers by their type: the quota refusal, the 401, the unknown route', () => {
    const errors = (route: string, type: string) => sampleValue(exposition, 'provenance_http_errors_total', { route, type });
    expect(errors('/v1/detect', 'quota_exceeded')).toBe(1);
    expect(errors('/v1/detect', 'authentication_error')).toBe(1);
    expect(errors('unmatched', 'not_found')).toBe(1);
    expect(errors('/v1/uploads', 'upload_limit_exceeded')).toBe(1);
    expect(errors('/v1/detect', 'rate_limited')).toBeUndefined();
  });

  it('times 200 detects by the source of their media, and counts results by check as the answers said', () => {
    const detects = (source: string) => sampleValue(exposition, 'provenance_detect_duration_seconds_count', { source });
    expect([detects('inline'), detects('multipart'), detects('url'), detects('upload')]).toEqual([4, 1, 1, 1]);
    expect(sampleValue(exposition, 'provenance_detect_duration_seconds_bucket', { source: 'inline', le: '+Inf' })).toBe(4);
    const counted = new Map(
      exposition.samples.filter((s) => s.name === 'provenance_detections_total').map((s) => [`${s.labels.check} ${s.labels.result}`, s.value]),
    );
    expect(counted).toEqual(tally);
    // 6 answers ran both checks, the quota account's one ran c2pa alone.
    expect([...tally.values()].reduce((a, b) => a + b, 0)).toBe(13);
    // camera.jpg and signed.jpg: c2pa reads signed.jpg's manifest, and finds none in camera.jpg.
    expect(tally.get('c2pa found')).toBe(3);
    expect(tally.get('c2pa not_found')).toBe(4);
  });

  it('times store calls through the decorator, on this store', () => {
    const store = storeKind();
    // One reservation per detect that passed validation: 7 granted, 1 refused.
    expect(sampleValue(exposition, 'provenance_store_operation_duration_seconds_count', { store, operation: 'reserveCall' })).toBe(8);
    // The stored upload only: the refused one was refused by the quick look before streaming.
    expect(sampleValue(exposition, 'provenance_store_operation_duration_seconds_count', { store, operation: 'insertUpload' })).toBe(1);
    expect(sampleValue(exposition, 'provenance_store_operation_errors_total', { store, operation: 'reserveCall' })).toBeUndefined();
  });

  it('reads the gauges at the scrape: live uploads, the media budget, the workers, the PostgreSQL pool', () => {
    expect(sampleValue(exposition, 'provenance_uploads_live')).toBe(1);
    expect(sampleValue(exposition, 'provenance_uploads_live_bytes')).toBe(PHOTO.length);
    expect(sampleValue(exposition, 'provenance_media_budget_in_use_bytes')).toBe(0);
    expect(sampleValue(exposition, 'provenance_media_budget_waiting_requests')).toBe(0);
    expect(sampleValue(exposition, 'provenance_media_budget_bytes')).toBe(256 * 1024 * 1024);
    // The app's pool: none from src/, the daemon's default on the built daemon (helpers.ts).
    expect(sampleValue(exposition, 'provenance_detect_workers')).toBe(t.app.services.pool.size);
    expect(sampleValue(exposition, 'provenance_detect_workers_busy')).toBe(0);
    expect(sampleValue(exposition, 'provenance_detect_tasks_queued')).toBe(0);
    const pool = sampleValue(exposition, 'provenance_pg_pool_connections');
    if (storeKind() === 'postgres') {
      expect(pool).toBeGreaterThanOrEqual(1);
      expect(sampleValue(exposition, 'provenance_pg_pool_idle_connections')).toBeLessThanOrEqual(pool!);
      // Nothing was in flight, but the key's last-use flush (once a second) may have been.
      expect(sampleValue(exposition, 'provenance_pg_pool_waiting_clients')).toBeGreaterThanOrEqual(0);
    } else {
      expect(pool).toBeUndefined();
    }
    // Process metrics, from the private registry.
    expect(sampleValue(exposition, 'provenance_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('names every family provenance_*, and no label value or line carries what a client sent', () => {
    expect([...exposition.types.keys()].filter((name) => !name.startsWith('provenance_'))).toEqual([]);
    const values = exposition.samples.flatMap((s) => Object.values(s.labels));
    for (const input of chosen) {
      expect(values.filter((v) => v.includes(input) || input.includes(v) && v.length > 12), input).toEqual([]);
      expect(text.includes(input), input).toBe(false);
    }
    // Routes are patterns or `unmatched`, never a path as sent.
    const routes = new Set(exposition.samples.map((s) => s.labels.route).filter((r) => r !== undefined));
    for (const route of routes) expect(route === 'unmatched' || route.startsWith('/'), route).toBe(true);
    expect([...routes].some((r) => r!.includes('zq9x7wvb') || r!.includes('zz8metrics'))).toBe(false);
  });

  it('refuses the metrics without the admin token, with a wrong one, and with the token in the wrong header', async () => {
    for (const headers of [{}, bearer('not-the-token'), bearer(`${TOKEN}x`), { 'x-provenance-admin-token': TOKEN }, { authorization: TOKEN }]) {
      const r = await http(base, 'GET', '/metrics', { headers });
      expectError(r, 401, 'authentication_error');
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(r.text).not.toContain('provenance_');
    }
    const after = parseExposition((await http(base, 'GET', '/metrics', { headers: bearer(TOKEN) })).text);
    // The 5 refusals and the first scrape, counted since.
    expect(sampleValue(after, 'provenance_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(5);
    expect(sampleValue(after, 'provenance_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  });
});

describe('the built daemon (bin/provenance.js, dist/ as users run it)', () => {
  // dist/lazy/daemon-http-metrics.js once carried its own copy of ApiError: the error handler's
  // instanceof failed, and a scrape without the token answered 500, logged a stack trace and
  // counted a 5xx (issue 34). Tests that build the app from src/ could not see it.
  it('refuses /metrics without the token or with a wrong one: 401, no error logged, no 5xx counted', async () => {
    const { dir, cleanup } = tempDir();
    const daemon = await startDaemonProcess(['--host', '127.0.0.1', '--data-dir', dir]);
    try {
      for (const headers of [{}, bearer('not-the-token')]) {
        const r = await http(daemon.url, 'GET', '/metrics', { headers });
        expectError(r, 401, 'authentication_error');
        expect(r.headers['www-authenticate']).toBe('Bearer');
      }
      const token = readFileSync(join(dir, 'admin.token'), 'utf8').trim();
      const exposition = parseExposition((await http(daemon.url, 'GET', '/metrics', { headers: bearer(token) })).text);
      expect(sampleValue(exposition, 'provenance_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(2);
      expect(exposition.samples.filter((s) => s.name === 'provenance_http_requests_total' && s.labels.status?.startsWith('5'))).toEqual([]);
      const log = daemon.stdout() + daemon.stderr();
      expect(log).not.toMatch(/"level":50/);
      expect(log).not.toMatch(/\n\s+at /);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
      cleanup();
    }
  });
});

describe('the store timing decorator', () => {
  it("times each call, counts failures (a rejection or a throw), keeps `this` and the store's other properties", async () => {
    const seen: [string, boolean][] = [];
    const inner = {
      location: 'somewhere',
      marker: 42,
      calls: 0,
      async keyById(this: { calls: number }, id: string) {
        this.calls++;
        return { id };
      },
      async usage() {
        throw new Error('the store failed');
      },
      commit() {
        throw new Error('thrown before any promise');
      },
    };
    const timed = timeStore(inner as unknown as Store, { observeStore: (operation, seconds, failed) => void (seen.push([operation, failed]), expect(seconds).toBeGreaterThanOrEqual(0)) });
    expect(await timed.keyById('key_1')).toEqual({ id: 'key_1' });
    expect(inner.calls).toBe(1);
    await expect(timed.usage('acct', '2026-11')).rejects.toThrow('the store failed');
    expect(() => timed.commit()).toThrow('thrown before any promise');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([
      ['keyById', false],
      ['usage', true],
      ['commit', true],
    ]);
    expect(timed.location).toBe('somewhere');
    expect((timed as unknown as { marker: number }).marker).toBe(42);
    // A method the store does not have stays absent (callers test `store.healthy?.()`).
    expect(timed.healthy).toBeUndefined();
  });
});

describe('apps without a token or without metrics', () => {
  it('serves no /metrics on an app built without an admin token (as the admin endpoint)', async () => {
    const t = await makeApp();
    try {
      const base = await listen(t.app);
      expectError(await http(base, 'GET', '/metrics', { headers: bearer(TOKEN) }), 404, 'not_found');
      expect(t.app.metrics).not.toBeNull();
    } finally {
      await t.close();
    }
  });

  it('counts nothing and serves nothing with metrics: false', async () => {
    const t = await makeApp({ adminTokenSha256: sha256Hex(TOKEN), metrics: false });
    try {
      const base = await listen(t.app);
      expectError(await http(base, 'GET', '/metrics', { headers: bearer(TOKEN) }), 404, 'not_found');
      expect(t.app.metrics).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe('--metrics-listen', () => {
  it('takes loopback and private addresses and refuses wildcard, public ones and names', () => {
    expect(parseMetricsListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseMetricsListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseMetricsListen('localhost:9464')).toEqual({ host: 'localhost', port: 9464 });
    expect(parseMetricsListen('10.1.2.3:9464')).toEqual({ host: '10.1.2.3', port: 9464 });
    expect(parseMetricsListen('[fd00::5]:9464')).toEqual({ host: 'fd00::5', port: 9464 });
    for (const bad of ['0.0.0.0:9464', '[::]:9464', '8.8.8.8:9464', '172.32.0.1:9464', 'metrics.example.com:9464', '127.0.0.1', '127.0.0.1:70000', ':9464']) {
      expect(() => parseMetricsListen(bad), bad).toThrow(MetricsListenError);
    }
  });

  it('serves /metrics there without a token, and nothing else; the main address still wants the token', async () => {
    const { dir, cleanup } = tempDir();
    const daemon = await startDaemon({ dataDir: dir, port: 0, workers: 0, store: { durable: false }, metricsListen: { host: '127.0.0.1', port: 0 } });
    try {
      expect(daemon.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const open = await fetch(daemon.metricsUrl!);
      expect(open.status).toBe(200);
      const exposition = parseExposition(await open.text());
      expect(sampleValue(exposition, 'provenance_detect_workers')).toBe(0);
      expect(sampleValue(exposition, 'provenance_process_cpu_user_seconds_total')).toBeGreaterThan(0);
      const metricsOrigin = daemon.metricsUrl!.replace(/\/metrics$/, '');
      for (const [method, path] of [['GET', '/'], ['GET', '/v1/detectors'], ['POST', '/metrics']] as const) {
        expectError(await http(metricsOrigin, method, path), 404, 'not_found');
      }
      expectError(await http(daemon.url, 'GET', '/metrics'), 401, 'authentication_error');
      const token = readFileSync(join(dir, 'admin.token'), 'utf8').trim();
      expect((await http(daemon.url, 'GET', '/metrics', { headers: bearer(token) })).status).toBe(200);
    } finally {
      await daemon.stop();
      cleanup();
    }
    // Closed with the daemon.
    await expect(fetch(daemon.metricsUrl!)).rejects.toThrow();
  });

  it('answers 421 to a Host that names another site (DNS rebinding), serves its own address, localhost and IP literals', async () => {
    const { dir, cleanup } = tempDir();
    const daemon = await startDaemon({ dataDir: dir, port: 0, workers: 0, store: { durable: false }, metricsListen: { host: '127.0.0.1', port: 0 } });
    try {
      const port = Number(new URL(daemon.metricsUrl!).port);
      for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`, 'metrics']) {
        const r = await hostRequest(port, host);
        expect(r.status, host).toBe(421);
        expect(r.text, host).not.toContain('provenance_');
        expect(JSON.parse(r.text).error.message).toContain('does not serve the host name');
      }
      // A port mapping (docker run -p 10.0.0.11:9464:9464) has the scraper send the mapped address.
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, '127.0.0.1', 'localhost', '10.0.0.11:9464', '[fd00::5]:9464']) {
        const r = await hostRequest(port, host);
        expect(r.status, host).toBe(200);
        expect(r.text, host).toMatch(/^# HELP provenance_/m);
      }
    } finally {
      await daemon.stop();
      cleanup();
    }
  });

  it('the built CLI: refuses a wildcard address (exit 2), serves a loopback one', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const bin = join('bin', 'provenance.js');
      const refused = await run(bin, ['daemon', 'start', '--port', '0', '--data-dir', dir, '--metrics-listen', '0.0.0.0:9464']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--metrics-listen 0\.0\.0\.0: the metrics address has no authentication/);
      const child = spawn(process.execPath, [bin, 'daemon', 'start', '--port', '0', '--data-dir', dir, '--metrics-listen', '127.0.0.1:0', '--log-level', 'silent'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout!.on('data', (chunk) => {
            out += chunk;
            const m = /metrics on (\S+)/.exec(out);
            if (m) resolve(m[1]!);
          });
          child.once('exit', (code) => reject(new Error(`the daemon exited (${code}): ${out}`)));
        });
        const r = await fetch(url);
        expect(r.status).toBe(200);
        expect(await r.text()).toMatch(/^# HELP provenance_/m);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    } finally {
      cleanup();
    }
  });
});

/** GET /metrics with this Host header (fetch cannot set one). */
function hostRequest(port: number, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/metrics', headers: { host }, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function run(bin: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}
