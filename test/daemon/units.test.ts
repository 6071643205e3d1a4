// Key format, store writes, burst window and data-dir resolution, without HTTP.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BurstWindows } from '../../src/daemon/store/burst-window.js';
import { resolveDataDir } from '../../src/daemon/store/data-dir.js';
import { crc32, isWellFormedKey, keyChecksum, newKeyValue, sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { JOURNAL_FILE, openStore, readStoreFiles, STORE_FILE, StoreCorruptError } from '../../src/daemon/store/file-store.js';
import { isoSeconds, periodOf, quotaResetOf } from '../../src/daemon/contract/time.js';
import { Quota } from '../../src/daemon/accounts/quota.js';
import { tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('key format', () => {
  it('is prv_ + 32 base62 + a 6-character base62 CRC32 checksum', () => {
    const key = newKeyValue();
    expect(key).toMatch(/^prv_[0-9A-Za-z]{38}$/);
    expect(keyChecksum(key.slice(4, 36))).toBe(key.slice(36));
    expect(isWellFormedKey(key)).toBe(true);
  });
  it('a changed character fails the checksum', () => {
    const key = newKeyValue();
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedKey(flipped)).toBe(false);
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedKey(`sk_${key.slice(4)}`)).toBe(false);
  });
  it('CRC32 is the standard one', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
  });
  it('keys differ', () => {
    expect(new Set(Array.from({ length: 200 }, newKeyValue)).size).toBe(200);
  });
});

describe('time', () => {
  it('periods and resets are UTC months', () => {
    expect(periodOf(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(isoSeconds(quotaResetOf(new Date('2026-11-30T23:59:59Z')))).toBe('2026-12-01T00:00:00Z');
    expect(isoSeconds(quotaResetOf(new Date('2026-12-31T10:00:00Z')))).toBe('2027-01-01T00:00:00Z');
  });
});

describe('store', () => {
  it('groups concurrent changes into one write, atomically, and reloads them', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const store = await openStore(dir);
    const before = store.writes;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        // Account i has used i calls this month.
        for (let n = 0; n < i; n++) void store.reserveCall(`acct_${i}`, '2026-11', 100);
        return store.commit();
      }),
    );
    expect(store.writes - before).toBe(1);
    // No temp file is left behind; the changes are on disk (in the journal).
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readStoreFiles(dir).usage.acct_49).toEqual({ '2026-11': 49 });
    await store.close();
    const again = await openStore(dir);
    expect(await again.usage('acct_7', '2026-11')).toBe(7);
    await again.close();
  });

  it('a change made during a write goes in the next one, and its commit waits for that', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const store = await openStore(dir, { groupMs: 0 });
    await store.reserveCall('a', 'p', 5);
    const first = store.commit();
    await new Promise((r) => setTimeout(r, 0));
    await store.reserveCall('b', 'p', 5);
    await store.reserveCall('b', 'p', 5);
    const second = store.commit();
    await first;
    await second;
    expect(readStoreFiles(dir).usage.b).toEqual({ p: 2 });
    await store.close();
  });

  it('refuses to start over on top of an unreadable file, and clears stale temp files', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    writeFileSync(join(dir, STORE_FILE), '{"version":1,"accou');
    await expect(openStore(dir)).rejects.toThrow(StoreCorruptError);
    writeFileSync(join(dir, STORE_FILE), '{"version":1}');
    writeFileSync(join(dir, `.${STORE_FILE}.999.tmp`), 'half');
    const store = await openStore(dir);
    expect(existsSync(join(dir, `.${STORE_FILE}.999.tmp`))).toBe(false);
    expect(await store.listAccounts()).toEqual([]);
    await store.close();
  });

  it('keeps keys only as SHA-256', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const store = await openStore(dir);
    const { Accounts } = await import('../../src/daemon/accounts/accounts.js');
    const { key } = await new Accounts(store).createAccount({ email: 'x@example.test' });
    await store.commit();
    const journal = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
    expect(journal).not.toContain(key.value);
    expect(journal).toContain(sha256Hex(key.value));
    await store.close();
    const snapshot = readFileSync(join(dir, STORE_FILE), 'utf8');
    expect(snapshot).not.toContain(key.value);
    expect(snapshot).toContain(sha256Hex(key.value));
  });
});

describe('quota', () => {
  it('a reservation given back twice returns one call, not two', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const store = await openStore(dir, { groupMs: 0 });
    const quota = new Quota(store, () => new Date('2026-11-15T12:00:00Z'));
    const account = { id: 'acct_q', email: 'q@example.test', plan: 'free' as const, created_at: '2026-11-01T00:00:00.000Z' };
    await quota.reserve(account);
    const second = await quota.reserve(account);
    expect(second).toEqual({ accountId: 'acct_q', period: '2026-11', used: 2, released: false });
    await quota.release(second);
    expect(second.released).toBe(true);
    // A second release of the same reservation (two error paths of one request) is a no-op.
    await quota.release(second);
    expect(await store.usage('acct_q', '2026-11')).toBe(1);
    await store.close();
  });
});

describe('burst window', () => {
  it('slides over 60 s; refused requests do not enter it', () => {
    const b = new BurstWindows();
    const t0 = 1_000_000;
    for (let i = 0; i < 10; i++) expect(b.take('k', 10, t0 + i * 1000).allowed).toBe(true);
    const refused = b.take('k', 10, t0 + 30_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 30 });
    // Still refused a moment before the first request leaves the window...
    expect(b.take('k', 10, t0 + 59_999).allowed).toBe(false);
    // ...and the refused ones took no slot: exactly one frees at t0 + 60 s.
    const d = b.take('k', 10, t0 + 60_000);
    expect(d).toMatchObject({ allowed: true, remaining: 0 });
    expect(b.take('k', 10, t0 + 60_500).allowed).toBe(false);
    expect(b.take('k', 10, t0 + 61_000).allowed).toBe(true);
  });
  it('peek answers as take would at the same moment, and admits nothing (not even a window)', () => {
    const b = new BurstWindows();
    const t0 = 2_000_000;
    expect(b.peek('k', 2, t0)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    expect(b.trackedKeys).toBe(0);
    b.take('k', 2, t0);
    b.take('k', 2, t0 + 10_000);
    const full = { allowed: false, retryAfter: 30, limit: 2, remaining: 0, resetSeconds: 30 };
    expect(b.peek('k', 2, t0 + 30_000)).toEqual(full);
    expect(b.peek('k', 2, t0 + 30_000)).toEqual(full);
    // A millisecond before the first request leaves the window it still holds its slot...
    expect(b.peek('k', 2, t0 + 59_999)).toEqual({ allowed: false, retryAfter: 1, limit: 2, remaining: 0, resetSeconds: 1 });
    // ...and at exactly 60 s it is gone: peek and take agree on the boundary.
    const freed = { allowed: true, limit: 2, remaining: 0, resetSeconds: 10 };
    expect(b.peek('k', 2, t0 + 60_000)).toEqual(freed);
    expect(b.take('k', 2, t0 + 60_000)).toEqual(freed);
    // Once every request is a window old, the whole limit is back.
    expect(b.peek('k', 2, t0 + 200_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    expect(b.trackedKeys).toBe(1);
  });
  it('counts per key', () => {
    const b = new BurstWindows();
    expect(b.take('a', 1, 0).allowed).toBe(true);
    expect(b.take('a', 1, 1).allowed).toBe(false);
    expect(b.take('b', 1, 1).allowed).toBe(true);
  });
});

describe('data dir', () => {
  it('flag, then PROVENANCE_DATA_DIR, then XDG_DATA_HOME, then ~/.local/share', () => {
    expect(resolveDataDir('/x/y', { PROVENANCE_DATA_DIR: '/p' }, 'linux')).toBe('/x/y');
    expect(resolveDataDir(undefined, { PROVENANCE_DATA_DIR: '/p', XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/p');
    expect(resolveDataDir(undefined, { XDG_DATA_HOME: '/xdg', HOME: '/h' }, 'linux')).toBe('/xdg/provenance');
    expect(resolveDataDir(undefined, { HOME: '/h' }, 'linux')).toBe('/h/.local/share/provenance');
    expect(resolveDataDir(undefined, { XDG_DATA_HOME: 'relative', HOME: '/h' }, 'linux')).toBe('/h/.local/share/provenance');
    expect(resolveDataDir(undefined, { HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/provenance');
  });
});
