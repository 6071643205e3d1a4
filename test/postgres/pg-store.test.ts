// PgStore's atomic steps, each raced from two stores (two pools: as two daemons would) on one
// real database: a reservation, the burst window, a sign-in token. Nothing here is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { PgStore } from '../../src/daemon/store/pg-store.js';
import { createTestSchema } from '../helpers/postgres.js';

let schema: { url: string; drop(): Promise<void> };
let a: PgStore;
let b: PgStore;

beforeAll(async () => {
  schema = await createTestSchema(inject('pgDatabaseUrl'));
  [a, b] = await Promise.all([PgStore.open(schema.url), PgStore.open(schema.url)]);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await schema?.drop();
});

describe('PgStore raced from two pools', () => {
  it('reserveCall: 120 concurrent reservations against a limit of 50 give exactly 1..50', async () => {
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).reserveCall('acct_race', '2026-11', 50)));
    const taken = results.filter((r): r is number => r !== undefined).sort((x, y) => x - y);
    expect(taken).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await a.usage('acct_race', '2026-11')).toBe(50);
    await b.releaseCall('acct_race', '2026-11');
    expect(await a.reserveCall('acct_race', '2026-11', 50)).toBe(50);
    expect(await a.reserveCall('acct_race', '2026-11', 0)).toBeUndefined();
  });

  it('takeBurst: 40 concurrent requests of one key against a limit of 10 admit exactly 10; the window slides', async () => {
    const now = 1_800_000_000_000;
    // One clock value for all: with `now + i`, a request of an earlier time could run after
    // later ones were admitted, and its honest Retry-After was 61 s (seen once in CI).
    const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).takeBurst('key_burst', 10, now)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => d.remaining === 0 && !d.allowed && d.retryAfter >= 1 && d.retryAfter <= 60)).toBe(true);
    // 60 s after the first admitted request, slots free again.
    expect((await a.takeBurst('key_burst', 10, now + 59_000)).allowed).toBe(false);
    expect((await b.takeBurst('key_burst', 10, now + 60_100)).allowed).toBe(true);
    await a.sweepBurst(now + 10 * 60_000);
    expect((await a.takeBurst('key_burst', 10, now + 10 * 60_000)).remaining).toBe(9);
  });

  it('peekBurst answers as takeBurst would and admits nothing (test mode\'s forced answers)', async () => {
    const now = 1_800_000_100_000;
    expect(await a.peekBurst('key_peek', 3, now)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    for (let i = 0; i < 5; i++) expect((await b.peekBurst('key_peek', 3, now)).remaining).toBe(2);
    await a.takeBurst('key_peek', 3, now);
    await b.takeBurst('key_peek', 3, now + 10_000);
    expect(await b.peekBurst('key_peek', 3, now + 20_000)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 40 });
    expect(await a.takeBurst('key_peek', 3, now + 20_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await a.peekBurst('key_peek', 3, now + 30_000)).toEqual({ allowed: false, retryAfter: 30, limit: 3, remaining: 0, resetSeconds: 30 });
    expect(await b.takeBurst('key_peek', 3, now + 30_000)).toEqual(await a.peekBurst('key_peek', 3, now + 30_000));
  });

  it('restoreKey makes a revoked key active again under a name', async () => {
    await a.insertAccount({ id: 'acct_restore', email: 'restore@example.test', plan: 'free', created_at: '2026-11-15T12:00:00.000Z' });
    await a.insertKey({ id: 'key_restore', account: 'acct_restore', name: 'old', prefix: 'prv_rest', sha256: 'd'.repeat(64), created_at: '2026-11-15T12:00:00.000Z', last_used_at: null, revoked_at: null });
    await a.revokeKey('key_restore', '2026-11-16T00:00:00.000Z');
    expect(await b.restoreKey('key_restore', 'ci')).toMatchObject({ id: 'key_restore', name: 'ci', revoked_at: null });
    expect(await a.keyByHash('d'.repeat(64))).toMatchObject({ name: 'ci', revoked_at: null });
    expect(await a.restoreKey('key_none', 'x')).toBeUndefined();
  });

  it('useSigninToken: of 20 racing uses of one token exactly one is ok; the others say used', async () => {
    const at = new Date('2026-11-15T12:00:00Z');
    await a.insertSigninToken({ sha256: 'f'.repeat(64), email: 'race@example.test', next: '/dashboard', created_at: at.toISOString(), expires_at: new Date(at.getTime() + 900_000).toISOString(), used_at: null });
    const uses = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).useSigninToken('f'.repeat(64), at)));
    expect(uses.filter((u) => u.ok)).toHaveLength(1);
    expect(uses.filter((u) => !u.ok).map((u) => (u.ok ? '' : u.problem))).toEqual(Array(19).fill('used'));
    expect(await b.useSigninToken('0'.repeat(64), at)).toEqual({ ok: false, problem: 'unknown' });
  });

  it('last use of a key is written in batches, and read back at once by the daemon that saw it', async () => {
    await a.insertAccount({ id: 'acct_touch', email: 'touch@example.test', plan: 'free', created_at: '2026-11-15T12:00:00.000Z' });
    await a.insertKey({ id: 'key_touch', account: 'acct_touch', name: 'k', prefix: 'prv_abcd', sha256: 'e'.repeat(64), created_at: '2026-11-15T12:00:00.000Z', last_used_at: null, revoked_at: null });
    await a.touchKey('key_touch', '2026-11-15T12:01:00.000Z');
    expect((await a.keyById('key_touch'))!.last_used_at).toBe('2026-11-15T12:01:00.000Z');
    // The other daemon sees it once the batch is written (within about a second; bounded wait).
    let seen: string | null = null;
    for (let i = 0; i < 50 && seen === null; i++) {
      seen = (await b.keyByHash('e'.repeat(64)))!.last_used_at;
      if (seen === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toBe('2026-11-15T12:01:00.000Z');
  });
});
