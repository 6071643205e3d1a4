// Test mode (issue 15) over real HTTP on 127.0.0.1: the test clock driving every time rule,
// forced answers, fixtures, export/import/reset, the request log and Request-Id, and the admin
// token guarding every one of those actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { newKeyValue, sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { RequestLog } from '../../src/daemon/testing/request-log.js';
import { parseDuration } from '../../src/daemon/testing/test-clock.js';
import { b64, expectError, http, LIMIT_HEADERS, listen, makeApp, type HttpResult, type TestApp } from './helpers.js';

const TOKEN = 'test-admin-token-for-issue-15';
const ADMIN = { 'x-provenance-admin-token': TOKEN };
const media = b64(tinyJpeg());

interface Daemon {
  t: TestApp;
  base: string;
  admin(method: string, path: string, json?: unknown): ReturnType<typeof http>;
}

async function daemon(testMode: boolean): Promise<Daemon> {
  const t = await makeApp({ testMode, adminTokenSha256: sha256Hex(TOKEN) });
  const base = await listen(t.app);
  return { t, base, admin: (method, path, json) => http(base, method, `/admin/v1${path}`, { headers: ADMIN, json }) };
}

const detect = (d: Daemon, key: string, headers: Record<string, string> = {}) => http(d.base, 'POST', '/v1/detect', { key, json: { media }, headers });

describe('test mode', () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await daemon(true);
  });
  afterAll(() => d.t.close());

  it('/healthz says test mode', async () => {
    expect((await http(d.base, 'GET', '/healthz')).body).toEqual({ status: 'ok', test_mode: true });
  });

  it('month rollover through the clock: a used-up account gets 200 again and X-Quota-Reset moves a month', async () => {
    expect((await d.admin('POST', '/reset', { keep_accounts: false })).status).toBe(200);
    const set = await d.admin('POST', '/clock', { action: 'set', at: '2030-01-31T12:00:00Z' });
    expect(set.body).toEqual({ now: '2030-01-31T12:00:00.000Z', mode: 'frozen', test_mode: true });
    const key = newKeyValue();
    const seeded = await d.admin('POST', '/seed', { accounts: [{ email: 'month@example.test', plan: 'custom', quota: 3, used: 3, keys: [{ key, name: 'ci' }] }] });
    expect(seeded.body).toEqual({ accounts_created: 1, accounts_updated: 0, keys_created: 1, keys_restored: 0 });

    const refused = await detect(d, key);
    expectError(refused, 429, 'quota_exceeded');
    expect(refused.headers['x-quota-reset']).toBe('2030-02-01T00:00:00Z');
    expect(refused.headers['retry-after']).toBe(String(12 * 3600));

    const advanced = await d.admin('POST', '/clock', { action: 'advance', by: '13h' });
    expect(advanced.body.now).toBe('2030-02-01T01:00:00.000Z');
    const ok = await detect(d, key);
    expect(ok.status).toBe(200);
    expect(ok.headers['x-quota-used']).toBe('1');
    expect(ok.headers['x-quota-reset']).toBe('2030-03-01T00:00:00Z');

    // created_at and last_used_at follow the clock too.
    const keys = (await d.admin('GET', '/keys')).body.keys;
    expect(keys[0]).toMatchObject({ created_at: '2030-01-31T12:00:00.000Z', last_used_at: '2030-02-01T01:00:00.000Z' });
  });

  it('never goes back before a recorded event; bad times and durations are refused', async () => {
    const back = await d.admin('POST', '/clock', { action: 'set', at: '2030-01-15T00:00:00Z' });
    expectError(back, 400, 'invalid_request');
    expect(back.body.error.message).toMatch(/cannot go back to 2030-01-15T00:00:00.000Z: the state records an event at 2030-02-01T01:00:00.000Z/);
    expectError(await d.admin('POST', '/clock', { action: 'set', at: 'tomorrow' }), 400, 'invalid_request');
    expectError(await d.admin('POST', '/clock', { action: 'advance', by: '3 days' }), 400, 'invalid_request');
    expect((await d.admin('GET', '/clock')).body).toEqual({ now: '2030-02-01T01:00:00.000Z', mode: 'frozen', test_mode: true });
    // Back to real time would also be before the events of 2030.
    expectError(await d.admin('POST', '/clock', { action: 'real' }), 400, 'invalid_request');
  });

  it('upload expiry through the clock: 404 not_found after advancing 25 h', async () => {
    const key = newKeyValue();
    await d.admin('POST', '/seed', { accounts: [{ email: 'uploads@example.test', keys: [{ key }] }] });
    const up = await http(d.base, 'POST', '/v1/uploads', { key, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg' } });
    expect(up.status).toBe(201);
    expect(up.body.created_at).toBe('2030-02-01T01:00:00.000Z');
    expect((await http(d.base, 'POST', '/v1/detect', { key, json: { upload: up.body.id } })).status).toBe(200);
    await d.admin('POST', '/clock', { action: 'advance', by: '25h' });
    expectError(await http(d.base, 'POST', '/v1/detect', { key, json: { upload: up.body.id } }), 404, 'not_found', 'upload');
  });

  it('burst windows and Retry-After through the clock', async () => {
    const key = newKeyValue();
    await d.admin('POST', '/seed', { accounts: [{ email: 'burst@example.test', keys: [{ key }] }] });
    // Free plan: 10 requests a minute. Invalid bodies pass the burst gate first, costing no call.
    for (let i = 0; i < 10; i++) expect((await http(d.base, 'POST', '/v1/detect', { key, json: {} })).status).toBe(400);
    const limited = await http(d.base, 'POST', '/v1/detect', { key, json: {} });
    expectError(limited, 429, 'rate_limited');
    // The frozen clock has not moved: the oldest request leaves the window in a full minute.
    expect(limited.headers['retry-after']).toBe('60');
    await d.admin('POST', '/clock', { action: 'advance', by: '61s' });
    expect((await detect(d, key)).status).toBe(200);
  });

  it('forced answers: each as the real condition, not counted, marked in the log', async () => {
    const key = newKeyValue();
    await d.admin('POST', '/seed', { accounts: [{ email: 'forced@example.test', plan: 'starter', used: 7, keys: [{ key }] }] });

    const quota = await detect(d, key, { 'provenance-test-response': 'quota_exceeded' });
    expectError(quota, 429, 'quota_exceeded');
    for (const h of LIMIT_HEADERS) expect(quota.headers[h]).toBeDefined();
    expect(quota.headers['x-quota-used']).toBe(quota.headers['x-quota-limit']);
    expect(quota.headers['x-quota-remaining']).toBe('0');
    expect(Number(quota.headers['retry-after'])).toBeGreaterThan(0);

    const rate = await detect(d, key, { 'provenance-test-response': 'rate_limited' });
    expectError(rate, 429, 'rate_limited');
    expect(rate.headers['retry-after']).toBe('60');
    expect(rate.headers['ratelimit-remaining']).toBe('0');
    expect(rate.headers['x-quota-used']).toBe('7');

    const internal = await detect(d, key, { 'provenance-test-response': 'internal_error' });
    expectError(internal, 500, 'internal_error');
    expect(internal.headers['x-quota-used']).toBe('7');
    expectError(await detect(d, key, { 'provenance-test-response': 'download_failed' }), 422, 'download_failed', 'url');

    const delayed = await detect(d, key, { 'provenance-test-response': 'delay=50' });
    expect(delayed.status).toBe(200);
    expect(delayed.headers['x-quota-used']).toBe('8');

    const unknown = await detect(d, key, { 'provenance-test-response': 'teapot' });
    expectError(unknown, 400, 'invalid_request', 'Provenance-Test-Response');
    expect(unknown.body.error.message).toMatch(/Provenance-Test-Response/);
    for (const h of LIMIT_HEADERS) expect(unknown.headers[h]).toBeDefined();
    expectError(await detect(d, key, { 'provenance-test-response': 'delay=30001' }), 400, 'invalid_request', 'Provenance-Test-Response');
    // A route without a key: forced at once.
    expectError(await http(d.base, 'GET', '/v1/detectors', { headers: { 'provenance-test-response': 'internal_error' } }), 500, 'internal_error');
    // Uploads (free: no quota, no burst limit, no URL): only what can really happen there, after
    // authentication. A 429 or 422 there would be a status the route never gives (and the
    // OpenAPI document does not list): a 400 naming the header and the values that apply.
    const upload = (value: string) =>
      http(d.base, 'POST', '/v1/uploads', { key, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg', 'provenance-test-response': value } });
    for (const value of ['rate_limited', 'quota_exceeded', 'download_failed']) {
      const refused = await upload(value);
      expectError(refused, 400, 'invalid_request', 'Provenance-Test-Response');
      expect(refused.body.error.message).toBe(`The Provenance-Test-Response header "${value}" cannot happen on POST /v1/uploads; there use internal_error or delay=MS (0 to 30000).`);
    }
    expectError(await upload('internal_error'), 500, 'internal_error');
    expect((await upload('delay=10')).status).toBe(201);
    expectError(await http(d.base, 'POST', '/v1/uploads', { body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg', 'provenance-test-response': 'rate_limited' } }), 401, 'authentication_error');

    const log = (await d.admin('GET', '/requests?account=forced@example.test')).body.requests;
    expect(log.map((e: any) => e.forced)).toEqual(['quota_exceeded', 'rate_limited', 'internal_error', 'download_failed', 'delay=50', null, null, null, null, null, 'internal_error', 'delay=10']);
    expect(log.map((e: any) => e.status)).toEqual([429, 429, 500, 422, 200, 400, 400, 400, 400, 400, 500, 201]);
    // Only the delayed (real) request was counted.
    const accounts = (await d.admin('GET', '/accounts')).body.accounts;
    expect(accounts.find((a: any) => a.email === 'forced@example.test').usage.used).toBe(8);
  });

  it('GET /v1/detectors: a forced 429 or 422 cannot happen there (400 naming the header); internal_error and delay can', async () => {
    for (const value of ['quota_exceeded', 'rate_limited', 'download_failed']) {
      const refused = await http(d.base, 'GET', '/v1/detectors', { headers: { 'provenance-test-response': value } });
      expectError(refused, 400, 'invalid_request', 'Provenance-Test-Response');
      expect(refused.body.error.message).toBe(`The Provenance-Test-Response header "${value}" cannot happen on GET /v1/detectors; there use internal_error or delay=MS (0 to 30000).`);
    }
    expectError(await http(d.base, 'GET', '/v1/detectors', { headers: { 'provenance-test-response': 'internal_error' } }), 500, 'internal_error');
    expect((await http(d.base, 'GET', '/v1/detectors', { headers: { 'provenance-test-response': 'delay=5' } })).status).toBe(200);
  });

  it('forced answers take no burst slot; a real 401 or a real burst 429 still wins, and is not marked forced', async () => {
    const key = newKeyValue();
    await d.admin('POST', '/seed', { accounts: [{ email: 'noslot@example.test', keys: [{ key }] }] });
    // Free plan: 10 requests a minute. Twelve forced 429s in one (frozen) minute, then a real call.
    const forced: HttpResult[] = [];
    for (let i = 0; i < 12; i++) forced.push(await detect(d, key, { 'provenance-test-response': 'rate_limited' }));
    for (const r of forced) {
      expectError(r, 429, 'rate_limited');
      expect(r.headers['retry-after']).toBe('60');
    }
    const quota = await detect(d, key, { 'provenance-test-response': 'quota_exceeded' });
    expectError(quota, 429, 'quota_exceeded');
    // The burst headers a real refusal at this point would carry: the window as if admitted.
    expect(quota.headers['ratelimit-remaining']).toBe('9');
    const real = await detect(d, key);
    expect(real.status).toBe(200);
    expect(real.headers['ratelimit-limit']).toBe('10');
    expect(real.headers['ratelimit-remaining']).toBe('9');
    expect(real.headers['x-quota-used']).toBe('1');

    // Nine more real requests fill the window; a forced answer now meets the real limit.
    for (let i = 0; i < 9; i++) expect((await http(d.base, 'POST', '/v1/detect', { key, json: {} })).status).toBe(400);
    const over = await detect(d, key, { 'provenance-test-response': 'internal_error' });
    expectError(over, 429, 'rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    const unauthenticated = await http(d.base, 'POST', '/v1/detect', { json: { media }, headers: { 'provenance-test-response': 'internal_error' } });
    expectError(unauthenticated, 401, 'authentication_error');

    const all = (await d.admin('GET', '/requests')).body.requests;
    const entry = (r: HttpResult) => all.find((e: any) => e.request_id === r.headers['request-id']);
    expect(forced.map((r) => entry(r).forced)).toEqual(Array(12).fill('rate_limited'));
    expect(entry(quota)).toMatchObject({ status: 429, error_type: 'quota_exceeded', forced: 'quota_exceeded' });
    expect(entry(real)).toMatchObject({ status: 200, forced: null });
    expect(entry(over)).toMatchObject({ status: 429, error_type: 'rate_limited', forced: null });
    expect(entry(unauthenticated)).toMatchObject({ status: 401, error_type: 'authentication_error', forced: null });
  });

  it('request log: Request-Id matches, fields as documented, never bodies or keys', async () => {
    const key = newKeyValue();
    await d.admin('POST', '/seed', { accounts: [{ email: 'log@example.test', keys: [{ key }] }] });
    const ok = await detect(d, key);
    const bad = await http(d.base, 'POST', '/v1/detect', { key, json: { media: 'not base64!' } });
    const anon = await http(d.base, 'GET', '/v1/detectors');
    const unauth = await http(d.base, 'POST', '/v1/detect', { json: { media } });
    for (const r of [ok, bad, anon, unauth]) expect(r.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
    // A client's own Request-Id is not taken over.
    expect((await http(d.base, 'GET', '/v1/detectors', { headers: { 'request-id': 'req_chosenbytheclient0' } })).headers['request-id']).not.toBe('req_chosenbytheclient0');
    // Pages and errors outside /v1 carry one too.
    expect((await http(d.base, 'GET', '/nowhere')).headers['request-id']).toMatch(/^req_/);

    const all = (await d.admin('GET', '/requests')).body.requests;
    const byId = (id: string) => all.find((e: any) => e.request_id === id);
    expect(byId(ok.headers['request-id']!)).toMatchObject({
      method: 'POST',
      path: '/v1/detect',
      status: 200,
      error_type: null,
      key_prefix: key.slice(0, 8),
      account: 'log@example.test',
      quota_used: 1,
      forced: null,
      time: expect.stringMatching(/^\d{4}-/),
    });
    expect(Object.keys(byId(ok.headers['request-id']!)).sort()).toEqual(
      ['seq', 'time', 'method', 'path', 'status', 'error_type', 'key_prefix', 'account', 'quota_used', 'duration_ms', 'request_id', 'forced'].sort(),
    );
    expect(byId(bad.headers['request-id']!)).toMatchObject({ status: 400, error_type: 'invalid_request', account: 'log@example.test' });
    expect(byId(anon.headers['request-id']!)).toMatchObject({ path: '/v1/detectors', status: 200, account: null, key_prefix: null, quota_used: null });
    expect(byId(unauth.headers['request-id']!)).toMatchObject({ status: 401, error_type: 'authentication_error' });
    const text = JSON.stringify(all);
    expect(text).not.toContain(key);
    expect(text).not.toContain(media.slice(0, 40));
    expect(all.some((e: any) => e.path === '/nowhere')).toBe(false);
    // limit and after
    const last = (await d.admin('GET', '/requests?limit=1')).body.requests;
    expect(last).toHaveLength(1);
    expect((await d.admin('GET', `/requests?after=${last[0].seq}`)).body.requests).toEqual([]);
  });

  it('keeps the last 1,000 requests', () => {
    const log = new RequestLog();
    for (let i = 0; i < 1234; i++) {
      log.add({ time: 't', method: 'GET', path: `/v1/${i}`, status: 200, error_type: null, key_prefix: null, account: null, quota_used: null, duration_ms: 0, request_id: `r${i}`, forced: null });
    }
    const kept = log.list();
    expect(kept).toHaveLength(1000);
    expect(kept[0]!.path).toBe('/v1/234');
    expect(kept.at(-1)!.path).toBe('/v1/1233');
  });

  it('durations', () => {
    expect(parseDuration('31d')).toBe(31 * 86_400_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1d12h')).toBe(36 * 3_600_000);
    expect(parseDuration('-1d')).toBeUndefined();
    expect(parseDuration('1y')).toBeUndefined();
  });

  it('fixtures: every problem with its JSON path, nothing applied; seeding twice is idempotent', async () => {
    await d.admin('POST', '/reset', { keep_accounts: false });
    const good = newKeyValue();
    const badChecksum = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
    const bad = await d.admin('POST', '/seed', {
      accounts: [
        { email: 'ok@example.test', keys: [{ key: good }] },
        { email: 'not-an-address', plan: 'gold', used: -1, keys: [{ key: badChecksum }, { key: good }], colour: 'red' },
        { email: 'c@example.test', plan: 'custom' },
      ],
    });
    expectError(bad, 400, 'invalid_request');
    const lines = bad.body.error.message.split('\n').slice(1).map((l: string) => l.trim());
    expect(lines).toEqual([
      '$.accounts[1].colour: unknown field; allowed: email, plan, quota, used, keys',
      '$.accounts[1].email: must be an e-mail address',
      '$.accounts[1].plan: must be one of free, starter, growth, custom',
      '$.accounts[1].used: must be a whole number >= 0',
      expect.stringMatching(/^\$\.accounts\[1\]\.keys\[0\]\.key: not a valid key/),
      '$.accounts[1].keys[1].key: the same key is also $.accounts[0].keys[0].key',
      '$.accounts[2].quota: a custom plan needs its monthly calls, a whole number >= 0',
    ]);
    expect((await d.admin('GET', '/accounts')).body.accounts).toEqual([]);

    const fixtures = { accounts: [{ email: 'Twice@Example.test', plan: 'growth', used: 5, keys: [{ key: good, name: 'ci' }] }] };
    expect((await d.admin('POST', '/seed', fixtures)).body).toEqual({ accounts_created: 1, accounts_updated: 0, keys_created: 1, keys_restored: 0 });
    const first = (await d.admin('GET', '/export')).body;
    expect((await d.admin('POST', '/seed', fixtures)).body).toEqual({ accounts_created: 0, accounts_updated: 1, keys_created: 0, keys_restored: 0 });
    expect((await d.admin('GET', '/export')).body).toEqual(first);
    // Stored hashed.
    expect(JSON.stringify(first)).not.toContain(good);
    expect(first.keys[0].sha256).toBe(sha256Hex(good));
    expect((await detect(d, good)).headers['x-quota-used']).toBe('6');
  });

  it('export, import, export: identical; reset keeps or drops accounts', async () => {
    const exported = await d.admin('GET', '/export');
    expect(exported.body).toMatchObject({ format: 'provenance-daemon-state', version: 1 });
    await d.admin('POST', '/reset', { keep_accounts: false });
    expect((await d.admin('GET', '/export')).body.accounts).toEqual([]);
    expect((await d.admin('POST', '/import', exported.body)).body.imported).toMatchObject({ accounts: 1, keys: 1 });
    expect((await d.admin('GET', '/export')).text).toBe(exported.text);

    const badImport = await d.admin('POST', '/import', { format: 'x', version: 2, accounts: [{}] });
    expectError(badImport, 400, 'invalid_request');
    expect(badImport.body.error.message).toMatch(/\$\.format/);
    expect(badImport.body.error.message).toMatch(/\$\.accounts\[0\]\.email/);
    expect((await d.admin('GET', '/export')).text).toBe(exported.text);

    const key = exported.body.keys[0];
    await d.admin('POST', '/reset', { keep_accounts: true });
    const kept = (await d.admin('GET', '/export')).body;
    expect(kept.keys).toEqual([key]);
    expect(kept.usage).toEqual([]);
    expect((await d.admin('GET', '/requests')).body.requests).toEqual([]);
    await d.admin('POST', '/reset', { keep_accounts: false });
    expect((await d.admin('GET', '/export')).body).toMatchObject({ accounts: [], keys: [], usage: [] });
    // Nothing recorded any more: the clock may return to real time.
    const real = await d.admin('POST', '/clock', { action: 'real' });
    expect(real.body.mode).toBe('real');
    expect(Math.abs(Date.parse(real.body.now) - Date.now())).toBeLessThan(60_000);
  });

  it('re-seeding restores a fixture key a test revoked or renamed (active, its fixture name)', async () => {
    const key = newKeyValue();
    const fixtures = { accounts: [{ email: 'restore@example.test', keys: [{ key, name: 'ci' }, { key: newKeyValue() }] }] };
    expect((await d.admin('POST', '/seed', fixtures)).body).toMatchObject({ keys_created: 2, keys_restored: 0 });
    const stored = () => d.admin('GET', '/keys?email=restore@example.test').then((r) => r.body.keys.find((k: any) => k.prefix === key.slice(0, 8)));
    const id = (await stored()).id;

    expect((await d.admin('POST', `/keys/${id}/revoke`)).status).toBe(200);
    expectError(await detect(d, key), 401, 'authentication_error');
    expect((await d.admin('POST', '/seed', fixtures)).body).toEqual({ accounts_created: 0, accounts_updated: 1, keys_created: 0, keys_restored: 1 });
    expect(await stored()).toMatchObject({ id, name: 'ci', revoked_at: null });
    expect((await detect(d, key)).status).toBe(200);

    // Renamed (here through an imported state): the fixture's name comes back; the other key,
    // named by no fixture, keeps the default name.
    const state = (await d.admin('GET', '/export')).body;
    state.keys.find((k: any) => k.id === id).name = 'renamed by a test';
    expect((await d.admin('POST', '/import', state)).status).toBe(200);
    expect((await stored()).name).toBe('renamed by a test');
    expect((await d.admin('POST', '/seed', fixtures)).body).toMatchObject({ keys_created: 0, keys_restored: 1 });
    expect(await stored()).toMatchObject({ id, name: 'ci', revoked_at: null });
    const names = (await d.admin('GET', '/keys?email=restore@example.test')).body.keys.map((k: any) => k.name).sort();
    expect(names).toEqual(['ci', 'fixture key']);
    // Nothing to restore: the same state again.
    const before = (await d.admin('GET', '/export')).text;
    expect((await d.admin('POST', '/seed', fixtures)).body).toMatchObject({ keys_created: 0, keys_restored: 0 });
    expect((await d.admin('GET', '/export')).text).toBe(before);
  });

  it('at most 25 active keys per account through fixtures and import too (issue 17.3): refused whole, naming the account', async () => {
    const keys = Array.from({ length: 26 }, () => ({ key: newKeyValue() }));
    const tooMany = await d.admin('POST', '/seed', { accounts: [{ email: 'many@example.test', keys }] });
    expectError(tooMany, 400, 'invalid_request');
    expect(tooMany.body.error.message).toBe('The fixtures have 1 problem:\n  $.accounts[0].keys: 26 keys for many@example.test; an account has at most 25 active keys');
    expect((await d.admin('GET', '/accounts')).body.accounts.some((a: any) => a.email === 'many@example.test')).toBe(false);

    // 20 from the fixtures and 5 made since: 25. One more fixture key would be the 26th.
    const twenty = { accounts: [{ email: 'many@example.test', keys: keys.slice(0, 20) }] };
    expect((await d.admin('POST', '/seed', twenty)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await d.admin('POST', '/keys', { email: 'many@example.test' })).status).toBe(201);
    const before = (await d.admin('GET', '/export')).text;
    const over = await d.admin('POST', '/seed', { accounts: [{ email: 'many@example.test', keys: keys.slice(0, 21) }] });
    expectError(over, 400, 'invalid_request');
    expect(over.body.error.message).toMatch(/^The fixtures have 1 problem:\n  \$\.accounts\[0\]\.keys: many@example\.test would have 26 active keys \(21 in the fixtures, 5 other active ones\); an account has at most 25/);
    expect((await d.admin('GET', '/export')).text).toBe(before);
    // A revoked fixture key restored by a re-seed counts too, and fits: 20 + 5.
    const first = (await d.admin('GET', '/keys?email=many@example.test')).body.keys.find((k: any) => k.prefix === keys[0]!.key.slice(0, 8));
    await d.admin('POST', `/keys/${first.id}/revoke`);
    expect((await d.admin('POST', '/seed', twenty)).body).toMatchObject({ keys_restored: 1 });

    // An imported state with a 26th active key on the account: refused, nothing applied.
    const state = (await d.admin('GET', '/export')).body;
    const account = state.accounts.find((a: any) => a.email === 'many@example.test').id;
    const template = state.keys.find((k: any) => k.account === account);
    state.keys.push({ ...template, id: 'key_the26th', sha256: sha256Hex(newKeyValue()), revoked_at: null });
    const imported = await d.admin('POST', '/import', state);
    expectError(imported, 400, 'invalid_request');
    expect(imported.body.error.message).toBe(
      `The fixtures have 1 problem:\n  $.keys: account ${account} (many@example.test) would have 26 active keys; an account has at most 25: set revoked_at on the ones it no longer uses`,
    );
    // Revoked, it is history and fits.
    state.keys.at(-1).revoked_at = state.keys.at(-1).created_at;
    expect((await d.admin('POST', '/import', state)).status).toBe(200);
  });

  it('import checks the state as a whole: every record\'s account exists, ids and hashes unique, files plain names; nothing applied', async () => {
    const good = (await d.admin('GET', '/export')).body;
    const bad = structuredClone(good);
    const k0 = bad.keys[0];
    const a0 = bad.accounts[0];
    bad.accounts.push({ ...a0, email: 'other@example.test' });
    bad.keys.push({ ...k0, account: 'acct_gone' });
    bad.usage.push({ account: 'acct_gone', period: '2030-13', calls: 1 });
    bad.uploads.push({ id: 'upl_x', account: 'acct_gone', bytes: 1, sha256: 'a'.repeat(64), type: 'image/jpeg', created_at: 'yesterday', expires_at: '2030-02-03T00:00:00.000Z', file: '../daemon.lock' });
    bad.sessions.push({ sha256: 'B'.repeat(64), account: 'acct_gone', created_at: '2030-02-02T00:00:00.000Z', expires_at: '2030-02-03T00:00:00.000Z' });
    const r = await d.admin('POST', '/import', bad);
    expectError(r, 400, 'invalid_request');
    const n = bad.keys.length - 1;
    const lines = r.body.error.message.split('\n').slice(1).map((l: string) => l.trim());
    expect(lines).toEqual([
      `$.accounts[${bad.accounts.length - 1}].id: the same id is also $.accounts[0].id`,
      `$.keys[${n}].id: the same id is also $.keys[0].id`,
      `$.keys[${n}].sha256: the same key hash is also $.keys[0].sha256`,
      `$.keys[${n}].account: no account "acct_gone" in $.accounts`,
      `$.usage[${bad.usage.length - 1}].account: no account "acct_gone" in $.accounts`,
      `$.uploads[${bad.uploads.length - 1}].account: no account "acct_gone" in $.accounts`,
      `$.sessions[${bad.sessions.length - 1}].account: no account "acct_gone" in $.accounts`,
      `$.uploads[${bad.uploads.length - 1}].created_at: must be an ISO 8601 time, e.g. 2026-11-15T12:00:00.000Z`,
      `$.sessions[${bad.sessions.length - 1}].sha256: must be a SHA-256 in hex (64 characters 0-9 a-f)`,
      `$.usage[${bad.usage.length - 1}].period: must be a month, YYYY-MM`,
      `$.uploads[${bad.uploads.length - 1}].file: must be a file name in the uploads folder (letters, digits, _ - .), not a path`,
    ]);
    expect(r.body.error.message).toMatch(/^The fixtures have 11 problems:/);
    expect((await d.admin('GET', '/export')).body).toEqual(good);
  });

  it('every test-mode admin action needs the admin token', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/clock'],
      ['POST', '/clock', { action: 'advance', by: '1d' }],
      ['POST', '/seed', { accounts: [] }],
      ['GET', '/export'],
      ['POST', '/import', {}],
      ['POST', '/reset', {}],
      ['GET', '/requests'],
    ];
    for (const [method, path, json] of routes) {
      expectError(await http(d.base, method, `/admin/v1${path}`, { json }), 401, 'authentication_error');
      expectError(await http(d.base, method, `/admin/v1${path}`, { json, headers: { 'x-provenance-admin-token': 'wrong' } }), 401, 'authentication_error');
      // A dashboard session cookie is no admin credential.
      expectError(await http(d.base, method, `/admin/v1${path}`, { json, headers: { cookie: 'prov_session=abc' } }), 401, 'authentication_error');
    }
  });
});

describe('import and the test clock', () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await daemon(true);
  });
  afterAll(() => d.t.close());

  it('refuses a state whose latest event is after the clock, saying to move the clock first', async () => {
    await d.admin('POST', '/clock', { action: 'set', at: '2030-06-01T00:00:00Z' });
    const key = newKeyValue();
    await d.admin('POST', '/seed', { accounts: [{ email: 'ahead@example.test', keys: [{ key }] }] });
    const state = (await d.admin('GET', '/export')).body;
    state.accounts[0].created_at = '2030-07-01T00:00:00.000Z';
    const before = (await d.admin('GET', '/export')).text;
    const refused = await d.admin('POST', '/import', state);
    expectError(refused, 400, 'invalid_request');
    expect(refused.body.error.message).toBe(
      "The state records an event at 2030-07-01T00:00:00.000Z, after this daemon's test clock (2030-06-01T00:00:00.000Z); nothing was imported. Move the clock first (provenance daemon clock set 2030-07-01T00:00:00.000Z), then import.",
    );
    expect((await d.admin('GET', '/export')).text).toBe(before);
    await d.admin('POST', '/clock', { action: 'set', at: '2030-07-01T00:00:00Z' });
    expect((await d.admin('POST', '/import', state)).status).toBe(200);
    expect((await d.admin('GET', '/export')).body.accounts[0].created_at).toBe('2030-07-01T00:00:00.000Z');
  });
});

describe('without --test-mode', () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await daemon(false);
  });
  afterAll(() => d.t.close());

  it('refuses forced answers and clock moves, naming the flag; the header changes nothing', async () => {
    const key = newKeyValue();
    expect((await d.admin('POST', '/seed', { accounts: [{ email: 'prod@example.test', keys: [{ key }] }] })).status).toBe(200);
    for (const value of ['quota_exceeded', 'rate_limited', 'internal_error', 'download_failed', 'delay=10', 'nonsense']) {
      const r = await detect(d, key, { 'provenance-test-response': value });
      expectError(r, 400, 'invalid_request', 'Provenance-Test-Response');
      expect(r.body.error.message).toMatch(/--test-mode/);
    }
    const ok = await detect(d, key);
    expect(ok.status).toBe(200);
    // None of the refused requests was counted or forced.
    expect(ok.headers['x-quota-used']).toBe('1');
    const log = (await d.admin('GET', '/requests')).body;
    expect(log.test_mode).toBe(false);
    expect(log.requests.every((e: any) => e.forced === null)).toBe(true);

    const move = await d.admin('POST', '/clock', { action: 'advance', by: '31d' });
    expectError(move, 400, 'invalid_request');
    expect(move.body.error.message).toMatch(/--test-mode/);
    const shown = (await d.admin('GET', '/clock')).body;
    expect(shown).toMatchObject({ mode: 'real', test_mode: false });
    expect((await http(d.base, 'GET', '/healthz')).body).toEqual({ status: 'ok', test_mode: false });
  });

  it('imports a state recorded ahead of real time (no test clock to contradict)', async () => {
    const state = (await d.admin('GET', '/export')).body;
    state.accounts[0].created_at = '2099-01-01T00:00:00.000Z';
    expect((await d.admin('POST', '/import', state)).status).toBe(200);
    expect((await d.admin('GET', '/export')).body.accounts[0].created_at).toBe('2099-01-01T00:00:00.000Z');
  });
});
