// The embedded store's document (the snapshot file's layout) and the small changes its journal
// records. Every change the file store makes is one `StoreChange` applied by `applyChange`, both
// live and when the journal is replayed at start, so the two can never disagree.
//
// Each change sets a record (or a counter) to its new value, or deletes a record: applying one
// twice leaves the same document as applying it once. Replaying a journal line whose change the
// snapshot holds already (a compaction cut short between writing the snapshot and truncating the
// journal) is therefore harmless, and the sequence numbers skip such lines anyway.
import type { AccountRecord } from '../contract/api-types.js';
import type { StoredKey, StoredSession, StoredSigninToken, StoredUpload } from './store.js';

/** The snapshot's layout (version 1; `journal_seq` was added with the journal and is optional). */
export interface StoreData {
  version: 1;
  accounts: Record<string, AccountRecord>;
  keys: Record<string, StoredKey>;
  /** API calls per account per UTC month: usage[accountId]['2026-11'] = 42. */
  usage: Record<string, Record<string, number>>;
  uploads: Record<string, StoredUpload>;
  sessions: Record<string, StoredSession>;
  signin_tokens: Record<string, StoredSigninToken>;
  /**
   * The sequence number of the last journal change this snapshot holds; journal lines up to it
   * are skipped at load. Absent in files written before the journal existed (read as 0).
   */
  journal_seq?: number;
}

/**
 * A map keyed by ids and hashes, without a prototype: `__proto__` or `constructor` as a key is
 * an ordinary entry (an import refuses such ids anyway), never Object.prototype or its
 * constructor, so a lookup of such an id finds nothing and a write never reaches the prototype.
 */
export function dictionary<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const map = Object.create(null) as Record<string, T>;
  for (const [k, v] of entries) map[k] = v;
  return map;
}

export function emptyData(): StoreData {
  return { version: 1, accounts: dictionary(), keys: dictionary(), usage: dictionary(), uploads: dictionary(), sessions: dictionary(), signin_tokens: dictionary() };
}

/** A document as read from its file (plain JSON objects), with every map made a `dictionary`. */
export function withDictionaries(data: StoreData): StoreData {
  const own = <T>(map: Record<string, T> | undefined) => dictionary(Object.entries(map ?? {}));
  const usage = dictionary(Object.entries(data.usage ?? {}).map(([account, periods]) => [account, own(periods)] as const));
  return { ...data, accounts: own(data.accounts), keys: own(data.keys), usage, uploads: own(data.uploads), sessions: own(data.sessions), signin_tokens: own(data.signin_tokens) };
}

/** One change, as a journal line carries it (with its sequence number `s`). */
export type StoreChange =
  | { o: 'account'; account: AccountRecord }
  | { o: 'plan'; id: string; plan: AccountRecord['plan']; quota?: number }
  | { o: 'key'; key: StoredKey }
  | { o: 'revoke'; id: string; at: string }
  | { o: 'touch'; id: string; at: string }
  /** The account's usage in the period is now `n` (an absolute value: replay is idempotent). */
  | { o: 'usage'; account: string; period: string; n: number }
  | { o: 'upload'; upload: StoredUpload }
  | { o: 'upload-'; id: string }
  | { o: 'session'; session: StoredSession }
  | { o: 'session-'; sha256: string }
  | { o: 'token'; token: StoredSigninToken }
  | { o: 'token-'; sha256: string };

export type JournalLine = StoreChange & { s: number };

const CHANGE_KINDS = new Set<string>(['account', 'plan', 'key', 'revoke', 'touch', 'usage', 'upload', 'upload-', 'session', 'session-', 'token', 'token-']);

/** A parsed journal line of a kind this version knows, with a sequence number. */
export function isJournalLine(value: unknown): value is JournalLine {
  if (typeof value !== 'object' || value === null) return false;
  const line = value as { s?: unknown; o?: unknown };
  return Number.isSafeInteger(line.s) && typeof line.o === 'string' && CHANGE_KINDS.has(line.o);
}

/** Applies one change to the document, in place; returns the key record it added, if any. */
export function applyChange(data: StoreData, change: StoreChange): StoredKey | undefined {
  switch (change.o) {
    case 'account':
      data.accounts[change.account.id] = { ...change.account };
      return undefined;
    case 'plan': {
      const account = data.accounts[change.id];
      if (account) {
        account.plan = change.plan;
        if (change.quota === undefined) delete account.quota;
        else account.quota = change.quota;
      }
      return undefined;
    }
    case 'key': {
      const key = { ...change.key };
      data.keys[key.id] = key;
      return key;
    }
    case 'revoke': {
      const key = data.keys[change.id];
      if (key) key.revoked_at ??= change.at;
      return undefined;
    }
    case 'touch': {
      const key = data.keys[change.id];
      if (key) key.last_used_at = change.at;
      return undefined;
    }
    case 'usage':
      (data.usage[change.account] ??= dictionary())[change.period] = change.n;
      return undefined;
    case 'upload':
      data.uploads[change.upload.id] = { ...change.upload };
      return undefined;
    case 'upload-':
      delete data.uploads[change.id];
      return undefined;
    case 'session':
      data.sessions[change.session.sha256] = { ...change.session };
      return undefined;
    case 'session-':
      delete data.sessions[change.sha256];
      return undefined;
    case 'token':
      data.signin_tokens[change.token.sha256] = { ...change.token };
      return undefined;
    case 'token-':
      delete data.signin_tokens[change.sha256];
      return undefined;
  }
}
