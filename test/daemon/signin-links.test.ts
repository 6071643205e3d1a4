// One-time sign-in links (issue 26), pinned one by one on a real embedded store: the record an
// issue stores (hashed, 15 minutes), each outcome of peek and consume and the edges between
// them, malformed tokens never looked up, and the sweep a day after expiry (and its answer).
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { SIGNIN_LINK_TTL_MS, SigninLinks } from '../../src/daemon/web/signin-links.js';
import type { Store } from '../../src/daemon/store/store.js';
import { withScratchStore, type TestClock } from './helpers.js';

/** A well-formed token holding every edge of every range: A Z a z 0 9 _ -. */
const EDGES = 'AZaz09_-AZaz09_-AZaz09_-AZaz09_-AZaz09_-abc';
const ONE_CHAR = ['A', 'Z', 'a', 'z', '0', '9', '_', '-'].map((c) => c.repeat(43));
const MALFORMED = [
  EDGES.slice(0, 42),
  `${EDGES}A`,
  `x${EDGES}`,
  `${EDGES}x`,
  `${EDGES}\n`,
  `${EDGES.slice(0, 42)}.`,
  `${EDGES.slice(0, 42)}=`,
  `${EDGES.slice(0, 42)}+`,
  'é'.repeat(43),
  'short',
];

let store: Store;
let clock: TestClock;
withScratchStore((s, c) => {
  store = s;
  clock = c;
});

/** A link record stored under the hash of `token`, whatever its form (as if the store held one). */
const plant = (token: string, over: { expires_at?: string; used_at?: string | null } = {}) =>
  store.insertSigninToken({
    sha256: sha256Hex(token),
    email: 'planted@example.com',
    next: '/dashboard/planted',
    created_at: '2026-11-15T12:00:00.000Z',
    expires_at: '2026-11-15T12:15:00.000Z',
    used_at: null,
    ...over,
  });

describe('issue', () => {
  it('stores only the hash, with the address, where to go, and 15 minutes of life', async () => {
    expect(SIGNIN_LINK_TTL_MS).toBe(900_000);
    const links = new SigninLinks(store, clock);
    expect(links.ttlMs).toBe(900_000);
    const { token, expiresAt } = await links.issue('a@example.com', '/dashboard?x=1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(expiresAt.toISOString()).toBe('2026-11-15T12:15:00.000Z');
    expect(await store.signinTokenByHash(sha256Hex(token))).toEqual({
      sha256: sha256Hex(token),
      email: 'a@example.com',
      next: '/dashboard?x=1',
      created_at: '2026-11-15T12:00:00.000Z',
      expires_at: '2026-11-15T12:15:00.000Z',
      used_at: null,
    });
    const other = await links.issue('a@example.com', '/dashboard');
    expect(other.token).not.toBe(token);
  });
});

describe('peek and consume', () => {
  it('a fresh link: peek says ok and changes nothing; consume says ok once, then used', async () => {
    const links = new SigninLinks(store, clock);
    const { token } = await links.issue('a@example.com', '/verify');
    const ok = { ok: true, email: 'a@example.com', next: '/verify' };
    expect(await links.peek(token)).toEqual(ok);
    expect(await links.peek(token)).toEqual(ok);
    expect((await store.signinTokenByHash(sha256Hex(token)))?.used_at).toBeNull();
    clock.advance(1000);
    expect(await links.consume(token)).toEqual(ok);
    expect((await store.signinTokenByHash(sha256Hex(token)))?.used_at).toBe('2026-11-15T12:00:01.000Z');
    const used = { ok: false, problem: 'used', email: 'a@example.com' };
    expect(await links.peek(token)).toEqual(used);
    expect(await links.consume(token)).toEqual(used);
  });

  it('expires exactly at 15 minutes: ok 1 ms before, expired at it (peek and consume alike)', async () => {
    const links = new SigninLinks(store, clock, 5000);
    const a = (await links.issue('a@example.com', '/dashboard')).token;
    const b = (await links.issue('b@example.com', '/dashboard')).token;
    clock.advance(4999);
    expect(await links.peek(a)).toEqual({ ok: true, email: 'a@example.com', next: '/dashboard' });
    expect(await links.consume(a)).toEqual({ ok: true, email: 'a@example.com', next: '/dashboard' });
    clock.advance(1);
    const expired = { ok: false, problem: 'expired', email: 'b@example.com' };
    expect(await links.peek(b)).toEqual(expired);
    expect(await links.consume(b)).toEqual(expired);
    // A used link stays "used" after its expiry.
    expect(await links.peek(a)).toEqual({ ok: false, problem: 'used', email: 'a@example.com' });
  });

  it('the default life is 15 minutes', async () => {
    const links = new SigninLinks(store, clock);
    const { token } = await links.issue('a@example.com', '/dashboard');
    clock.advance(900_000 - 1);
    expect((await links.peek(token)).ok).toBe(true);
    clock.advance(1);
    expect(await links.peek(token)).toEqual({ ok: false, problem: 'expired', email: 'a@example.com' });
  });

  it('unknown, malformed (even if the store held it) and non-string tokens: unknown, nothing used', async () => {
    const links = new SigninLinks(store, clock);
    for (const token of [...ONE_CHAR, EDGES]) {
      await plant(token);
      expect(await links.peek(token), token).toEqual({ ok: true, email: 'planted@example.com', next: '/dashboard/planted' });
    }
    expect(await links.consume(EDGES)).toEqual({ ok: true, email: 'planted@example.com', next: '/dashboard/planted' });
    for (const bad of MALFORMED) {
      await plant(bad);
      expect(await links.peek(bad), JSON.stringify(bad)).toEqual({ ok: false, problem: 'unknown' });
      expect(await links.consume(bad), JSON.stringify(bad)).toEqual({ ok: false, problem: 'unknown' });
      expect((await store.signinTokenByHash(sha256Hex(bad)))?.used_at, JSON.stringify(bad)).toBeNull();
    }
    const unknown = `${EDGES.slice(0, 42)}d`;
    for (const token of [unknown, '', undefined, null, 42, [EDGES], { toString: () => EDGES }]) {
      expect(await links.peek(token), String(token)).toEqual({ ok: false, problem: 'unknown' });
      expect(await links.consume(token), String(token)).toEqual({ ok: false, problem: 'unknown' });
    }
    // The planted well-formed ones other than EDGES are still unused.
    expect((await store.signinTokenByHash(sha256Hex(ONE_CHAR[0]!)))?.used_at).toBeNull();
  });

  it('a record marked used but not yet expired is "used" to peek', async () => {
    const links = new SigninLinks(store, clock);
    await plant(EDGES, { used_at: '2026-11-15T12:01:00.000Z' });
    expect(await links.peek(EDGES)).toEqual({ ok: false, problem: 'used', email: 'planted@example.com' });
    expect(await links.consume(EDGES)).toEqual({ ok: false, problem: 'used', email: 'planted@example.com' });
  });
});

describe('sweep', () => {
  it('drops a record exactly a day after its expiry; false (no needless commit) when nothing went', async () => {
    const links = new SigninLinks(store, clock);
    expect(await links.sweep()).toBe(false);
    const { token } = await links.issue('a@example.com', '/dashboard');
    expect(await links.sweep()).toBe(false);
    // Expires at 12:15; kept until 12:15 the next day so the page can say "expired".
    clock.set('2026-11-16T12:14:59.999Z');
    expect(await links.sweep()).toBe(false);
    expect(await links.peek(token)).toEqual({ ok: false, problem: 'expired', email: 'a@example.com' });
    clock.advance(1);
    expect(await links.sweep()).toBe(true);
    expect(await store.signinTokenByHash(sha256Hex(token))).toBeUndefined();
    expect(await links.peek(token)).toEqual({ ok: false, problem: 'unknown' });
    expect(await links.sweep()).toBe(false);
  });
});
