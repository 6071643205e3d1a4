// The embedded store's journal (issue 14 §1): changes land in provenance.journal and are
// replayed at load; a torn last line is dropped; compaction keeps every change, also those made
// while it runs; every state a crash can leave in the middle of a compaction loads; and a data
// dir written before the journal existed loads unchanged with every key, upload, session and
// sign-in link working.
import { randomBytes } from 'node:crypto';
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newKeyValue, sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { JOURNAL_FILE, openStore, readStoreFiles, STORE_FILE, StoreCorruptError, type FileStore } from '../../src/daemon/store/file-store.js';
import type { StoredKey } from '../../src/daemon/store/store.js';
import { SESSION_COOKIE } from '../../src/daemon/web/sessions.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, http, listen, makeApp, tempDir, testClock } from './helpers.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dir(): string {
  const d = tempDir('prov-journal-');
  cleanups.push(d.cleanup);
  return d.dir;
}

/** What a kill -9 at this instant leaves: a copy of the data dir's files as they are on disk now. */
function crashCopy(from: string): string {
  const to = dir();
  cpSync(from, to, { recursive: true });
  return to;
}

async function open(d: string, options: Parameters<typeof openStore>[1] = {}): Promise<FileStore> {
  const store = await openStore(d, { groupMs: 0, ...options });
  return store;
}

function keyRecord(id: string, account: string, value: string, created = '2026-11-01T00:00:00.000Z'): StoredKey {
  return { id, account, name: 'k', prefix: value.slice(0, 8), sha256: sha256Hex(value), created_at: created, last_used_at: null, revoked_at: null };
}

const journalLines = (d: string) => readFileSync(join(d, JOURNAL_FILE), 'utf8').split('\n').filter(Boolean);

describe('journal', () => {
  it('holds the changes until a compaction; a reopened store replays them', async () => {
    const d = dir();
    const store = await open(d);
    await store.insertAccount({ id: 'acct_1', email: 'a@example.test', plan: 'free', created_at: '2026-11-01T00:00:00.000Z' });
    await store.insertKey(keyRecord('key_1', 'acct_1', newKeyValue()));
    for (let i = 0; i < 5; i++) await store.reserveCall('acct_1', '2026-11', 500);
    await store.releaseCall('acct_1', '2026-11');
    await store.touchKey('key_1', '2026-11-02T00:00:00.000Z');
    await store.commit();
    // The snapshot was not rewritten for these changes: they are lines of the journal.
    expect(existsSync(join(d, STORE_FILE))).toBe(false);
    expect(journalLines(d)).toHaveLength(9);

    const crashed = crashCopy(d);
    const again = await open(crashed);
    expect(await again.usage('acct_1', '2026-11')).toBe(4);
    expect((await again.keyById('key_1'))?.last_used_at).toBe('2026-11-02T00:00:00.000Z');
    expect((await again.accountByEmail('a@example.test'))?.id).toBe('acct_1');
    await again.close();
    // close folded everything into the snapshot and emptied the journal.
    expect(statSync(join(crashed, JOURNAL_FILE)).size).toBe(0);
    expect(JSON.parse(readFileSync(join(crashed, STORE_FILE), 'utf8')).usage.acct_1).toEqual({ '2026-11': 4 });
    await store.close();
  });

  it('a restored key (re-seeded fixture) is one journal line; replayed, the key is active under its name', async () => {
    const d = dir();
    const store = await open(d);
    const value = newKeyValue();
    await store.insertAccount({ id: 'acct_1', email: 'a@example.test', plan: 'free', created_at: '2026-11-01T00:00:00.000Z' });
    await store.insertKey(keyRecord('key_1', 'acct_1', value));
    await store.revokeKey('key_1', '2026-11-02T00:00:00.000Z');
    expect(await store.restoreKey('key_1', 'ci')).toMatchObject({ name: 'ci', revoked_at: null });
    await store.commit();
    expect(journalLines(d)).toHaveLength(4);
    const again = await open(crashCopy(d));
    expect(await again.keyByHash(sha256Hex(value))).toMatchObject({ id: 'key_1', name: 'ci', revoked_at: null });
    expect(await again.restoreKey('key_none', 'x')).toBeUndefined();
    await again.close();
    await store.close();
  });

  it('drops a torn last line (a kill -9 mid-append) and cuts it off before appending again', async () => {
    const d = dir();
    const store = await open(d);
    await store.reserveCall('acct_1', '2026-11', 500);
    await store.commit();
    const crashed = crashCopy(d);
    await store.close();
    appendFileSync(join(crashed, JOURNAL_FILE), '{"s":2,"o":"usage","account":"acct_1","period":"2026-11","n":2');

    const again = await open(crashed, { compactBytes: 1 << 30 });
    expect(await again.usage('acct_1', '2026-11')).toBe(1);
    // The start-up compaction runs in the background; before or after it, no torn bytes remain.
    await again.reserveCall('acct_1', '2026-11', 500);
    await again.commit();
    for (const line of journalLines(crashed)) expect(() => JSON.parse(line)).not.toThrow();
    const third = await open(crashCopy(crashed));
    expect(await third.usage('acct_1', '2026-11')).toBe(2);
    await third.close();
    await again.close();
  });

  it('refuses a journal with a bad complete line, or a change of a kind it does not know', async () => {
    const d = dir();
    writeFileSync(join(d, JOURNAL_FILE), '{"s":1,"o":"usage","account":"a","period":"p","n":1}\nnot json\n{"s":3,"o":"usage","account":"a","period":"p","n":2}\n');
    await expect(openStore(d)).rejects.toThrow(StoreCorruptError);
    writeFileSync(join(d, JOURNAL_FILE), '{"s":1,"o":"teleport","id":"x"}\n');
    await expect(openStore(d)).rejects.toThrow(/line 1 is not a store change/);
  });

  it('skips the lines a snapshot holds already, by sequence number', async () => {
    const d = dir();
    writeFileSync(
      join(d, STORE_FILE),
      JSON.stringify({ version: 1, accounts: {}, keys: {}, usage: { a: { p: 5 } }, uploads: {}, sessions: {}, signin_tokens: {}, journal_seq: 10 }),
    );
    writeFileSync(join(d, JOURNAL_FILE), '{"s":9,"o":"usage","account":"a","period":"p","n":3}\n');
    let store = await open(d);
    expect(await store.usage('a', 'p')).toBe(5);
    await store.close();
    appendFileSync(join(d, JOURNAL_FILE), '{"s":9,"o":"usage","account":"a","period":"p","n":3}\n{"s":11,"o":"usage","account":"a","period":"p","n":6}\n');
    store = await open(d);
    expect(await store.usage('a', 'p')).toBe(6);
    await store.close();
  });
});

describe('compaction', () => {
  it('writes the snapshot piece by piece, the same text JSON.stringify gives', async () => {
    const { jsonPieces } = await import('../../src/daemon/store/atomic-json-file.js');
    const records: Record<string, unknown> = {};
    for (let i = 0; i < 30_000; i++) records[`r${i}`] = { id: `r${i}`, email: `ü${i}@example.test`, n: i, gone: undefined, list: [1, 'two'] };
    const doc = { version: 1, records, empty: {}, nothing: null, skipped: undefined, journal_seq: 12 };
    const pieces: string[] = [];
    for await (const piece of jsonPieces(doc)) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(JSON.stringify(doc));
  });

  it('past the size bound: the journal stays small and every change is kept', async () => {
    const d = dir();
    const store = await open(d, { compactBytes: 2000 });
    const values: string[] = [];
    await store.insertAccount({ id: 'acct_1', email: 'a@example.test', plan: 'custom', quota: 10_000, created_at: '2026-11-01T00:00:00.000Z' });
    for (let i = 0; i < 300; i++) {
      await store.reserveCall('acct_1', '2026-11', 10_000);
      if (i % 30 === 0) {
        values.push(newKeyValue());
        await store.insertKey(keyRecord(`key_${i}`, 'acct_1', values.at(-1)!));
      }
      await store.commit();
    }
    // Let a compaction started by the last append finish.
    await store.compact();
    expect(store.compactions).toBeGreaterThan(3);
    expect(statSync(join(d, JOURNAL_FILE)).size).toBeLessThan(4000);

    const again = await open(crashCopy(d));
    expect(await again.usage('acct_1', '2026-11')).toBe(300);
    for (const value of values) expect(await again.keyByHash(sha256Hex(value))).toBeDefined();
    await again.close();
    await store.close();
  });

  it('changes made while the snapshot is written go to the new journal', async () => {
    const d = dir();
    const store = await open(d);
    // A snapshot of a few MB, so that the compaction is still writing while changes arrive.
    for (let i = 0; i < 20_000; i++) await store.insertAccount({ id: `acct_${i}`, email: `u${i}@example.test`, plan: 'free', created_at: '2026-11-01T00:00:00.000Z' });
    await store.commit();
    const compaction = store.compact();
    const during: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      await store.reserveCall('acct_7', '2026-11', 500);
      during.push(store.commit());
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all([compaction, ...during]);
    const snapshotSeq = JSON.parse(readFileSync(join(d, STORE_FILE), 'utf8')).journal_seq as number;
    // The new journal holds only lines the snapshot does not.
    for (const line of journalLines(d)) expect(JSON.parse(line).s).toBeGreaterThan(snapshotSeq);
    const again = await open(crashCopy(d));
    expect(await again.usage('acct_7', '2026-11')).toBe(50);
    expect((await again.listAccounts()).length).toBe(20_000);
    await again.close();
    await store.close();
  });

  it('records changed, added and removed while the snapshot is written piece by piece: the files hold exactly the store', async () => {
    const d = dir();
    const store = await open(d);
    for (let i = 0; i < 20_000; i++) {
      await store.insertAccount({ id: `acct_${i}`, email: `u${i}@example.test`, plan: 'free', created_at: '2026-11-01T00:00:00.000Z' });
      await store.insertKey(keyRecord(`key_${i}`, `acct_${i}`, `value${i}`));
      await store.insertSession({ sha256: `s${i}`, account: `acct_${i}`, created_at: '2026-11-01T00:00:00.000Z', expires_at: i % 2 ? '2026-11-02T00:00:00.000Z' : '2027-01-01T00:00:00.000Z' });
      await store.reserveCall(`acct_${i}`, '2026-11', 500);
    }
    await store.commit();
    const compaction = store.compact();
    let writesDuring = 0;
    let step = 0;
    const changes = (async () => {
      // Changes to records at the start, middle and end of each collection, while it is written.
      for (let round = 0; step < 400 && round < 400; round++) {
        for (const i of [step, 10_000 + step, 19_999 - step]) {
          await store.touchKey(`key_${i}`, `2026-11-20T00:00:${String(round % 60).padStart(2, '0')}.000Z`);
          if (i % 3 === 0) await store.revokeKey(`key_${i}`, '2026-11-21T00:00:00.000Z');
          await store.reserveCall(`acct_${i}`, '2026-11', 500);
          await store.deleteSession(`s${i}`);
          await store.insertKey(keyRecord(`key_new${round}_${i}`, `acct_${i}`, `new${round}_${i}`));
        }
        await store.setAccountPlan(`acct_${step}`, { plan: 'custom', quota: 1000 + step });
        await store.commit();
        writesDuring++;
        step++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    await compaction;
    const stepsBeforeEnd = step;
    await changes;
    // The changes interleaved with the snapshot's write, not only before or after it.
    expect(stepsBeforeEnd).toBeGreaterThan(0);
    expect(stepsBeforeEnd).toBeLessThan(400);
    await store.deleteExpiredSessions(Date.parse('2026-12-01T00:00:00Z'));
    await store.commit();
    const crashed = crashCopy(d);
    await store.close();
    // After close the snapshot is the exact in-memory state; a kill -9 before it loads the same.
    const exact = readStoreFiles(d);
    const replayed = readStoreFiles(crashed);
    delete exact.journal_seq;
    delete replayed.journal_seq;
    expect(replayed).toEqual(exact);
    expect(writesDuring).toBe(400);
  });

  it('every state a crash can leave during a compaction loads with every change', async () => {
    const d = dir();
    const store = await open(d);
    const value = newKeyValue();
    await store.insertAccount({ id: 'acct_1', email: 'a@example.test', plan: 'free', created_at: '2026-11-01T00:00:00.000Z' });
    await store.insertKey(keyRecord('key_1', 'acct_1', value));
    for (let i = 0; i < 7; i++) await store.reserveCall('acct_1', '2026-11', 500);
    await store.commit();
    const beforeCompaction = crashCopy(d);
    await store.compact();
    const afterCompaction = crashCopy(d);

    const check = async (crashed: string) => {
      const s = await open(crashed);
      expect(await s.usage('acct_1', '2026-11')).toBe(7);
      expect((await s.keyByHash(sha256Hex(value)))?.id).toBe('key_1');
      await s.close();
      expect(readStoreFiles(crashed).usage.acct_1).toEqual({ '2026-11': 7 });
    };

    // 1. Killed while writing the snapshot's temp file: the old snapshot (none) and the whole journal.
    const duringSnapshot = crashCopy(beforeCompaction);
    writeFileSync(join(duringSnapshot, `.${STORE_FILE}.4242.tmp`), '{"version":1,"accounts":{"acct_');
    await check(duringSnapshot);
    expect(existsSync(join(duringSnapshot, `.${STORE_FILE}.4242.tmp`))).toBe(false);

    // 2. Killed after the snapshot's rename, before the journal was replaced: a new snapshot
    //    and the old journal, every line of which it holds already.
    const afterRename = crashCopy(beforeCompaction);
    copyFileSync(join(afterCompaction, STORE_FILE), join(afterRename, STORE_FILE));
    expect(journalLines(afterRename).length).toBe(9);
    await check(afterRename);

    // 3. Killed while writing the journal's replacement: its temp file is garbage.
    const duringSwap = crashCopy(afterRename);
    writeFileSync(join(duringSwap, `.${JOURNAL_FILE}.tmp`), '{"s":1');
    await check(duringSwap);
    expect(existsSync(join(duringSwap, `.${JOURNAL_FILE}.tmp`))).toBe(false);

    // 4. After the compaction: the new snapshot and an empty journal.
    expect(statSync(join(afterCompaction, JOURNAL_FILE)).size).toBe(0);
    await check(afterCompaction);
    await store.close();
  });
});

describe('a data dir written before the journal existed', () => {
  it('loads unchanged and keeps every key, upload, session and sign-in link working', async () => {
    const d = dir();
    const active = newKeyValue();
    const second = newKeyValue();
    const revoked = newKeyValue();
    // A dashboard session's cookie value and a sign-in link's token, as that version made them
    // (32 random bytes, base64url); the store kept only their SHA-256.
    const sessionToken = randomBytes(32).toString('base64url');
    const linkToken = randomBytes(32).toString('base64url');
    const jpeg = tinyJpeg();
    // An upload id as that version made them (newId('upl'): 24 base62 characters).
    const uploadId = 'upl_4f9cA7e1b8d3c6a5e0f2b1dQ';
    // provenance.json exactly as the version before the journal wrote it (src/daemon/store.ts at
    // b589efc^: JSON.stringify of { version, accounts, keys, usage, uploads, sessions,
    // signin_tokens }): no journal_seq, no journal file. An upload's bytes were a file named by
    // its record's `file` in the data dir's uploads folder.
    const old = {
      version: 1,
      accounts: {
        acct_old1: { id: 'acct_old1', email: 'old@example.test', plan: 'custom', quota: 1000, created_at: '2026-10-02T08:00:00.000Z' },
        acct_old2: { id: 'acct_old2', email: 'müller@example.test', plan: 'free', created_at: '2026-10-03T08:00:00.000Z' },
      },
      keys: {
        key_a: { ...keyRecord('key_a', 'acct_old1', active, '2026-10-02T08:00:00.000Z'), last_used_at: '2026-11-10T10:00:00.000Z' },
        key_b: keyRecord('key_b', 'acct_old2', second, '2026-10-03T08:00:00.000Z'),
        key_c: { ...keyRecord('key_c', 'acct_old1', revoked, '2026-10-04T08:00:00.000Z'), revoked_at: '2026-10-05T08:00:00.000Z' },
      },
      usage: { acct_old1: { '2026-10': 900, '2026-11': 7 }, acct_old2: { '2026-11': 3 } },
      uploads: {
        [uploadId]: {
          id: uploadId,
          account: 'acct_old1',
          bytes: jpeg.length,
          sha256: sha256Hex(jpeg),
          type: 'image/jpeg',
          created_at: '2026-11-15T08:00:00.000Z',
          expires_at: '2026-11-16T08:00:00.000Z',
          file: uploadId,
        },
      },
      sessions: {
        [sha256Hex(sessionToken)]: {
          sha256: sha256Hex(sessionToken),
          account: 'acct_old1',
          created_at: '2026-11-15T06:00:00.000Z',
          expires_at: '2026-11-15T18:00:00.000Z',
        },
      },
      signin_tokens: {
        [sha256Hex(linkToken)]: {
          sha256: sha256Hex(linkToken),
          email: 'müller@example.test',
          next: '/dashboard',
          created_at: '2026-11-15T11:55:00.000Z',
          expires_at: '2026-11-15T12:10:00.000Z',
          used_at: null,
        },
      },
    };
    writeFileSync(join(d, STORE_FILE), JSON.stringify(old), { mode: 0o600 });
    mkdirSync(join(d, 'uploads'), { mode: 0o700 });
    writeFileSync(join(d, 'uploads', uploadId), jpeg, { mode: 0o600 });

    const t = await makeApp({ now: testClock('2026-11-15T12:00:00Z'), store: { durable: true, groupMs: 0 } }, d);
    const base = await listen(t.app);
    const body = JSON.stringify({ media: b64(jpeg) });
    const detect = (key: string) => http(base, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json' } });
    const a = await detect(active);
    expect(a.status).toBe(200);
    expect(a.headers['x-quota-used']).toBe('8');
    expect(a.headers['x-quota-limit']).toBe('1000');
    const b = await detect(second);
    expect(b.status).toBe(200);
    expect(b.headers['x-quota-used']).toBe('4');
    expect((await detect(revoked)).status).toBe(401);

    // The upload, by its id, through its account's key: its bytes from the old uploads folder.
    const fromUpload = await http(base, 'POST', '/v1/detect', { key: active, json: { upload: uploadId } });
    expect(fromUpload.status).toBe(200);
    expect(fromUpload.body.media.sha256).toBe(sha256Hex(jpeg));
    expect(fromUpload.headers['x-quota-used']).toBe('9');
    const page = (cookie: string) => fetch(`${base}/dashboard`, { headers: { cookie: `${SESSION_COOKIE}=${cookie}` }, redirect: 'manual' });

    // The session: its cookie opens that account's dashboard.
    const dashboard = await page(sessionToken);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('old@example.test');

    // The sign-in link: used once (its page's button: a POST with the page's CSRF token), it
    // signs in to its account and goes where it said; twice, it is "already used".
    expect((await fetch(`${base}/signin/verify?token=${linkToken}`, { redirect: 'manual' })).status).toBe(200);
    const csrf = 'C'.repeat(43);
    const verify = () =>
      fetch(`${base}/signin/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `prv_csrf=${csrf}` },
        body: new URLSearchParams({ token: linkToken, csrf }).toString(),
        redirect: 'manual',
      });
    const first = await verify();
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/dashboard');
    const cookie = /^prv_session=([A-Za-z0-9_-]{43});/.exec(first.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? '')?.[1];
    expect(cookie).toBeDefined();
    const signedIn = await page(cookie!);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).toContain('müller@example.test');
    expect((await verify()).status).toBe(410);
    await t.close();

    // The snapshot is the old document plus the calls, the new session, the link's use and
    // journal_seq; the journal is empty; the upload's file is where it was.
    const now = JSON.parse(readFileSync(join(d, STORE_FILE), 'utf8'));
    expect(now.usage).toEqual({ acct_old1: { '2026-10': 900, '2026-11': 9 }, acct_old2: { '2026-11': 4 } });
    expect(now.accounts).toEqual(old.accounts);
    expect(now.keys.key_c).toEqual(old.keys.key_c);
    expect(now.uploads).toEqual(old.uploads);
    expect(readFileSync(join(d, 'uploads', uploadId))).toEqual(Buffer.from(jpeg));
    expect(now.sessions[sha256Hex(sessionToken)]).toEqual(old.sessions[sha256Hex(sessionToken)]);
    expect(now.sessions[sha256Hex(cookie!)].account).toBe('acct_old2');
    expect(now.signin_tokens[sha256Hex(linkToken)]).toEqual({ ...old.signin_tokens[sha256Hex(linkToken)], used_at: '2026-11-15T12:00:00.000Z' });
    expect(now.journal_seq).toBeGreaterThan(0);
    expect(statSync(join(d, JOURNAL_FILE)).size).toBe(0);
  });
});

describe('PROVENANCE_STORE_COMPACT_BYTES', () => {
  it('a bound that is not a whole number of bytes is a usage error, before anything starts', async () => {
    const { runCli } = await import('../helpers/run-cli.js');
    const d = dir();
    const r = await runCli(['daemon', 'start', '--port', '0', '--data-dir', d], undefined, { PROVENANCE_STORE_COMPACT_BYTES: '4k' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('provenance: PROVENANCE_STORE_COMPACT_BYTES must be a whole number of bytes above 0, not "4k"\n');
    expect(existsSync(join(d, STORE_FILE))).toBe(false);
    expect(existsSync(join(d, JOURNAL_FILE))).toBe(false);
  });
});
