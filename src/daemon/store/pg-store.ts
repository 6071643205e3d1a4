// The PostgreSQL store: the daemon's shared state in one database, through node-postgres with a
// connection pool, so any number of daemons serve one set of accounts, keys, usage, burst
// windows, uploads, sessions and sign-in tokens.
//
// Every check-and-change is atomic in the database, never read-then-write across round trips:
// a reservation is one INSERT ... ON CONFLICT DO UPDATE ... WHERE used < limit; the burst window
// is one call of a function that holds a transaction-level advisory lock on the key while it
// counts and inserts; a sign-in token is used up by one conditional UPDATE. Each method's
// change is committed when it resolves, so `commit()` has nothing left to wait for.
//
// Bounds: connecting waits at most CONNECT_TIMEOUT_MS and a query QUERY_TIMEOUT_MS, so with the
// database down a request fails (a 500 contract body) instead of hanging; the pool reconnects
// by itself once the database is back.
import { createReadStream } from 'node:fs';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { AccountRecord, PlanId } from '../contract/api-types.js';
import { migrate, type MigrationOutcome } from './pg-migrations.js';
import {
  sortSnapshot,
  STORE_SNAPSHOT_FORMAT,
  STORE_SNAPSHOT_VERSION,
  StoreConflictError,
  StoreUnavailableError,
  type BurstDecision,
  type LiveUploads,
  type Store,
  type StoredKey,
  type StoredSession,
  type StoredSigninToken,
  type StoredUpload,
  type StoreSnapshot,
  type TokenUse,
  type UploadAdmission,
  type UploadCaps,
  exceedsUploadCaps,
} from './store.js';
import { maskUrlSecrets } from '../../engine/masked-url.js';

/**
 * The bounds on waiting for the database: for a connection (a new one, or a free one of the
 * pool), for a query's answer, and for /healthz's probe. A store call waits at most
 * connect + query, so a request never hangs past them (test/postgres/outage.test.ts holds it).
 */
export const PG_TIMEOUTS_MS = { connect: 5_000, query: 10_000, health: 2_000 } as const;
const CONNECT_TIMEOUT_MS = PG_TIMEOUTS_MS.connect;
const QUERY_TIMEOUT_MS = PG_TIMEOUTS_MS.query;
const BURST_WINDOW_MS = 60_000;
/** Upload bytes go to the database in rows of this size (see upload_chunks). */
const CHUNK_BYTES = 1024 * 1024;
/** last_used_at is informational: written in batches this often, not once per request. */
const TOUCH_FLUSH_MS = 1_000;

/** A --store value that is not a usable postgres:// URL. */
export class StoreUrlError extends Error {}

/** The database could not be reached (refused, unknown host, timeout, authentication). */
export class StoreConnectError extends Error {}

export interface PgStoreOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Apply pending migrations (default true); false refuses a database that is not current. */
  migrate?: boolean;
}

/** Checks a postgres:// URL and returns it without its password, for messages; `flag` names it in them. */
export function checkPostgresUrl(url: string, flag = '--store'): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUrlError(`${flag} must be a PostgreSQL URL like postgres://USER@HOST:5432/DATABASE, not "${redact(url)}"`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StoreUrlError(`${flag} must be a postgres:// URL (postgres://USER@HOST:5432/DATABASE), not "${redact(url)}"`);
  }
  if (!parsed.hostname) throw new StoreUrlError(`${flag} URL "${redact(url)}" names no host`);
  if (parsed.pathname.length <= 1) throw new StoreUrlError(`${flag} URL "${redact(url)}" names no database (postgres://USER@HOST:5432/DATABASE)`);
  return redact(url);
}

/** Every secret of the URL as *** (the userinfo password, ?password=, ?sslpassword=...). */
const redact = maskUrlSecrets;

/** Words a connection failure for one line: what was tried and why it failed. */
function connectMessage(location: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const why =
    e.code === 'ECONNREFUSED'
      ? 'connection refused'
      : e.code === 'ENOTFOUND'
        ? 'unknown host'
        : e.code === '3D000'
          ? 'no such database'
          : e.code === '28P01' || e.code === '28000'
            ? 'authentication failed'
            : (e.message || String(err)).split('\n')[0];
  return `could not connect to PostgreSQL at ${location}: ${why}`;
}

/** A time in ms as a bigint parameter: callers may pass ±Infinity for "everything". */
const ms = (t: number): number => (Number.isFinite(t) ? Math.trunc(t) : t > 0 ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER);

/**
 * The database is unreachable or went away mid-query, rather than refusing the statement:
 * socket errors, timeouts, and SQLSTATE classes 08 (connection) and 57 (shut down, restarting).
 */
function isConnectionFailure(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^(08|57)/.test(code)) return true;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT...
  const message = (err as Error).message ?? '';
  return /Connection terminated|timeout|Client has encountered a connection error|not queryable/i.test(message);
}

const num = (v: string | number | null): number => (v === null ? 0 : Number(v));

/**
 * PostgreSQL text cannot hold U+0000 (the query fails: "invalid byte sequence"), so no row has a
 * value with one: a lookup by such a value finds nothing, as in the embedded store. Values with
 * a NUL that would be written are refused before the store (accounts.ts, snapshot-check.ts).
 */
const hasNul = (...values: (string | undefined)[]): boolean => values.some((v) => typeof v === 'string' && v.includes('\0'));

/** Accounts, keys, usage, sessions and sign-in tokens of a snapshot, into empty tables. */
async function insertRecords(client: PoolClient, snapshot: StoreSnapshot): Promise<void> {
  for (const a of snapshot.accounts) {
    await client.query('INSERT INTO accounts (id, email, plan, quota, created_at) VALUES ($1, $2, $3, $4, $5)', [a.id, a.email, a.plan, a.quota ?? null, a.created_at]);
  }
  for (const k of snapshot.keys) {
    await client.query(
      'INSERT INTO api_keys (id, account, name, prefix, sha256, created_at, last_used_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [k.id, k.account, k.name, k.prefix, k.sha256, k.created_at, k.last_used_at, k.revoked_at],
    );
  }
  for (const u of snapshot.usage) await client.query('INSERT INTO usage (account, period, used) VALUES ($1, $2, $3)', [u.account, u.period, u.calls]);
  for (const x of snapshot.sessions) {
    await client.query('INSERT INTO sessions (sha256, account, created_at, expires_at, expires_ms) VALUES ($1, $2, $3, $4, $5)', [x.sha256, x.account, x.created_at, x.expires_at, Date.parse(x.expires_at)]);
  }
  for (const t of snapshot.signin_tokens) {
    await client.query('INSERT INTO signin_tokens (sha256, email, next, created_at, expires_at, expires_ms, used_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      t.sha256, t.email, t.next, t.created_at, t.expires_at, Date.parse(t.expires_at), t.used_at,
    ]);
  }
}

function toAccount(row: QueryResultRow): AccountRecord {
  const account: AccountRecord = { id: row.id, email: row.email, plan: row.plan as PlanId, created_at: row.created_at };
  if (row.quota !== null) account.quota = Number(row.quota);
  return account;
}

const toKey = (row: QueryResultRow): StoredKey => ({
  id: row.id,
  account: row.account,
  name: row.name,
  prefix: row.prefix,
  sha256: row.sha256,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
  revoked_at: row.revoked_at,
});

const UPLOAD_COLUMNS = 'id, account, bytes, sha256, type, created_at, expires_at, file';
const toUpload = (row: QueryResultRow): StoredUpload => ({
  id: row.id,
  account: row.account,
  bytes: Number(row.bytes),
  sha256: row.sha256,
  type: row.type,
  created_at: row.created_at,
  expires_at: row.expires_at,
  file: row.file,
});

/** An account's live uploads at $2 (ms): one row of count, bytes, oldest expiry (index uploads_account_expires). */
const LIVE_UPLOADS_SQL = 'SELECT count(*)::int AS n, coalesce(sum(bytes), 0)::bigint AS bytes, min(expires_ms) AS oldest FROM uploads WHERE account = $1 AND expires_ms > $2';
const toLiveUploads = (row: QueryResultRow): LiveUploads => ({
  count: num(row.n),
  bytes: num(row.bytes),
  oldestExpiresMs: row.oldest === null ? undefined : Number(row.oldest),
});

const toSession = (row: QueryResultRow): StoredSession => ({
  sha256: row.sha256,
  account: row.account,
  created_at: row.created_at,
  expires_at: row.expires_at,
});

const toToken = (row: QueryResultRow): StoredSigninToken => ({
  sha256: row.sha256,
  email: row.email,
  next: row.next,
  created_at: row.created_at,
  expires_at: row.expires_at,
  used_at: row.used_at,
});

export class PgStore implements Store {
  /** Key id -> last use not yet written (read back through keys of this daemon at once). */
  private readonly touches = new Map<string, string>();
  private touchTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    readonly location: string,
    readonly migration: MigrationOutcome,
  ) {}

  /** Connects, migrates under the advisory lock (see pg-migrations.ts) and returns the store. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const location = checkPostgresUrl(url);
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      statement_timeout: QUERY_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      application_name: 'provenance-daemon',
    });
    // An idle connection the server closed (a restart, pg_terminate_backend) is reported here;
    // the pool drops it and opens a new one on demand. Without a listener it would crash us.
    pool.on('error', () => {});
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      await pool.end().catch(() => {});
      throw new StoreConnectError(connectMessage(location, err));
    }
    const onError = () => {}; // reported by the next query on it instead (see transaction())
    client.on('error', onError);
    try {
      const outcome = await migrate(client, { apply: options.migrate ?? true });
      client.off('error', onError);
      client.release();
      return new PgStore(pool, location, outcome);
    } catch (err) {
      client.off('error', onError);
      client.release(true);
      await pool.end().catch(() => {});
      throw err;
    }
  }

  private async q(text: string, values?: unknown[]): Promise<QueryResultRow[]> {
    if (this.closed) throw new Error('The store is closed.');
    try {
      return (await this.pool.query(text, values)).rows;
    } catch (err) {
      if (isConnectionFailure(err)) throw new StoreUnavailableError(`PostgreSQL at ${this.location} did not answer: ${(err as Error).message}`, { cause: err });
      throw err;
    }
  }

  // Accounts

  async insertAccount(account: AccountRecord): Promise<void> {
    try {
      await this.q('INSERT INTO accounts (id, email, plan, quota, created_at) VALUES ($1, $2, $3, $4, $5)', [
        account.id,
        account.email,
        account.plan,
        account.quota ?? null,
        account.created_at,
      ]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new StoreConflictError(`An account for ${account.email} exists already.`);
      throw err;
    }
  }

  async setAccountPlan(id: string, { plan, quota }: Pick<AccountRecord, 'plan' | 'quota'>): Promise<AccountRecord | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.q('UPDATE accounts SET plan = $2, quota = $3 WHERE id = $1 RETURNING *', [id, plan, quota ?? null]);
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  async accountById(id: string): Promise<AccountRecord | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.q('SELECT * FROM accounts WHERE id = $1', [id]);
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  async accountByEmail(email: string): Promise<AccountRecord | undefined> {
    if (hasNul(email)) return undefined;
    const rows = await this.q('SELECT * FROM accounts WHERE email = $1', [email]);
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return (await this.q('SELECT * FROM accounts ORDER BY seq')).map(toAccount);
  }

  // Keys

  async insertKey(key: StoredKey, maxActive?: number): Promise<boolean> {
    const insert = 'INSERT INTO api_keys (id, account, name, prefix, sha256, created_at, last_used_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)';
    const values = [key.id, key.account, key.name, key.prefix, key.sha256, key.created_at, key.last_used_at, key.revoked_at];
    if (maxActive === undefined) {
      await this.q(insert, values);
      return true;
    }
    // The account's row lock queues concurrent creates of one account (across daemons too);
    // each counts, under READ COMMITTED, the keys the ones before it committed.
    return this.transaction(async (client) => {
      await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [key.account]);
      const { rows } = await client.query('SELECT count(*)::int AS n FROM api_keys WHERE account = $1 AND revoked_at IS NULL', [key.account]);
      if (num(rows[0].n) >= maxActive) return false;
      await client.query(insert, values);
      return true;
    });
  }

  /** A key as stored, with a last use this daemon has not written yet. */
  private withTouch(key: StoredKey): StoredKey {
    const at = this.touches.get(key.id);
    if (at && (!key.last_used_at || at > key.last_used_at)) key.last_used_at = at;
    return key;
  }

  async keyById(id: string): Promise<StoredKey | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.q('SELECT * FROM api_keys WHERE id = $1', [id]);
    return rows[0] ? this.withTouch(toKey(rows[0])) : undefined;
  }

  async keyByHash(sha256: string): Promise<StoredKey | undefined> {
    if (hasNul(sha256)) return undefined;
    const rows = await this.q('SELECT * FROM api_keys WHERE sha256 = $1', [sha256]);
    return rows[0] ? this.withTouch(toKey(rows[0])) : undefined;
  }

  async listKeys(accountId?: string): Promise<StoredKey[]> {
    if (hasNul(accountId)) return [];
    const rows =
      accountId === undefined
        ? await this.q('SELECT * FROM api_keys ORDER BY created_at, seq')
        : await this.q('SELECT * FROM api_keys WHERE account = $1 ORDER BY created_at, seq', [accountId]);
    return rows.map((row) => this.withTouch(toKey(row)));
  }

  async revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.q('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING *', [id, at]);
    return rows[0] ? this.withTouch(toKey(rows[0])) : undefined;
  }

  async restoreKey(id: string, name: string): Promise<StoredKey | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.q('UPDATE api_keys SET name = $2, revoked_at = NULL WHERE id = $1 RETURNING *', [id, name]);
    return rows[0] ? this.withTouch(toKey(rows[0])) : undefined;
  }

  async touchKey(id: string, at: string): Promise<void> {
    this.touches.set(id, at);
    if (!this.touchTimer && !this.closed) {
      this.touchTimer = setTimeout(() => void this.flushTouches(), TOUCH_FLUSH_MS);
      this.touchTimer.unref();
    }
  }

  /** Writes the batched last uses in one statement; a failure keeps them for the next try. */
  private async flushTouches(): Promise<void> {
    this.touchTimer = undefined;
    if (this.touches.size === 0) return;
    const batch = [...this.touches];
    this.touches.clear();
    try {
      await this.pool.query(
        `UPDATE api_keys SET last_used_at = t.at FROM unnest($1::text[], $2::text[]) AS t(id, at)
         WHERE api_keys.id = t.id AND (api_keys.last_used_at IS NULL OR api_keys.last_used_at < t.at)`,
        [batch.map(([id]) => id), batch.map(([, at]) => at)],
      );
    } catch {
      for (const [id, at] of batch) if (!this.touches.has(id)) this.touches.set(id, at);
      if (!this.closed && !this.touchTimer) {
        this.touchTimer = setTimeout(() => void this.flushTouches(), TOUCH_FLUSH_MS);
        this.touchTimer.unref();
      }
    }
  }

  // Usage

  async usage(accountId: string, period: string): Promise<number> {
    if (hasNul(accountId, period)) return 0;
    const rows = await this.q('SELECT used FROM usage WHERE account = $1 AND period = $2', [accountId, period]);
    return rows[0] ? num(rows[0].used) : 0;
  }

  async reserveCall(accountId: string, period: string, limit: number): Promise<number | undefined> {
    if (limit < 1) return undefined;
    // One statement: the row lock makes concurrent reservations queue, each seeing the last one's count.
    const rows = await this.q(
      `INSERT INTO usage (account, period, used) VALUES ($1, $2, 1)
       ON CONFLICT (account, period) DO UPDATE SET used = usage.used + 1 WHERE usage.used < $3
       RETURNING used`,
      [accountId, period, limit],
    );
    return rows[0] ? num(rows[0].used) : undefined;
  }

  async releaseCall(accountId: string, period: string): Promise<void> {
    await this.q('UPDATE usage SET used = used - 1 WHERE account = $1 AND period = $2 AND used > 0', [accountId, period]);
  }

  // Burst

  async takeBurst(keyId: string, limit: number, nowMs: number): Promise<BurstDecision> {
    const rows = await this.q('SELECT allowed, in_window, oldest FROM provenance_take_burst($1, $2, $3)', [keyId, limit, ms(nowMs)]);
    const row = rows[0]!;
    const oldest = num(row.oldest);
    const wait = Math.ceil((oldest + BURST_WINDOW_MS - nowMs) / 1000);
    if (!row.allowed) return { allowed: false, retryAfter: Math.max(1, wait), limit, remaining: 0, resetSeconds: Math.max(1, wait) };
    return { allowed: true, limit, remaining: limit - num(row.in_window), resetSeconds: Math.max(0, wait) };
  }

  async peekBurst(keyId: string, limit: number, nowMs: number): Promise<BurstDecision> {
    // A plain read: no lock, no insert. A request racing with it may fill the window a moment
    // later; the forced answer it serves counts nothing either way.
    const rows = await this.q('SELECT count(*)::int AS n, min(at_ms) AS oldest FROM burst_hits WHERE key_id = $1 AND at_ms > $2', [keyId, ms(nowMs) - BURST_WINDOW_MS]);
    const n = num(rows[0]!.n);
    const oldest = rows[0]!.oldest === null ? ms(nowMs) : num(rows[0]!.oldest);
    const wait = Math.ceil((oldest + BURST_WINDOW_MS - nowMs) / 1000);
    if (n >= limit) return { allowed: false, retryAfter: Math.max(1, wait), limit, remaining: 0, resetSeconds: Math.max(1, wait) };
    return { allowed: true, limit, remaining: limit - n - 1, resetSeconds: Math.max(0, wait) };
  }

  async sweepBurst(nowMs: number): Promise<void> {
    await this.q('DELETE FROM burst_hits WHERE at_ms <= $1', [ms(nowMs) - BURST_WINDOW_MS]);
  }

  // Uploads

  async insertUpload(upload: StoredUpload, caps?: UploadCaps): Promise<UploadAdmission> {
    const insert = `INSERT INTO uploads (id, account, bytes, sha256, type, created_at, expires_at, expires_ms, file)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
    const values = [upload.id, upload.account, upload.bytes, upload.sha256, upload.type, upload.created_at, upload.expires_at, Date.parse(upload.expires_at), upload.file];
    if (!caps) {
      await this.q(insert, values);
      return { stored: true };
    }
    // A transaction-level advisory lock per account queues concurrent uploads of one account
    // across every daemon on the database until the insert commits; each then counts, under READ
    // COMMITTED, the uploads the ones before it committed. (Not the accounts row's lock: key
    // creation takes that one, and needs no wait behind a file's record.)
    return this.transaction(async (client): Promise<UploadAdmission> => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('provenance_uploads:' || $1))", [upload.account]);
      const live = toLiveUploads((await client.query(LIVE_UPLOADS_SQL, [upload.account, ms(caps.nowMs)])).rows[0]!);
      if (exceedsUploadCaps(live, upload.bytes, caps)) return { stored: false, live };
      await client.query(insert, values);
      return { stored: true };
    });
  }

  async liveUploads(accountId: string, nowMs: number): Promise<LiveUploads> {
    if (hasNul(accountId)) return { count: 0, bytes: 0, oldestExpiresMs: undefined };
    return toLiveUploads((await this.q(LIVE_UPLOADS_SQL, [accountId, ms(nowMs)]))[0]!);
  }

  async putUploadBytes(id: string, tempFile: string): Promise<void> {
    await this.transaction(async (client) => {
      let n = 0;
      for await (const chunk of createReadStream(tempFile, { highWaterMark: CHUNK_BYTES })) {
        await client.query('INSERT INTO upload_chunks (upload, n, data) VALUES ($1, $2, $3)', [id, n++, chunk]);
      }
    });
  }

  /** Runs `work` in one transaction on one pooled connection: all of it, or none. */
  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw isConnectionFailure(err) ? new StoreUnavailableError(`PostgreSQL at ${this.location} did not answer: ${(err as Error).message}`, { cause: err }) : err;
    }
    let broken: unknown;
    // A checked-out connection has no listener of the pool's: without this, the server going
    // away between two statements would be an uncaught 'error' event, and end the process.
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      broken = err;
      // A statement the database refused: roll back on this connection, which is fine. A
      // connection that failed or timed out is dropped instead (release below), and the server
      // rolls back what it holds when the connection closes: a ROLLBACK sent on it would queue
      // behind the statement that never answered and wait out a second query timeout.
      if (!isConnectionFailure(err)) await client.query('ROLLBACK').catch(() => {});
      if (isConnectionFailure(err)) throw new StoreUnavailableError(`PostgreSQL at ${this.location} did not answer: ${(err as Error).message}`, { cause: err });
      throw err;
    } finally {
      client.off('error', onError);
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(broken !== undefined && isConnectionFailure(broken) ? (broken as Error) : undefined);
    }
  }

  async readUploadBytes(upload: StoredUpload): Promise<Uint8Array | undefined> {
    const rows = await this.q('SELECT data FROM upload_chunks WHERE upload = $1 ORDER BY n', [upload.id]);
    const bytes = Buffer.concat(rows.map((row) => row.data as Buffer));
    // No chunks (bytes not stored yet, or gone): the same as a missing file.
    return rows.length && bytes.length === upload.bytes ? bytes : undefined;
  }

  async deleteUploadBytes(): Promise<void> {
    // The bytes went with their row in takeExpiredUploads.
  }

  async uploadById(id: string): Promise<StoredUpload | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.q(`SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE id = $1`, [id]);
    return rows[0] ? toUpload(rows[0]) : undefined;
  }

  async deleteUpload(id: string): Promise<void> {
    if (hasNul(id)) return;
    // Its bytes (upload_chunks) go with it: ON DELETE CASCADE.
    await this.q('DELETE FROM uploads WHERE id = $1', [id]);
  }

  async takeExpiredUploads(nowMs: number): Promise<StoredUpload[]> {
    return (await this.q(`DELETE FROM uploads WHERE expires_ms <= $1 RETURNING ${UPLOAD_COLUMNS}`, [ms(nowMs)])).map(toUpload);
  }

  async liveUploadTotals(nowMs: number): Promise<{ count: number; bytes: number }> {
    const row = (await this.q('SELECT count(*)::int AS n, coalesce(sum(bytes), 0)::bigint AS bytes FROM uploads WHERE expires_ms > $1', [ms(nowMs)]))[0]!;
    return { count: num(row.n), bytes: num(row.bytes) };
  }

  /** The connection pool's sizes now (the daemon's /metrics gauges): cheap counters of pg.Pool. */
  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async uploadFiles(): Promise<Set<string>> {
    return new Set((await this.q('SELECT file FROM uploads')).map((row) => row.file as string));
  }

  // Sessions

  async insertSession(session: StoredSession): Promise<void> {
    await this.q(
      `INSERT INTO sessions (sha256, account, created_at, expires_at, expires_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (sha256) DO UPDATE SET account = $2, created_at = $3, expires_at = $4, expires_ms = $5`,
      [session.sha256, session.account, session.created_at, session.expires_at, Date.parse(session.expires_at)],
    );
  }

  async sessionByHash(sha256: string): Promise<StoredSession | undefined> {
    if (hasNul(sha256)) return undefined;
    const rows = await this.q('SELECT * FROM sessions WHERE sha256 = $1', [sha256]);
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async deleteSession(sha256: string): Promise<boolean> {
    if (hasNul(sha256)) return false;
    return (await this.q('DELETE FROM sessions WHERE sha256 = $1 RETURNING sha256', [sha256])).length > 0;
  }

  async deleteExpiredSessions(nowMs: number): Promise<number> {
    return (await this.q('DELETE FROM sessions WHERE expires_ms <= $1 RETURNING sha256', [ms(nowMs)])).length;
  }

  // Sign-in tokens

  async insertSigninToken(token: StoredSigninToken): Promise<void> {
    await this.q(
      `INSERT INTO signin_tokens (sha256, email, next, created_at, expires_at, expires_ms, used_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (sha256) DO UPDATE SET email = $2, next = $3, created_at = $4, expires_at = $5, expires_ms = $6, used_at = $7`,
      [token.sha256, token.email, token.next, token.created_at, token.expires_at, Date.parse(token.expires_at), token.used_at],
    );
  }

  async signinTokenByHash(sha256: string): Promise<StoredSigninToken | undefined> {
    if (hasNul(sha256)) return undefined;
    const rows = await this.q('SELECT * FROM signin_tokens WHERE sha256 = $1', [sha256]);
    return rows[0] ? toToken(rows[0]) : undefined;
  }

  async useSigninToken(sha256: string, at: Date): Promise<TokenUse> {
    if (hasNul(sha256)) return { ok: false, problem: 'unknown' };
    const used = await this.q(
      'UPDATE signin_tokens SET used_at = $2 WHERE sha256 = $1 AND used_at IS NULL AND expires_ms > $3 RETURNING *',
      [sha256, at.toISOString(), ms(at.getTime())],
    );
    if (used[0]) return { ok: true, record: toToken(used[0]) };
    const rows = await this.q('SELECT * FROM signin_tokens WHERE sha256 = $1', [sha256]);
    if (!rows[0]) return { ok: false, problem: 'unknown' };
    const record = toToken(rows[0]);
    return { ok: false, problem: record.used_at ? 'used' : 'expired', record };
  }

  async deleteSigninTokensExpiredBefore(cutoffMs: number): Promise<number> {
    return (await this.q('DELETE FROM signin_tokens WHERE expires_ms <= $1 RETURNING sha256', [ms(cutoffMs)])).length;
  }

  // Copying

  // The whole state: test mode's export, import and reset, and `daemon store copy`

  async exportState(): Promise<StoreSnapshot> {
    await this.flushTouches();
    return sortSnapshot({
      format: STORE_SNAPSHOT_FORMAT,
      version: STORE_SNAPSHOT_VERSION,
      accounts: await this.listAccounts(),
      keys: await this.listKeys(),
      usage: (await this.q('SELECT account, period, used FROM usage')).map((row) => ({ account: row.account, period: row.period, calls: num(row.used) })),
      uploads: (await this.q(`SELECT ${UPLOAD_COLUMNS} FROM uploads`)).map(toUpload),
      sessions: (await this.q('SELECT * FROM sessions')).map(toSession),
      signin_tokens: (await this.q('SELECT * FROM signin_tokens')).map(toToken),
    });
  }

  /**
   * Replaces the state in one transaction. A snapshot carries no upload bytes: an upload record
   * whose bytes this database holds is kept (updated), one it does not hold is left out, as the
   * embedded store cannot serve a record without its file either.
   */
  async importState(snapshot: StoreSnapshot): Promise<void> {
    this.touches.clear();
    await this.transaction(async (client) => {
      const ids = snapshot.uploads.map((u) => u.id);
      await client.query('DELETE FROM uploads WHERE NOT (id = ANY($1::text[]))', [ids]);
      for (const table of ['usage', 'sessions', 'signin_tokens', 'burst_hits', 'api_keys', 'accounts']) await client.query(`DELETE FROM ${table}`);
      await insertRecords(client, snapshot);
      for (const u of snapshot.uploads) {
        await client.query('UPDATE uploads SET account = $2, bytes = $3, sha256 = $4, type = $5, created_at = $6, expires_at = $7, expires_ms = $8, file = $9 WHERE id = $1', [
          u.id, u.account, u.bytes, u.sha256, u.type, u.created_at, u.expires_at, Date.parse(u.expires_at), u.file,
        ]);
      }
    });
  }

  async reset({ keepAccounts }: { keepAccounts: boolean }): Promise<StoredUpload[]> {
    return this.transaction(async (client) => {
      const uploads = (await client.query(`DELETE FROM uploads RETURNING ${UPLOAD_COLUMNS}`)).rows.map(toUpload);
      for (const table of ['usage', 'sessions', 'signin_tokens', 'burst_hits']) await client.query(`DELETE FROM ${table}`);
      if (!keepAccounts) {
        this.touches.clear();
        await client.query('DELETE FROM api_keys');
        await client.query('DELETE FROM accounts');
      }
      return uploads;
    });
  }

  async setUsage(accountId: string, period: string, calls: number): Promise<void> {
    await this.q('INSERT INTO usage (account, period, used) VALUES ($1, $2, $3) ON CONFLICT (account, period) DO UPDATE SET used = $3', [accountId, period, calls]);
  }


  /**
   * Fills an empty database from another store's snapshot, in one transaction: all or nothing.
   * `bytesOf` reads an upload's bytes from the source; uploads whose bytes are gone are skipped.
   */
  async importAll(snapshot: StoreSnapshot, bytesOf: (upload: StoredUpload) => Promise<Uint8Array | undefined>): Promise<{ uploads: number }> {
    let uploads = 0;
    await this.transaction(async (client) => {
      const existing = await client.query('SELECT count(*)::int AS n FROM accounts');
      if (existing.rows[0].n > 0) throw new StoreConflictError(`the database at ${this.location} holds accounts already; store copy fills an empty database`);
      await insertRecords(client, { ...snapshot, sessions: [], signin_tokens: [] });
      for (const u of snapshot.uploads) {
        const bytes = await bytesOf(u);
        if (!bytes) continue;
        await client.query(
          `INSERT INTO uploads (id, account, bytes, sha256, type, created_at, expires_at, expires_ms, file)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [u.id, u.account, u.bytes, u.sha256, u.type, u.created_at, u.expires_at, Date.parse(u.expires_at), u.file],
        );
        for (let n = 0, at = 0; at < bytes.byteLength; n++, at += CHUNK_BYTES) {
          const piece = Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(CHUNK_BYTES, bytes.byteLength - at));
          await client.query('INSERT INTO upload_chunks (upload, n, data) VALUES ($1, $2, $3)', [u.id, n, piece]);
        }
        uploads++;
      }
    });
    return { uploads };
  }

  // Health and durability

  async healthy(): Promise<boolean> {
    try {
      await this.pool.query({ text: 'SELECT 1', query_timeout: PG_TIMEOUTS_MS.health } as never);
      return true;
    } catch {
      return false;
    }
  }

  /** Each method's change is committed when it resolves. */
  async commit(): Promise<void> {
    if (this.closed) throw new Error('The store is closed.');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.touchTimer);
    await this.flushTouches();
    this.closed = true;
    await this.pool.end();
  }
}
