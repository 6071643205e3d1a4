// The modules that guard the web pages (issue 26), pinned one by one: the CSRF tokens'
// format and comparison, sessions (cookie format, expiry edges, destroy and sweep answers, the
// flash lifetime on the daemon's clock), and the sign-in rate limits (exact Retry-After, window
// length and edge, the sweeps that bound maps keyed by addresses a client chooses). Unit tests
// on a real embedded store, plus a few requests over HTTP on 127.0.0.1 for cookie names.
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { CSRF_COOKIE, isCsrfSecret, newCsrfSecret, sameToken, sessionCsrfToken } from '../../src/daemon/web/csrf.js';
import { SESSION_COOKIE, SESSION_TTL_MS, Sessions } from '../../src/daemon/web/sessions.js';
import { DEFAULT_SIGNIN_LIMITS, SigninLimits, SlidingWindow, clientKey } from '../../src/daemon/web/signin-limits.js';
import type { Store } from '../../src/daemon/store/store.js';
import { withScratchStore, type TestClock } from './helpers.js';
import { csrfOf, webApp, type WebApp } from './signin-helpers.js';

/** A well-formed token (43 base64url characters) holding every edge of every range: A Z a z 0 9 _ -. */
const EDGES = 'AZaz09_-AZaz09_-AZaz09_-AZaz09_-AZaz09_-abc';
/** Well-formed tokens, each made of one edge character (so a narrowed range refuses one of them). */
const ONE_CHAR = ['A', 'Z', 'a', 'z', '0', '9', '_', '-'].map((c) => c.repeat(43));
/** Strings a token pattern must refuse: wrong length, junk around a good token, one bad character. */
const MALFORMED = [
  '',
  EDGES.slice(0, 42),
  `${EDGES}A`,
  `x${EDGES}`,
  `${EDGES}x`,
  ` ${EDGES}`,
  `${EDGES}\n`,
  `${EDGES.slice(0, 42)}.`,
  `${EDGES.slice(0, 42)}+`,
  `${EDGES.slice(0, 42)}/`,
  `${EDGES.slice(0, 42)}=`,
  `${EDGES.slice(0, 21)} ${EDGES.slice(0, 21)}`,
  'é'.repeat(43),
  'short',
];

describe('csrf', () => {
  it('a secret is 43 base64url characters: exactly that length, every character of the alphabet, nothing around it', () => {
    expect(EDGES).toHaveLength(43);
    expect(isCsrfSecret(EDGES)).toBe(true);
    for (const token of ONE_CHAR) expect(isCsrfSecret(token), token).toBe(true);
    for (const bad of MALFORMED) expect(isCsrfSecret(bad), JSON.stringify(bad)).toBe(false);
    // Not a string: never, even one whose text would be a token.
    expect(isCsrfSecret([EDGES])).toBe(false);
    expect(isCsrfSecret({ toString: () => EDGES })).toBe(false);
    expect(isCsrfSecret(undefined)).toBe(false);
    expect(isCsrfSecret(null)).toBe(false);
  });

  it('new secrets have that format and differ', () => {
    const secrets = Array.from({ length: 20 }, newCsrfSecret);
    for (const s of secrets) expect(isCsrfSecret(s), s).toBe(true);
    expect(new Set(secrets).size).toBe(20);
  });

  it("a session's token is the HMAC-SHA256 of the session cookie with a fixed label (tokens outlive a restart)", () => {
    // Computed once, independently: this value must never change, or forms open across an
    // upgrade stop working.
    expect(sessionCsrfToken(EDGES)).toBe('FVTJIx9Rs1ydKN-4FtcQmUj1RdSFGBSh9rXXFCXwVJw');
    expect(sessionCsrfToken(EDGES)).toBe(createHmac('sha256', EDGES).update('provenance dashboard csrf v1').digest('base64url'));
    expect(isCsrfSecret(sessionCsrfToken(newCsrfSecret()))).toBe(true);
  });

  it('sameToken: true only for the same well-formed token, false (never a throw) for anything else', () => {
    const other = `${EDGES.slice(0, 42)}d`;
    expect(sameToken(EDGES, EDGES)).toBe(true);
    expect(sameToken(EDGES, `${EDGES}`)).toBe(true);
    expect(sameToken(other, EDGES)).toBe(false);
    expect(sameToken(EDGES, other)).toBe(false);
    expect(sameToken(EDGES, undefined)).toBe(false);
    expect(sameToken(undefined, EDGES)).toBe(false);
    for (const bad of MALFORMED) {
      expect(sameToken(bad, EDGES), JSON.stringify(bad)).toBe(false);
      expect(sameToken(EDGES, bad), JSON.stringify(bad)).toBe(false);
      expect(sameToken(bad, bad), JSON.stringify(bad)).toBe(false);
    }
    expect(sameToken([EDGES], EDGES)).toBe(false);
  });
});

describe('csrf and session cookies over HTTP', () => {
  let t: WebApp;
  beforeEach(async () => {
    t = await webApp();
  });
  afterEach(() => t.close());

  it('the sign-in form sets prv_csrf, and a form whose cookie and field agree but are not a secret is refused', async () => {
    expect(CSRF_COOKIE).toBe('prv_csrf');
    const c = t.client();
    const form = await c.get('/signin');
    const line = form.setCookies.find((l) => l.startsWith('prv_csrf='));
    expect(line).toMatch(/^prv_csrf=[A-Za-z0-9_-]{43}; /);
    expect(c.cookies.get('prv_csrf')).toBe(csrfOf(form.text));
    // Any string the client chose, in both places: not a double-submit secret.
    for (const forged of ['x', 'short-but-equal', EDGES.slice(0, 42), `${EDGES}A`]) {
      const r = await fetch(`${t.base}/signin`, {
        method: 'POST',
        headers: { cookie: `prv_csrf=${forged}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'forged@example.com', csrf: forged }).toString(),
        redirect: 'manual',
      });
      expect(r.status, forged).toBe(403);
    }
    expect(t.mailer.sent).toHaveLength(0);
    // The real pair passes.
    expect((await c.post('/signin', { email: 'real@example.com', csrf: csrfOf(form.text) })).status).toBe(200);
    expect(t.mailer.sent).toHaveLength(1);
  });

  it('a session made by Sessions opens the dashboard through the prv_session cookie, and only through it', async () => {
    expect(SESSION_COOKIE).toBe('prv_session');
    const { accountId } = await t.account('cookie@example.com');
    const sessions = new Sessions(t.app.services.store, t.clock);
    const { token } = await sessions.create(accountId);
    await t.app.services.store.commit();
    const get = (cookie: string) => fetch(`${t.base}/dashboard`, { headers: { cookie }, redirect: 'manual' });
    const ok = await get(`prv_session=${token}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('cookie@example.com');
    expect((await get(`other=${token}`)).status).toBe(303);
  });
});

describe('sessions', () => {
  let store: Store;
  let clock: TestClock;
  withScratchStore((s, c) => {
    store = s;
    clock = c;
  });

  /** A session stored under the hash of `token`, whatever its form (as if the store held one). */
  const plant = (token: string, expires = '2026-11-16T00:00:00.000Z') =>
    store.insertSession({ sha256: sha256Hex(token), account: 'acct_planted', created_at: '2026-11-15T12:00:00.000Z', expires_at: expires });

  it('lasts 12 hours by default: stored hashed, with its creation and expiry times', async () => {
    expect(SESSION_TTL_MS).toBe(43_200_000);
    const sessions = new Sessions(store, clock);
    expect(sessions.ttlMs).toBe(43_200_000);
    const { token, session } = await sessions.create('acct_a');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session).toEqual({
      sha256: sha256Hex(token),
      account: 'acct_a',
      created_at: '2026-11-15T12:00:00.000Z',
      expires_at: '2026-11-16T00:00:00.000Z',
    });
    expect(await store.sessionByHash(sha256Hex(token))).toEqual(session);
    expect(await sessions.find(token)).toEqual(session);
  });

  it('ends exactly at its expiry: found 1 ms before, not at it', async () => {
    const sessions = new Sessions(store, clock, 5000);
    const { token } = await sessions.create('acct_a');
    clock.advance(4999);
    expect((await sessions.find(token))?.account).toBe('acct_a');
    clock.advance(1);
    expect(await sessions.find(token)).toBeUndefined();
  });

  it('find: undefined for no cookie, an unknown token, and a malformed one even if the store held it', async () => {
    const sessions = new Sessions(store, clock);
    for (const token of ONE_CHAR) await plant(token);
    await plant(EDGES);
    for (const bad of MALFORMED) await plant(bad);
    for (const token of [...ONE_CHAR, EDGES]) expect((await sessions.find(token))?.account, token).toBe('acct_planted');
    for (const bad of MALFORMED) expect(await sessions.find(bad), JSON.stringify(bad)).toBeUndefined();
    expect(await sessions.find(undefined)).toBeUndefined();
    expect(await sessions.find(`${EDGES.slice(0, 42)}d`)).toBeUndefined();
  });

  it('destroy: true for a live session (then gone), false for an absent, unknown or malformed token, which stay', async () => {
    const sessions = new Sessions(store, clock);
    const { token } = await sessions.create('acct_a');
    expect(await sessions.destroy(undefined)).toBe(false);
    expect(await sessions.destroy('')).toBe(false);
    expect(await sessions.destroy(`${EDGES.slice(0, 42)}d`)).toBe(false);
    for (const bad of MALFORMED.filter(Boolean)) {
      await plant(bad);
      expect(await sessions.destroy(bad), JSON.stringify(bad)).toBe(false);
      expect(await store.sessionByHash(sha256Hex(bad)), JSON.stringify(bad)).toBeDefined();
    }
    expect(await sessions.find(token)).toBeDefined();
    expect(await sessions.destroy(token)).toBe(true);
    expect(await sessions.find(token)).toBeUndefined();
    expect(await store.sessionByHash(sha256Hex(token))).toBeUndefined();
    expect(await sessions.destroy(token)).toBe(false);
  });

  it("destroy drops the session's flash", async () => {
    const sessions = new Sessions(store, clock);
    const { token } = await sessions.create('acct_a');
    sessions.setFlash(token, { notice: 'kept until shown' });
    expect(await sessions.destroy(token)).toBe(true);
    expect(sessions.takeFlash(token)).toBeUndefined();
  });

  it('sweep: false when nothing expired (no needless commit), true when a session did', async () => {
    const sessions = new Sessions(store, clock, 1000);
    expect(await sessions.sweep()).toBe(false);
    const { token } = await sessions.create('acct_a');
    expect(await sessions.sweep()).toBe(false);
    clock.advance(999);
    expect(await sessions.sweep()).toBe(false);
    expect(await sessions.find(token)).toBeDefined();
    clock.advance(1);
    expect(await sessions.sweep()).toBe(true);
    expect(await store.sessionByHash(sha256Hex(token))).toBeUndefined();
    expect(await sessions.sweep()).toBe(false);
  });

  it('a flash is taken once, with what was set', async () => {
    const sessions = new Sessions(store, clock);
    const { token } = await sessions.create('acct_a');
    expect(sessions.takeFlash(token)).toBeUndefined();
    sessions.setFlash(token, { notice: 'hello', error: 'oops' });
    expect(sessions.takeFlash(token)).toMatchObject({ notice: 'hello', error: 'oops' });
    expect(sessions.takeFlash(token)).toBeUndefined();
  });

  it("a flash lives 10 minutes by the daemon's clock (not the wall clock): swept at 10 minutes, not before", async () => {
    const sessions = new Sessions(store, clock);
    const a = (await sessions.create('acct_a')).token;
    const b = (await sessions.create('acct_b')).token;
    sessions.setFlash(a, { notice: 'a' });
    clock.advance(60_000);
    sessions.setFlash(b, { notice: 'b' });
    // The wall clock does not move these: only the daemon's clock does.
    clock.advance(9 * 60_000 - 1);
    await sessions.sweep();
    clock.advance(1);
    await sessions.sweep();
    expect(sessions.takeFlash(a)).toBeUndefined();
    expect(sessions.takeFlash(b)).toMatchObject({ notice: 'b' });

    sessions.setFlash(b, { notice: 'again' });
    clock.advance(10 * 60_000 - 1);
    await sessions.sweep();
    expect(sessions.takeFlash(b)).toMatchObject({ notice: 'again' });
    sessions.setFlash(b, { notice: 'last' });
    clock.advance(10 * 60_000);
    await sessions.sweep();
    expect(sessions.takeFlash(b)).toBeUndefined();
  });

  it('a stale flash is not shown even before a sweep has dropped it', async () => {
    const sessions = new Sessions(store, clock);
    const { token } = await sessions.create('acct_a');
    sessions.setFlash(token, { notice: 'just in time' });
    clock.advance(10 * 60_000 - 1);
    expect(sessions.takeFlash(token)).toMatchObject({ notice: 'just in time' });
    sessions.setFlash(token, { notice: 'too late' });
    clock.advance(10 * 60_000);
    expect(sessions.takeFlash(token)).toBeUndefined();
  });

  it('a sweep frees the memory of flashes never shown once they are stale, not before', async () => {
    const sessions = new Sessions(store, clock);
    for (let i = 0; i < 3; i++) sessions.setFlash((await sessions.create(`acct_${i}`)).token, { notice: 'never shown' });
    clock.advance(10 * 60_000 - 1);
    await sessions.sweep();
    expect(sessions.heldFlashes).toBe(3);
    clock.advance(1);
    await sessions.sweep();
    expect(sessions.heldFlashes).toBe(0);
  });

  it('a daemon clock set back in time does not keep a flash forever, nor drop a fresh one', async () => {
    // A daemon whose clock is a day behind the wall clock: flashes follow its clock.
    clock.set('2020-01-01T00:00:00Z');
    const sessions = new Sessions(store, clock);
    const { token } = await sessions.create('acct_a');
    sessions.setFlash(token, { notice: 'fresh' });
    await sessions.sweep();
    expect(sessions.takeFlash(token)).toMatchObject({ notice: 'fresh' });
    sessions.setFlash(token, { notice: 'stale' });
    clock.advance(10 * 60_000);
    await sessions.sweep();
    expect(sessions.takeFlash(token)).toBeUndefined();
  });
});

/** The private map of a window, to see what a sweep leaves (the only bound on its size). */
const keysOf = (w: SlidingWindow) => [...(w as unknown as { hits: Map<string, number[]> }).hits.keys()];
const windowsOf = (l: SigninLimits) => l as unknown as { address: SlidingWindow; client: SlidingWindow };

describe('signin-limits', () => {
  it('the defaults: 5 mails per address and 30 requests per client, each per 15 minutes', () => {
    expect(DEFAULT_SIGNIN_LIMITS).toEqual({
      perAddress: { limit: 5, windowMs: 900_000 },
      perClient: { limit: 30, windowMs: 900_000 },
    });
  });

  it('a window admits `limit` takes, refuses the next with the exact seconds until its oldest leaves', () => {
    const w = new SlidingWindow({ limit: 3, windowMs: 60_000 });
    expect(w.take('k', 1000)).toEqual({ allowed: true });
    expect(w.take('k', 11_000)).toEqual({ allowed: true });
    expect(w.take('k', 21_000)).toEqual({ allowed: true });
    // Oldest at 1000 leaves at 61,000: 39.5 s from 21,500, rounded up.
    expect(w.take('k', 21_500)).toEqual({ allowed: false, retryAfter: 40 });
    expect(w.take('k', 60_999)).toEqual({ allowed: false, retryAfter: 1 });
    // At exactly 61,000 the first take has left the window (it covers (now - 60 s, now]).
    expect(w.take('k', 61_000)).toEqual({ allowed: true });
    // Refused takes did not enter the window: the next slot frees when 11,000 leaves.
    expect(w.take('k', 61_001)).toEqual({ allowed: false, retryAfter: 10 });
    // Another key is not held up.
    expect(w.take('other', 61_001)).toEqual({ allowed: true });
  });

  it('the default per-address window: 5 mails, the 6th refused for 15 minutes, then one more', () => {
    const limits = new SigninLimits();
    for (let i = 0; i < 5; i++) expect(limits.take('a@example.com', `10.0.0.${i}`, i * 1000)).toEqual({ allowed: true });
    expect(limits.take('a@example.com', '10.0.1.1', 5000)).toEqual({ allowed: false, by: 'address', retryAfter: 895 });
    expect(limits.take('a@example.com', '10.0.1.1', 899_999)).toEqual({ allowed: false, by: 'address', retryAfter: 1 });
    expect(limits.take('a@example.com', '10.0.1.1', 900_000)).toEqual({ allowed: true });
    expect(limits.take('a@example.com', '10.0.1.1', 900_001)).toEqual({ allowed: false, by: 'address', retryAfter: 1 });
  });

  it("the default per-client window: 30 requests, the 31st refused with 15 minutes' Retry-After; refusals by address count too", () => {
    const limits = new SigninLimits();
    for (let i = 0; i < 24; i++) expect(limits.take(`u${i}@example.com`, '192.0.2.7', 0)).toEqual({ allowed: true });
    // Six for one address: five mails, one refused by the address limit, which still counts for the client.
    for (let i = 0; i < 5; i++) expect(limits.take('same@example.com', '192.0.2.7', 0)).toEqual({ allowed: true });
    expect(limits.take('same@example.com', '192.0.2.7', 0)).toEqual({ allowed: false, by: 'address', retryAfter: 900 });
    expect(limits.take('u30@example.com', '192.0.2.7', 60_000)).toEqual({ allowed: false, by: 'client', retryAfter: 840 });
    expect(limits.take('u30@example.com', '192.0.2.7', 899_999)).toEqual({ allowed: false, by: 'client', retryAfter: 1 });
    expect(limits.take('u30@example.com', '192.0.2.7', 900_000)).toEqual({ allowed: true });
    expect(limits.take('u0@example.com', '192.0.2.99', 900_000)).toEqual({ allowed: true });
  });

  it('the client is checked first; a client refusal takes no mail slot of the address', () => {
    const limits = new SigninLimits({ perAddress: { limit: 1, windowMs: 10_000 }, perClient: { limit: 2, windowMs: 20_000 } });
    expect(limits.take('a@example.com', 'c1', 0)).toEqual({ allowed: true });
    expect(limits.take('a@example.com', 'c1', 1000)).toEqual({ allowed: false, by: 'address', retryAfter: 9 });
    expect(limits.take('b@example.com', 'c1', 2000)).toEqual({ allowed: false, by: 'client', retryAfter: 18 });
    // b's slot was not used by the refused request: another client gets it.
    expect(limits.take('b@example.com', 'c2', 2000)).toEqual({ allowed: true });
  });

  it('options replace the defaults one at a time', () => {
    const onlyClient = new SigninLimits({ perClient: { limit: 1, windowMs: 5000 } });
    expect(onlyClient.take('a@example.com', 'c', 0)).toEqual({ allowed: true });
    expect(onlyClient.take('b@example.com', 'c', 0)).toEqual({ allowed: false, by: 'client', retryAfter: 5 });
    const onlyAddress = new SigninLimits({ perAddress: { limit: 1, windowMs: 7000 } });
    expect(onlyAddress.take('a@example.com', 'c1', 0)).toEqual({ allowed: true });
    expect(onlyAddress.take('a@example.com', 'c2', 0)).toEqual({ allowed: false, by: 'address', retryAfter: 7 });
    for (let i = 0; i < 29; i++) expect(onlyAddress.take(`x${i}@example.com`, 'c3', 0).allowed).toBe(true);
    expect(onlyAddress.take('y@example.com', 'c3', 0)).toEqual({ allowed: true });
    expect(onlyAddress.take('z@example.com', 'c3', 0)).toEqual({ allowed: false, by: 'client', retryAfter: 900 });
  });

  it("a window's sweep drops keys whose last take left the window (at its edge), keeps the others", () => {
    const w = new SlidingWindow({ limit: 5, windowMs: 1000 });
    w.take('old', 0);
    w.take('recent', 0);
    w.take('recent', 600);
    w.sweep(999);
    expect(keysOf(w).sort()).toEqual(['old', 'recent']);
    w.sweep(1000);
    expect(keysOf(w)).toEqual(['recent']);
    w.sweep(1599);
    expect(keysOf(w)).toEqual(['recent']);
    w.sweep(1600);
    expect(keysOf(w)).toEqual([]);
    // Sweeping keeps a key's count: still refused after a sweep inside the window.
    const full = new SlidingWindow({ limit: 1, windowMs: 1000 });
    full.take('k', 0);
    full.sweep(500);
    expect(full.take('k', 500)).toEqual({ allowed: false, retryAfter: 1 });
  });

  it('a window that refuses everything (limit 0) keeps no empty entry after a sweep', () => {
    const w = new SlidingWindow({ limit: 0, windowMs: 1000 });
    expect(w.take('k', 0).allowed).toBe(false);
    expect(keysOf(w)).toEqual(['k']);
    w.sweep(0);
    expect(keysOf(w)).toEqual([]);
  });

  it('SigninLimits.sweep sweeps both windows; clear forgets both', () => {
    const limits = new SigninLimits({ perAddress: { limit: 1, windowMs: 1000 }, perClient: { limit: 1, windowMs: 2000 } });
    limits.take('a@example.com', 'c1', 0);
    const { address, client } = windowsOf(limits);
    expect(keysOf(address)).toEqual(['a@example.com']);
    expect(keysOf(client)).toEqual(['c1']);
    limits.sweep(1000);
    expect(keysOf(address)).toEqual([]);
    expect(keysOf(client)).toEqual(['c1']);
    limits.sweep(2000);
    expect(keysOf(client)).toEqual([]);

    limits.take('b@example.com', 'c2', 3000);
    expect(limits.take('b@example.com', 'c3', 3000)).toMatchObject({ allowed: false, by: 'address' });
    expect(limits.take('c@example.com', 'c2', 3000)).toMatchObject({ allowed: false, by: 'client' });
    limits.clear();
    expect(keysOf(address)).toEqual([]);
    expect(keysOf(client)).toEqual([]);
    expect(limits.take('b@example.com', 'c2', 3000)).toEqual({ allowed: true });
  });

  it('SlidingWindow.clear forgets every key', () => {
    const w = new SlidingWindow({ limit: 1, windowMs: 1000 });
    w.take('a', 0);
    w.take('b', 0);
    w.clear();
    expect(keysOf(w)).toEqual([]);
    expect(w.take('a', 0)).toEqual({ allowed: true });
  });
});

describe('clientKey (the per-client limit counts an IPv6 client by its /64)', () => {
  /** What each address is counted under; each row checked by hand against RFC 4291's forms. */
  const CASES: [string, string][] = [
    // IPv4 as it is, trimmed.
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    // IPv4-mapped IPv6, dotted or in hex, in any case: the IPv4 address.
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['::ffff:c000:201', '192.0.2.1'],
    ['0:0:0:0:0:ffff:c000:0201', '192.0.2.1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:192.168.100.200', '192.168.100.200'],
    ['::ffff:0.0.0.0', '0.0.0.0'],
    ['::ffff:255.255.255.255', '255.255.255.255'],
    ['::ffff:ffff:ffff', '255.255.255.255'],
    ['::ffff:102:304', '1.2.3.4'],
    // Not mapped: a sixth group other than ffff, or a non-zero group before it.
    ['::fffe:192.0.2.1', '0:0:0:0::/64'],
    ['1::ffff:192.0.2.1', '1:0:0:0::/64'],
    ['0:0:0:0:1:ffff:c000:201', '0:0:0:0::/64'],
    // IPv6: its first four groups, lower case, without leading zeros.
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::abcd', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::', '2001:db8:1:2::/64'],
    ['abcd:ef01:2345:6789:abcd:ef01:2345:6789', 'abcd:ef01:2345:6789::/64'],
    ['a:f:0:9:1:1:1:1', 'a:f:0:9::/64'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4::/64'],
    ['1:2:3:4:5:6:7::', '1:2:3:4::/64'],
    ['::2:3:4:5:6:7:8', '0:2:3:4::/64'],
    ['ff:1:2:3:4:5:6::', 'ff:1:2:3::/64'],
    ['::', '0:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['FE80::1%eth0', 'fe80:0:0:0::/64'],
    ['fe80::1%25eth0', 'fe80:0:0:0::/64'],
    ['[2001:db8::1]', '2001:db8:0:0::/64'],
    // A trailing dotted IPv4 is two groups.
    ['2001:db8::1.2.3.4', '2001:db8:0:0::/64'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4::/64'],
    ['1:2:3:4:5:6:255.255.255.255', '1:2:3:4::/64'],
    ['::1.2.3.4', '0:0:0:0::/64'],
    // Not an address: kept as it is (after trimming and lower-casing).
    ['[2001:db8::1', '[2001:db8::1'],
    ['2001:db8::1]', '2001:db8::1]'],
    ['not:an:ip', 'not:an:ip'],
    ['1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7:8:9'],
    ['1::2::3', '1::2::3'],
    ['gggg::1', 'gggg::1'],
    ['12345::1', '12345::1'],
    ['x123::1', 'x123::1'],
    ['1234x::1', '1234x::1'],
    [':1:2:3:4:5:6:7', ':1:2:3:4:5:6:7'],
    ['1:2:3:4:5:6:7:', '1:2:3:4:5:6:7:'],
    ['1:2:3:4:5:6:7', '1:2:3:4:5:6:7'],
    ['1:2:3:4:5:6:7::8', '1:2:3:4:5:6:7::8'],
    ['1:2::3:4:5:6:7:8', '1:2::3:4:5:6:7:8'],
    ['1:2:3:4:5:6:7:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4'],
    ['1:2:3:4:5:1.2.3.4', '1:2:3:4:5:1.2.3.4'],
    ['::ffff:1.2.3.256', '::ffff:1.2.3.256'],
    ['::ffff:256.2.3.4', '::ffff:256.2.3.4'],
    ['::ffff:1.2.3', '::ffff:1.2.3'],
    ['::ffff:1.2.3.4x', '::ffff:1.2.3.4x'],
    ['::ffff:1.2.3.4.5', '::ffff:1.2.3.4.5'],
    ['::ffff:0255.2.3.4', '::ffff:0255.2.3.4'],
    ['::ffff:1.0255.3.4', '::ffff:1.0255.3.4'],
    ['::ffff:1.2.0255.4', '::ffff:1.2.0255.4'],
    ['::ffff:1.2.3.0255', '::ffff:1.2.3.0255'],
    ['::ffff:.2.3.4', '::ffff:.2.3.4'],
    ['::ffff:1..3.4', '::ffff:1..3.4'],
    ['::ffff:1.2..4', '::ffff:1.2..4'],
    ['::ffff:1.2.3.', '::ffff:1.2.3.'],
    ['1.2.3.4:1.2.3.4', '1.2.3.4:1.2.3.4'],
    ['', ''],
  ];

  it.each(CASES)('%j is counted as %j', (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });

  it('two addresses of one /64 share a window; another /64 does not', () => {
    const limits = new SigninLimits({ perClient: { limit: 1, windowMs: 60_000 } });
    expect(limits.take('a@example.com', clientKey('2001:db8:1:2::1'), 0)).toEqual({ allowed: true });
    expect(limits.take('b@example.com', clientKey('2001:db8:1:2:ffff::9'), 0)).toEqual({ allowed: false, by: 'client', retryAfter: 60 });
    expect(limits.take('b@example.com', clientKey('2001:db8:1:3::1'), 0)).toEqual({ allowed: true });
  });
});
