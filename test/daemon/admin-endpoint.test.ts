// The admin endpoint's bodies (found by the fuzz suite): a field of the wrong type is a 400
// naming it, never a 500, and changes nothing; so are fixtures and clock changes whose values
// are objects (String() of {"toString": null} throws). Real HTTP on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { expectError, http, listen, makeApp, type TestApp } from './helpers.js';

const TOKEN = 'admin-endpoint-test-token';
let t: TestApp;
let base: string;
const admin = (method: string, path: string, json?: unknown) => http(base, method, `/admin/v1${path}`, { headers: { 'x-provenance-admin-token': TOKEN }, json });

beforeAll(async () => {
  t = await makeApp({ adminTokenSha256: sha256Hex(TOKEN) });
  base = await listen(t.app);
  expect((await admin('POST', '/accounts', { email: 'ops@example.test', plan: 'free' })).status).toBe(201);
});
afterAll(() => t.close());

describe('admin bodies of the wrong type', () => {
  it('email, plan or name that is not a string: 400 naming the field, nothing changed', async () => {
    const before = await t.app.services.store.exportState();
    const cases: [string, unknown, string][] = [
      ['/accounts', { email: { toString: 1 } }, 'email'],
      ['/accounts', { email: ['a@example.test'] }, 'email'],
      ['/accounts', { email: 'new@example.test', plan: { toString: null } }, 'plan'],
      ['/accounts/plan', { email: 7, plan: 'starter' }, 'email'],
      ['/keys', { email: 'ops@example.test', name: 5 }, 'name'],
      ['/keys', { email: 'ops@example.test', name: { a: 1 } }, 'name'],
    ];
    for (const [path, body, param] of cases) {
      const r = await admin('POST', path, body);
      expect(expectError(r, 400, 'invalid_request')).toMatchObject({ message: `${param} must be a string.`, param });
    }
    for (const body of [[], 'a string', 42]) expect(expectError(await admin('POST', '/accounts', body), 400, 'invalid_request').message).toBe('The body must be a JSON object.');
    expect(await t.app.services.store.exportState()).toEqual(before);
  });

  it('a quota that is not a number is refused as `--quota abc` is (the CLI sends it as null)', async () => {
    const viaNull = await admin('POST', '/accounts', { email: 'c1@example.test', plan: 'custom', quota: null });
    const viaString = await admin('POST', '/accounts', { email: 'c2@example.test', plan: 'custom', quota: '100' });
    for (const r of [viaNull, viaString]) expect(expectError(r, 400, 'invalid_request').message).toMatch(/^A custom plan needs its agreed monthly calls/);
    expect((await admin('POST', '/accounts', { email: 'c3@example.test', plan: 'custom', quota: 100 })).status).toBe(201);
    const named = await admin('POST', '/keys', { email: 'ops@example.test', name: 'ci' });
    expect(named.status).toBe(201);
    expect(named.body.key.name).toBe('ci');
  });
});

describe('fixtures and the test clock with values of the wrong type', () => {
  it('a fixture whose plan is an object, with a quota: 400 listing the plan, nothing applied', async () => {
    const before = await t.app.services.store.exportState();
    const r = await admin('POST', '/seed', { accounts: [{ email: 'seed@example.test', plan: { toString: null }, quota: 5 }] });
    expect(expectError(r, 400, 'invalid_request').message).toContain('$.accounts[0].plan: must be one of');
    expect(await t.app.services.store.exportState()).toEqual(before);
  });

  it('test mode: set or advance the clock by an object or a number: 400 saying what was given', async () => {
    const d = await makeApp({ testMode: true, adminTokenSha256: sha256Hex(TOKEN) });
    try {
      const url = await listen(d.app);
      const clock = (json: unknown) => http(url, 'POST', '/admin/v1/clock', { headers: { 'x-provenance-admin-token': TOKEN }, json });
      expect(expectError(await clock({ action: 'set', at: { toString: 1 } }), 400, 'invalid_request').message).toBe('{"toString":1} is not an ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z.');
      expect(expectError(await clock({ action: 'advance', by: 5 }), 400, 'invalid_request').message).toBe('5 is not a duration; use e.g. 31d, 2h, 90s, 500ms or 1d12h.');
      expect(expectError(await clock({ action: 'set', at: 'soon' }), 400, 'invalid_request').message).toBe('"soon" is not an ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z.');
      expect((await clock({ action: 'advance', by: '1d' })).status).toBe(200);
    } finally {
      await d.close();
    }
  });
});
