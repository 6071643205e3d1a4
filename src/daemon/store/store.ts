// The store seam: every route and admin command reads and changes the daemon's state through
// this one interface, never through an implementation's data. Reserving a counted call and the
// burst check are methods here, not read-then-write in the callers, so each implementation can
// make them atomic where its data lives (the embedded file store in its process; a database in
// one statement).
//
// Durability: a change is on disk (or in the database) once a `commit()` that started after it
// resolves. Callers that must not lose a change (a counted call before its 200, a new key before
// it is shown) await `commit()`; an implementation that writes through may resolve it at once.
import type { AccountRecord } from '../contract/api-types.js';

export interface StoredKey {
  id: string;
  account: string;
  name: string;
  prefix: string;
  sha256: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface StoredUpload {
  id: string;
  account: string;
  bytes: number;
  sha256: string;
  type: string;
  created_at: string;
  expires_at: string;
  /** The name its bytes are kept under (a file in the data dir's uploads folder, embedded store). */
  file: string;
}

/** An account's live uploads (those not expired) at a moment. */
export interface LiveUploads {
  count: number;
  bytes: number;
  /** When the oldest of them expires (ms since the epoch); undefined when there is none. */
  oldestExpiresMs: number | undefined;
}

/** The most one account may keep in live uploads (CONTRACT "Keys, accounts, uploads"). */
export interface UploadCaps {
  maxCount: number;
  maxBytes: number;
  /** Live means expiring after this instant (ms since the epoch): an expired record not yet swept is not counted. */
  nowMs: number;
}

/** Whether one more upload of `bytes` would take an account with these live uploads past the caps. */
export function exceedsUploadCaps(live: LiveUploads, bytes: number, caps: Pick<UploadCaps, 'maxCount' | 'maxBytes'>): boolean {
  return live.count + 1 > caps.maxCount || live.bytes + bytes > caps.maxBytes;
}

/** What `insertUpload` did: stored, or refused with the account's live uploads as they stood. */
export type UploadAdmission = { stored: true } | { stored: false; live: LiveUploads };

/** A dashboard session, keyed by the SHA-256 of its cookie value (the value itself is never kept). */
export interface StoredSession {
  sha256: string;
  account: string;
  created_at: string;
  expires_at: string;
}

/** A sign-in link's token, keyed by its SHA-256; kept after use (until swept) to say "already used". */
export interface StoredSigninToken {
  sha256: string;
  email: string;
  /** Where to go after signing in (a checked local path). */
  next: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface BurstState {
  limit: number;
  remaining: number;
  /** Whole seconds until the oldest request in the window leaves it (a slot frees), >= 0. */
  resetSeconds: number;
}

export type BurstDecision = ({ allowed: true } | { allowed: false; retryAfter: number }) & BurstState;

/** The outcome of using a sign-in token up: at most one caller ever gets `ok`. */
export type TokenUse =
  | { ok: true; record: StoredSigninToken }
  | { ok: false; problem: 'unknown' }
  | { ok: false; problem: 'used' | 'expired'; record: StoredSigninToken };

/**
 * The whole state as one versioned JSON document (`provenance daemon export|import`): key
 * hashes, never keys. Every list is sorted (accounts, keys, uploads by id; sessions and tokens by
 * hash; usage by account then period), so one state always exports to the same bytes and a
 * round trip (export, import, export) is exact whichever store produced it.
 */
export interface StoreSnapshot {
  format: typeof STORE_SNAPSHOT_FORMAT;
  version: typeof STORE_SNAPSHOT_VERSION;
  accounts: AccountRecord[];
  keys: StoredKey[];
  /** Counted calls per account per quota period (`YYYY-MM`). */
  usage: UsageRow[];
  uploads: StoredUpload[];
  sessions: StoredSession[];
  signin_tokens: StoredSigninToken[];
}

export interface UsageRow {
  account: string;
  period: string;
  calls: number;
}

export const STORE_SNAPSHOT_FORMAT = 'provenance-daemon-state';
export const STORE_SNAPSHOT_VERSION = 1;

/** Puts a snapshot's lists in their canonical order (implementations export through this). */
export function sortSnapshot(s: StoreSnapshot): StoreSnapshot {
  const by = <T>(key: (t: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return {
    format: STORE_SNAPSHOT_FORMAT,
    version: STORE_SNAPSHOT_VERSION,
    accounts: [...s.accounts].sort(by((a) => a.id)),
    keys: [...s.keys].sort(by((k) => k.id)),
    usage: [...s.usage].sort(by((u) => `${u.account}\u0000${u.period}`)),
    uploads: [...s.uploads].sort(by((u) => u.id)),
    sessions: [...s.sessions].sort(by((x) => x.sha256)),
    signin_tokens: [...s.signin_tokens].sort(by((t) => t.sha256)),
  };
}
/** The store did not answer (a database down or restarting): the request fails, nothing is assumed. */
export class StoreUnavailableError extends Error {}

/** An account with that e-mail address exists already (addresses are unique). */
export class StoreConflictError extends Error {}

export interface Store {
  /** Where the state lives, for messages: a file path, or a database URL without its password. */
  readonly location: string;

  // Accounts
  /** Adds an account; StoreConflictError when its e-mail address is taken. */
  insertAccount(account: AccountRecord): Promise<void>;
  /** Changes an account's plan (and custom quota); undefined when there is no such account. */
  setAccountPlan(id: string, plan: Pick<AccountRecord, 'plan' | 'quota'>): Promise<AccountRecord | undefined>;
  accountById(id: string): Promise<AccountRecord | undefined>;
  /** By normalised (trimmed, lower-case) address. */
  accountByEmail(email: string): Promise<AccountRecord | undefined>;
  listAccounts(): Promise<AccountRecord[]>;

  // Keys (only their SHA-256 is ever stored)
  /**
   * Adds a key. With `maxActive`, only if its account has fewer active (not revoked) keys than
   * that, checked and added atomically (concurrent creates of one account never pass the limit
   * together); false when refused, nothing stored.
   */
  insertKey(key: StoredKey, maxActive?: number): Promise<boolean>;
  keyById(id: string): Promise<StoredKey | undefined>;
  keyByHash(sha256: string): Promise<StoredKey | undefined>;
  /** All keys, or one account's, oldest first. */
  listKeys(accountId?: string): Promise<StoredKey[]>;
  /** Marks a key revoked (a second revocation keeps the first time); undefined when unknown. */
  revokeKey(id: string, at: string): Promise<StoredKey | undefined>;
  /** Records a key's last use: informational, so callers need not await a commit for it. */
  touchKey(id: string, at: string): Promise<void>;
  /** Makes a key active again under `name` (a re-seeded fixture wins over a test's changes); undefined when unknown. */
  restoreKey(id: string, name: string): Promise<StoredKey | undefined>;

  // Counted calls per account per quota period (a UTC month, `YYYY-MM`)
  usage(accountId: string, period: string): Promise<number>;
  /** Takes one call if fewer than `limit` are used: the usage including it, else undefined. */
  reserveCall(accountId: string, period: string, limit: number): Promise<number | undefined>;
  /** Gives back one reserved call. */
  releaseCall(accountId: string, period: string): Promise<void>;
  /** Sets an account's count for a period outright (fixtures: "calls already used this month"). */
  setUsage(accountId: string, period: string, calls: number): Promise<void>;

  // Burst: a sliding 60 s window of requests per key
  /** Admits one request into the key's window unless `limit` are in it already. */
  takeBurst(keyId: string, limit: number, nowMs: number): Promise<BurstDecision>;
  /**
   * What `takeBurst` would answer at `nowMs`, without admitting the request into the window
   * (test mode's forced answers count nothing, yet a key really over its limit is refused).
   */
  peekBurst(keyId: string, limit: number, nowMs: number): Promise<BurstDecision>;
  /** Forgets windows idle for a whole window. */
  sweepBurst(nowMs: number): Promise<void>;

  // Uploads: records, and their bytes (files in the data dir, or rows every daemon reaches)
  /**
   * Adds an upload record. With `caps`, only if its account's live uploads, this one included,
   * stay within them: counted and added atomically (concurrent uploads of one account, through
   * any daemon on the store, never pass the caps together); refused, nothing is stored.
   */
  insertUpload(upload: StoredUpload, caps?: UploadCaps): Promise<UploadAdmission>;
  /** An account's live uploads at `nowMs` (a quick look before an upload is streamed; not a reservation). */
  liveUploads(accountId: string, nowMs: number): Promise<LiveUploads>;
  /** Keeps the bytes of upload `id` (inserted just before) from a complete temp file, which it takes over. */
  putUploadBytes(id: string, tempFile: string): Promise<void>;
  /** An upload's bytes; undefined when they are gone. */
  readUploadBytes(upload: StoredUpload): Promise<Uint8Array | undefined>;
  /** Removes the bytes of an upload whose record is gone (takeExpiredUploads). */
  deleteUploadBytes(upload: StoredUpload): Promise<void>;
  uploadById(id: string): Promise<StoredUpload | undefined>;
  /** Removes one upload's record (an upload whose bytes or record could not be stored whole). */
  deleteUpload(id: string): Promise<void>;
  /** Removes the records expired at `nowMs` and returns them (their files are the caller's). */
  takeExpiredUploads(nowMs: number): Promise<StoredUpload[]>;
  /** The file names every live record points to. */
  uploadFiles(): Promise<Set<string>>;
  /** Live uploads over every account at `nowMs` (the daemon's /metrics gauges; one read per scrape). */
  liveUploadTotals(nowMs: number): Promise<{ count: number; bytes: number }>;

  // Dashboard sessions
  insertSession(session: StoredSession): Promise<void>;
  sessionByHash(sha256: string): Promise<StoredSession | undefined>;
  /** True when there was such a session. */
  deleteSession(sha256: string): Promise<boolean>;
  /** Removes sessions expired at `nowMs`; how many went. */
  deleteExpiredSessions(nowMs: number): Promise<number>;

  // Sign-in tokens
  insertSigninToken(token: StoredSigninToken): Promise<void>;
  /** A token's record as it is (used or not), without using it up: the link's confirmation page. */
  signinTokenByHash(sha256: string): Promise<StoredSigninToken | undefined>;
  /** Uses a token up at `at`, atomically: of two callers racing with one token, one gets ok. */
  useSigninToken(sha256: string, at: Date): Promise<TokenUse>;
  /** Removes tokens that expired before `cutoffMs`; how many went. */
  deleteSigninTokensExpiredBefore(cutoffMs: number): Promise<number>;

  // The whole state (test mode's export, import and reset; issue 15)
  /** Everything the store holds except burst windows (in-memory, short-lived), sorted (sortSnapshot). */
  exportState(): Promise<StoreSnapshot>;
  /** Replaces the whole state with a (checked) snapshot, and forgets every burst window. */
  importState(snapshot: StoreSnapshot): Promise<void>;
  /**
   * Removes usage, upload records, sessions, sign-in tokens and burst windows; accounts and keys
   * too unless `keepAccounts`. Returns the upload records removed (their files are the caller's).
   */
  reset(options: { keepAccounts: boolean }): Promise<StoredUpload[]>;

  /** Whether the store answers (for /healthz); absent on a store that cannot be unreachable. */
  healthy?(): Promise<boolean>;

  /** Resolves once every change made so far is durable. */
  commit(): Promise<void>;
  /** Flushes and closes; the store is unusable after. */
  close(): Promise<void>;
}
