// Quota and burst (SPEC 8, CONTRACT "Headers" and order of checks), with an injected clock.
import { afterEach, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, bearer, expectError, http, LIMIT_HEADERS, listen, makeApp, testClock, tempDir, type TestApp } from './helpers.js';

const media = b64(tinyJpeg());
const apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function app(options: Parameters<typeof makeApp>[0] = {}, dir?: string) {
  const a = await makeApp(options, dir);
  apps.push(a);
  return a;
}

function detectInject(a: TestApp, key: string, payload: object = { media }) {
  return a.app.inject({ method: 'POST', url: '/v1/detect', headers: bearer(key), payload });
}

describe('burst limit', () => {
  it('free plan: 10 per minute per key; the 11th is 429 rate_limited with Retry-After; refused requests do not count or enter the window', async () => {
    const clock = testClock('2026-11-15T12:00:00Z');
    const a = await app({ now: clock });
    const base = await listen(a.app);
    const { key } = await a.account('burst');
    for (let i = 1; i <= 10; i++) {
      const r = await http(base, 'POST', '/v1/detect', { key, json: { media } });
      expect(r.status).toBe(200);
      expect(r.headers['ratelimit-limit']).toBe('10');
      expect(r.headers['ratelimit-remaining']).toBe(String(10 - i));
      clock.advance(1000);
    }
    // 10 s after the first request: it leaves the window in 50 s.
    const refused = await http(base, 'POST', '/v1/detect', { key, json: { media } });
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toBe('50');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe('50');
    for (const h of LIMIT_HEADERS) expect(refused.headers[h], h).toBeDefined();
    expect(refused.headers['x-quota-used']).toBe('10');

    // Hammering while refused does not extend the wait.
    clock.advance(49_000);
    const still = await http(base, 'POST', '/v1/detect', { key, json: { media } });
    expect(still.status).toBe(429);
    expect(still.headers['retry-after']).toBe('1');
    clock.advance(1000);
    const again = await http(base, 'POST', '/v1/detect', { key, json: { media } });
    expect(again.status).toBe(200);
    expect(again.headers['x-quota-used']).toBe('11');
  });

  it('is per key: another key of the same account has its own window, but shares the quota', async () => {
    const clock = testClock();
    const a = await app({ now: clock });
    const { key } = await a.account('shared@example.test');
    const second = (await a.app.services.accounts.createKey('shared@example.test')).value;
    for (let i = 0; i < 10; i++) expect((await detectInject(a, key)).statusCode).toBe(200);
    expectError(await detectInject(a, key), 429, 'rate_limited');
    const other = await detectInject(a, second);
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('9');
    expect(other.headers['x-quota-used']).toBe('11');
  });

  it('invalid requests enter the window (the burst check comes before body validation)', async () => {
    const a = await app({ now: testClock() });
    const { key } = await a.account('invalid-burst');
    for (let i = 0; i < 10; i++) expect((await detectInject(a, key, { nothing: true })).statusCode).toBe(400);
    const r = await detectInject(a, key);
    expectError(r, 429, 'rate_limited');
    expect(r.headers['x-quota-used']).toBe('0');
  });

  it('plan limits: starter 60, growth 120, custom 300 per minute', async () => {
    const a = await app({ now: testClock() });
    for (const [plan, rpm, quota] of [['starter', '60', '10000'], ['growth', '120', '100000'], ['custom', '300', '7']] as const) {
      const { key } = await a.account(plan, plan, plan === 'custom' ? 7 : undefined);
      const r = await detectInject(a, key);
      expect(r.headers['ratelimit-limit']).toBe(rpm);
      expect(r.headers['x-quota-limit']).toBe(quota);
    }
  });
});

describe('monthly quota', () => {
  it('custom plan with 3 calls: the 4th is 429 quota_exceeded, Retry-After = seconds to the UTC month reset, not counted', async () => {
    const clock = testClock('2026-11-30T23:59:00Z');
    const a = await app({ now: clock });
    const base = await listen(a.app);
    const { key } = await a.account('small', 'custom', 3);
    for (let i = 1; i <= 3; i++) {
      const r = await http(base, 'POST', '/v1/detect', { key, json: { media } });
      expect(r.status).toBe(200);
      expect(r.headers).toMatchObject({ 'x-quota-limit': '3', 'x-quota-used': String(i), 'x-quota-remaining': String(3 - i), 'x-quota-reset': '2026-12-01T00:00:00Z' });
    }
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media } });
    expectError(r, 429, 'quota_exceeded');
    expect(r.headers['retry-after']).toBe('60');
    expect(r.headers).toMatchObject({ 'x-quota-used': '3', 'x-quota-remaining': '0' });
    for (const h of LIMIT_HEADERS) expect(r.headers[h], h).toBeDefined();
    // Validation comes before the quota: an invalid body is still 400, not 429.
    expectError(await http(base, 'POST', '/v1/detect', { key, json: {} }), 400, 'invalid_request');
    // Authentication comes first of all.
    expectError(await http(base, 'POST', '/v1/detect', { json: { media } }), 401, 'authentication_error');

    // Month rollover at midnight UTC on the 1st.
    clock.set('2026-12-01T00:00:00Z');
    const next = await http(base, 'POST', '/v1/detect', { key, json: { media } });
    expect(next.status).toBe(200);
    expect(next.headers).toMatchObject({ 'x-quota-used': '1', 'x-quota-remaining': '2', 'x-quota-reset': '2027-01-01T00:00:00Z' });
    const accountId = (await a.app.services.accounts.listAccounts())[0]!.id;
    expect({
      '2026-11': await a.app.services.store.usage(accountId, '2026-11'),
      '2026-12': await a.app.services.store.usage(accountId, '2026-12'),
    }).toEqual({
      '2026-11': 3,
      '2026-12': 1,
    });
  });

  it('a plan change applies at once', async () => {
    const a = await app({ now: testClock() });
    const { key } = await a.account('upgrade@example.test', 'custom', 1);
    expect((await detectInject(a, key)).statusCode).toBe(200);
    expect((await detectInject(a, key)).statusCode).toBe(429);
    await a.app.services.accounts.setPlan('upgrade@example.test', { plan: 'starter' });
    const r = await detectInject(a, key);
    expect(r.statusCode).toBe(200);
    expect(r.headers).toMatchObject({ 'x-quota-limit': '10000', 'x-quota-used': '2', 'ratelimit-limit': '60' });
  });

  it('250 concurrent requests with 100 calls left: exactly 100 200s with X-Quota-Used 1..100 once each, 150 quota_exceeded; 100 after a restart', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const a = await makeApp({ store: { durable: true } }, dir);
      const base = await listen(a.app);
      const { key } = await a.account('race', 'custom', 100);
      const { Agent } = await import('undici');
      const agent = new Agent({ connections: 250 });
      const { request } = await import('undici');
      const body = JSON.stringify({ media });
      const results = await Promise.all(
        Array.from({ length: 250 }, async () => {
          const r = await request(`${base}/v1/detect`, {
            method: 'POST',
            dispatcher: agent,
            headers: { ...bearer(key), 'content-type': 'application/json' },
            body,
          });
          const json = (await r.body.json()) as any;
          return { status: r.statusCode, used: Number(r.headers['x-quota-used']), type: json.error?.type };
        }),
      );
      await agent.close();
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 429);
      expect(ok).toHaveLength(100);
      expect(refused).toHaveLength(150);
      expect(refused.every((r) => r.type === 'quota_exceeded')).toBe(true);
      expect(ok.map((r) => r.used).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      await a.app.close();

      const again = await makeApp({}, dir);
      const accountId = (await again.app.services.accounts.listAccounts())[0]!.id;
      const period = new Date().toISOString().slice(0, 7);
      expect(await again.app.services.store.usage(accountId, period)).toBe(100);
      const after = await detectInject(again, key);
      expectError(after, 429, 'quota_exceeded');
      expect(after.headers['x-quota-used']).toBe('100');
      await again.app.close();
    } finally {
      cleanup();
    }
  });
});
