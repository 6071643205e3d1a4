// The embedded store's document and the changes its journal carries (store-document.ts), as pure
// functions (issue 18): which parsed lines are store changes, and exactly what each kind of
// change does to the document, including a change aimed at a record that is not there (a replay
// after the record was deleted) and a change applied twice.
import { describe, expect, it } from 'vitest';
import { applyChange, emptyData, isJournalLine, type StoreChange, type StoreData } from '../../src/daemon/store/store-document.js';
import type { StoredKey, StoredSession, StoredSigninToken, StoredUpload } from '../../src/daemon/store/store.js';

const KINDS = ['account', 'plan', 'key', 'revoke', 'touch', 'usage', 'upload', 'upload-', 'session', 'session-', 'token', 'token-'] as const;

const key = (id: string): StoredKey => ({
  id,
  account: 'acct_1',
  name: 'k',
  prefix: 'prv_abcd',
  sha256: `hash-${id}`,
  created_at: '2026-11-01T00:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
});
const upload: StoredUpload = {
  id: 'upl_1',
  account: 'acct_1',
  bytes: 3,
  sha256: 'u'.repeat(64),
  type: 'image/jpeg',
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: '2026-11-02T00:00:00.000Z',
  file: 'upl_1',
};
const session: StoredSession = { sha256: 's'.repeat(64), account: 'acct_1', created_at: '2026-11-01T00:00:00.000Z', expires_at: '2026-11-01T12:00:00.000Z' };
const token: StoredSigninToken = {
  sha256: 't'.repeat(64),
  email: 'a@example.test',
  next: '/dashboard',
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: '2026-11-01T00:15:00.000Z',
  used_at: null,
};

/** A document with one account (custom plan) and one key, as a snapshot could hold it. */
function doc(): StoreData {
  const data = emptyData();
  data.accounts.acct_1 = { id: 'acct_1', email: 'a@example.test', plan: 'custom', quota: 5000, created_at: '2026-11-01T00:00:00.000Z' };
  data.keys.key_1 = key('key_1');
  return data;
}

/** Applies each change to `data` and returns the document (changes that add a key return it). */
function apply(data: StoreData, ...changes: StoreChange[]): StoreData {
  for (const change of changes) applyChange(data, change);
  return data;
}

describe('isJournalLine', () => {
  it('accepts a line of every kind this version writes, with a whole sequence number', () => {
    for (const o of KINDS) expect(isJournalLine({ s: 1, o }), o).toBe(true);
    expect(isJournalLine({ s: 0, o: 'usage', account: 'a', period: 'p', n: 1 })).toBe(true);
    expect(isJournalLine({ s: Number.MAX_SAFE_INTEGER, o: 'token-' })).toBe(true);
  });

  it('refuses what is not an object: null, undefined, numbers, strings, booleans', () => {
    for (const value of [null, undefined, 1, 'usage', true]) expect(isJournalLine(value), String(value)).toBe(false);
  });

  it('refuses a line without a whole, safe sequence number, even of a known kind', () => {
    for (const s of [undefined, '1', 1.5, -Infinity, Number.MAX_SAFE_INTEGER + 1, null]) {
      expect(isJournalLine({ s, o: 'usage', account: 'a', period: 'p', n: 1 }), String(s)).toBe(false);
    }
    expect(isJournalLine({ o: 'session' })).toBe(false);
  });

  it('refuses a kind this version does not know, or a kind that is not a string', () => {
    for (const o of ['teleport', '', 'Usage', 'token--', 'session-x', undefined, 1, ['usage']]) {
      expect(isJournalLine({ s: 1, o }), String(o)).toBe(false);
    }
  });
});

describe('applyChange', () => {
  it('account: adds or replaces the record, as a copy of the change', () => {
    const account = { id: 'acct_2', email: 'b@example.test', plan: 'free' as const, created_at: '2026-11-02T00:00:00.000Z' };
    const change: StoreChange = { o: 'account', account };
    const data = doc();
    expect(applyChange(data, change)).toBeUndefined();
    expect(data.accounts.acct_2).toEqual(account);
    expect(data.accounts.acct_2).not.toBe(account);
  });

  it('plan: sets the plan and the quota, or drops the quota when the change has none', () => {
    const data = doc();
    expect(applyChange(data, { o: 'plan', id: 'acct_1', plan: 'custom', quota: 7 })).toBeUndefined();
    expect(data.accounts.acct_1).toEqual({ id: 'acct_1', email: 'a@example.test', plan: 'custom', quota: 7, created_at: '2026-11-01T00:00:00.000Z' });
    applyChange(data, { o: 'plan', id: 'acct_1', plan: 'starter' });
    expect(data.accounts.acct_1).toEqual({ id: 'acct_1', email: 'a@example.test', plan: 'starter', created_at: '2026-11-01T00:00:00.000Z' });
    expect('quota' in data.accounts.acct_1!).toBe(false);
    // A quota of 0 is a quota, not "none".
    applyChange(data, { o: 'plan', id: 'acct_1', plan: 'custom', quota: 0 });
    expect(data.accounts.acct_1).toMatchObject({ plan: 'custom', quota: 0 });
  });

  it('plan, revoke, touch of a record that is not there change nothing', () => {
    const data = doc();
    const before = structuredClone(data);
    apply(
      data,
      { o: 'plan', id: 'acct_none', plan: 'growth', quota: 1 },
      { o: 'revoke', id: 'key_none', at: '2026-11-03T00:00:00.000Z' },
      { o: 'touch', id: 'key_none', at: '2026-11-03T00:00:00.000Z' },
    );
    expect(data).toEqual(before);
  });

  it('key: adds the record and returns it (the store indexes it by hash)', () => {
    const data = doc();
    const record = key('key_2');
    const added = applyChange(data, { o: 'key', key: record });
    expect(added).toEqual(record);
    expect(added).not.toBe(record);
    expect(data.keys.key_2).toBe(added);
  });

  it('revoke keeps the first revocation time; touch sets the last use', () => {
    const data = doc();
    apply(data, { o: 'revoke', id: 'key_1', at: '2026-11-03T00:00:00.000Z' }, { o: 'revoke', id: 'key_1', at: '2026-11-04T00:00:00.000Z' });
    expect(data.keys.key_1!.revoked_at).toBe('2026-11-03T00:00:00.000Z');
    apply(data, { o: 'touch', id: 'key_1', at: '2026-11-05T00:00:00.000Z' }, { o: 'touch', id: 'key_1', at: '2026-11-06T00:00:00.000Z' });
    expect(data.keys.key_1).toEqual({ ...key('key_1'), revoked_at: '2026-11-03T00:00:00.000Z', last_used_at: '2026-11-06T00:00:00.000Z' });
  });

  it('usage: sets the absolute count of one account and period', () => {
    const data = apply(doc(), { o: 'usage', account: 'acct_1', period: '2026-11', n: 3 }, { o: 'usage', account: 'acct_1', period: '2026-10', n: 9 });
    apply(data, { o: 'usage', account: 'acct_1', period: '2026-11', n: 2 }, { o: 'usage', account: 'acct_2', period: '2026-11', n: 1 });
    expect(data.usage).toEqual({ acct_1: { '2026-11': 2, '2026-10': 9 }, acct_2: { '2026-11': 1 } });
  });

  it('upload, session, token: add a copy under their id or hash; their "-" kinds delete it', () => {
    const data = doc();
    apply(data, { o: 'upload', upload }, { o: 'session', session }, { o: 'token', token });
    expect(data.uploads).toEqual({ upl_1: upload });
    expect(data.sessions).toEqual({ [session.sha256]: session });
    expect(data.signin_tokens).toEqual({ [token.sha256]: token });
    expect(data.uploads.upl_1).not.toBe(upload);
    expect(data.sessions[session.sha256]).not.toBe(session);
    expect(data.signin_tokens[token.sha256]).not.toBe(token);
    // A token's use is the whole record again, with used_at set.
    applyChange(data, { o: 'token', token: { ...token, used_at: '2026-11-01T00:05:00.000Z' } });
    expect(data.signin_tokens[token.sha256]!.used_at).toBe('2026-11-01T00:05:00.000Z');

    apply(data, { o: 'upload-', id: 'upl_1' }, { o: 'session-', sha256: session.sha256 }, { o: 'token-', sha256: token.sha256 });
    expect(data).toEqual(doc());
    // Deleting what is gone already (a replayed line) changes nothing.
    apply(data, { o: 'upload-', id: 'upl_1' }, { o: 'session-', sha256: session.sha256 }, { o: 'token-', sha256: token.sha256 });
    expect(data).toEqual(doc());
  });

  it('each kind deletes only its own record, not another kind keyed the same', () => {
    // One string as an upload id and as a session's and a token's hash.
    const id = 'same';
    const data = doc();
    apply(data, { o: 'upload', upload: { ...upload, id } }, { o: 'session', session: { ...session, sha256: id } }, { o: 'token', token: { ...token, sha256: id } });
    applyChange(data, { o: 'session-', sha256: id });
    expect(Object.keys(data.uploads)).toEqual([id]);
    expect(data.sessions).toEqual({});
    expect(Object.keys(data.signin_tokens)).toEqual([id]);
    applyChange(data, { o: 'token-', sha256: id });
    expect(data.signin_tokens).toEqual({});
    expect(Object.keys(data.uploads)).toEqual([id]);
  });

  it('every change applied twice leaves the document it left once (replay is idempotent)', () => {
    const changes: StoreChange[] = [
      { o: 'account', account: { id: 'acct_2', email: 'b@example.test', plan: 'free', created_at: '2026-11-02T00:00:00.000Z' } },
      { o: 'plan', id: 'acct_1', plan: 'growth' },
      { o: 'key', key: key('key_2') },
      { o: 'revoke', id: 'key_2', at: '2026-11-03T00:00:00.000Z' },
      { o: 'touch', id: 'key_1', at: '2026-11-04T00:00:00.000Z' },
      { o: 'usage', account: 'acct_1', period: '2026-11', n: 4 },
      { o: 'upload', upload },
      { o: 'session', session },
      { o: 'token', token },
      { o: 'upload-', id: 'upl_1' },
      { o: 'session-', sha256: session.sha256 },
    ];
    const once = apply(doc(), ...changes);
    const twice = apply(doc(), ...changes.flatMap((c) => [c, c]));
    expect(twice).toEqual(once);
    expect(once.signin_tokens).toEqual({ [token.sha256]: token });
  });
});
