// The two onRequest hooks of the keyed routes (issue 26): Bearer-key authentication (each 401
// and its exact message, which Authorization values are Bearer keys, last_used_at and its
// unawaited commit) and the per-key burst gate (which requests take a slot: a forced error
// answer takes none, a forced delay takes one; a real refusal wins over a forced answer).
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/daemon/http/app.js';
import { makeApp, testClock, type TestApp, type TestClock } from './helpers.js';

const HOW = 'Send your API key in the header "Authorization: Bearer <API_KEY>".';
const NO_KEY = `No API key was sent. ${HOW}`;
const NOT_BEARER = `The Authorization header is not a Bearer key. ${HOW}`;
const MALFORMED = 'The API key is malformed (a key is "prv_" and 38 letters or digits, with a checksum); check that it was copied whole.';
const UNKNOWN = 'The API key is unknown or has been revoked; create a new key.';

let t: TestApp;
let clock: TestClock;
let logs: string;
beforeEach(async () => {
  clock = testClock('2026-11-15T12:00:00Z');
  logs = '';
  const stream = new PassThrough();
  stream.on('data', (d) => (logs += d));
  t = await makeApp({ now: clock, testMode: true, logger: loggerOptions(stream) });
});
afterEach(() => t.close());

/** POST /v1/detect with an empty body: past both hooks it is a 400 (no media), costing no call. */
function detect(headers: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: '/v1/detect', headers: { 'content-type': 'application/json', ...headers }, payload: '{}' });
}

function expectRefusal(r: { statusCode: number; body: string }, status: number, type: string, message?: string) {
  expect(r.statusCode, r.body).toBe(status);
  const body = JSON.parse(r.body);
  expect(body.error.type).toBe(type);
  if (message !== undefined) expect(body.error.message).toBe(message);
}

describe('authenticate', () => {
  it('no Authorization header: 401 saying no key was sent', async () => {
    expectRefusal(await detect({}), 401, 'authentication_error', NO_KEY);
    expectRefusal(await detect({ authorization: '' }), 401, 'authentication_error', NO_KEY);
  });

  it('the Bearer forms accepted: any case, one or more spaces before the key, spaces after it', async () => {
    const { key } = await t.account('forms');
    for (const value of [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}`, `Bearer ${key} `, `Bearer ${key}    `]) {
      const r = await detect({ authorization: value });
      expectRefusal(r, 400, 'invalid_request');
      clock.advance(60_000);
    }
  });

  it('anything else is not a Bearer key: 401 saying so, before the key is looked at', async () => {
    const { key } = await t.account('not-bearer');
    for (const value of [
      `Basic ${key}`,
      `Bearer${key}`,
      `xBearer ${key}`,
      ` Bearer ${key}`,
      `Bearer ${key} extra`,
      `Bearer ${key}\textra`,
      `Bearer\t${key}`,
      'Bearer ',
      'Bearer',
      key,
    ]) {
      expectRefusal(await detect({ authorization: value }), 401, 'authentication_error', NOT_BEARER);
    }
  });

  it('a Bearer value that is not a well-formed key: 401 malformed; a well-formed unknown one: 401 unknown', async () => {
    const { key } = await t.account('malformed');
    for (const value of ['x', 'prv_short', key.slice(0, -1), `${key}0`, `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`]) {
      expectRefusal(await detect({ authorization: `Bearer ${value}` }), 401, 'authentication_error', MALFORMED);
    }
    const other = await t.account('revoked');
    await t.app.services.accounts.revokeKey(other.keyId);
    await t.app.services.store.commit();
    expectRefusal(await detect({ authorization: `Bearer ${other.key}` }), 401, 'authentication_error', UNKNOWN);
  });

  it("records the key's last use at the daemon's clock, on the request and in the store", async () => {
    const { key, keyId } = await t.account('last-used');
    expect((await t.app.services.store.keyById(keyId))?.last_used_at ?? null).toBeNull();
    clock.set('2026-11-20T08:30:00Z');
    expectRefusal(await detect({ authorization: `Bearer ${key}` }), 400, 'invalid_request');
    expect((await t.app.services.store.keyById(keyId))?.last_used_at).toBe('2026-11-20T08:30:00.000Z');
  });

  it('a failed write of last_used_at is logged, and the request is answered all the same', async () => {
    const { key } = await t.account('write-fails');
    const store = t.app.services.store;
    // Planted on the store and deleted again after, so its own method shows through (the
    // daemon's store is timed by a proxy that calls whatever method the store has now).
    store.commit = () => Promise.reject(new Error('disk gone'));
    try {
      expectRefusal(await detect({ authorization: `Bearer ${key}` }), 400, 'invalid_request');
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      delete (store as Partial<typeof store>).commit;
    }
    const line = logs.split('\n').find((l) => l.includes('store write failed'));
    expect(line, logs).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 50, msg: 'store write failed', err: { message: 'disk gone' } });
  });
});

describe('burst gate', () => {
  it('admits the plan\'s requests per minute, then 429 with the limit and seconds to wait; headers on both', async () => {
    const { key } = await t.account('burst');
    for (let i = 0; i < 10; i++) {
      const r = await detect({ authorization: `Bearer ${key}` });
      expectRefusal(r, 400, 'invalid_request');
      expect(r.headers['ratelimit-remaining']).toBe(String(9 - i));
      clock.advance(1000);
    }
    const over = await detect({ authorization: `Bearer ${key}` });
    expectRefusal(over, 429, 'rate_limited', "This key made 10 requests in the last 60 seconds, its plan's burst limit; retry in 50 seconds.");
    expect(over.headers['retry-after']).toBe('50');
    expect(over.headers['ratelimit-limit']).toBe('10');
    expect(over.headers['ratelimit-remaining']).toBe('0');
  });

  it('a forced error answer takes no slot; a forced delay takes one', async () => {
    const { key } = await t.account('forced');
    for (let i = 0; i < 12; i++) {
      const r = await detect({ authorization: `Bearer ${key}`, 'provenance-test-response': 'rate_limited' });
      expectRefusal(r, 429, 'rate_limited');
      expect(r.headers['retry-after']).toBe('60');
    }
    const internal = await detect({ authorization: `Bearer ${key}`, 'provenance-test-response': 'internal_error' });
    expect(internal.statusCode).toBe(500);
    // Its headers show the window as a real answer would: as if admitted, one slot fewer.
    expect(internal.headers['ratelimit-remaining']).toBe('9');
    const delayed = await detect({ authorization: `Bearer ${key}`, 'provenance-test-response': 'delay=0' });
    expectRefusal(delayed, 400, 'invalid_request');
    expect(delayed.headers['ratelimit-remaining']).toBe('9');
    const real = await detect({ authorization: `Bearer ${key}` });
    expect(real.headers['ratelimit-remaining']).toBe('8');
  });

  it('over the limit, a forced error answer gets the real 429', async () => {
    const { key } = await t.account('forced-over');
    for (let i = 0; i < 10; i++) expectRefusal(await detect({ authorization: `Bearer ${key}` }), 400, 'invalid_request');
    const r = await detect({ authorization: `Bearer ${key}`, 'provenance-test-response': 'internal_error' });
    expectRefusal(r, 429, 'rate_limited', "This key made 10 requests in the last 60 seconds, its plan's burst limit; retry in 60 seconds.");
  });
});
