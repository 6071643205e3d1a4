// One process's connection to the queue: a `pg` pool, our scan tables (made on first use), and
// pg-boss over the same pool. `pg` and `pg-boss` are loaded here, on the first scan command, never
// by `check`.
import type { Pool, PoolClient } from 'pg';
import type PgBoss from 'pg-boss';
import { FLEET_DDL, FLEET_SCHEMA_LOCK, FLEET_SCHEMA_VERSION } from './fleet-schema.js';
import { sourceSummary } from './shown-source.js';
import { BATCH_QUEUE, DEAD_QUEUE, DEFAULT_RETRIES, FleetError, QUEUE_SCHEMA, queueWhere, RETRY_DELAY_SECONDS, SCAN_SCHEMA } from './fleet-settings.js';

export interface FleetConnection {
  pool: Pool;
  boss: PgBoss;
  /** host:port/database, for messages. */
  where: string;
  /** Runs `fn` in one transaction on one client. */
  transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Workers run pg-boss's maintenance (the sweep that returns batches whose lease ran out); the
   * other commands only read and write, and leave it to them.
   */
  supervise?: { intervalSeconds: number };
  /** Connections in the pool (a worker: its batch, its lease renewals, pg-boss). */
  max?: number;
}

/**
 * A connection error from `pg` as one line that names the queue by host, port and database, never
 * by its user or password (docs/SCALE.md). PostgreSQL's refusals of a login name the role (`role
 * "scanner" does not exist`, `password authentication failed for user "scanner"`, `no pg_hba.conf
 * entry for host ..., user "scanner", ...`): those are said by their SQLSTATE, and the URL's user
 * name, where another message quotes it, is masked (PostgreSQL never repeats a password).
 */
export function unreachable(where: string, err: unknown, url?: string): FleetError {
  const e = err as { code?: string; message?: string };
  return new FleetError(`cannot reach the queue at ${where}: ${masked(reason(e), url)}.`, 1);
}

function reason(e: { code?: string; message?: string }): string {
  if (e.code === 'ECONNREFUSED') return 'nothing accepts connections there';
  if (e.code === 'ENOTFOUND') return 'no such host';
  if (e.code === '28P01') return 'the server refused the password of the queue URL\'s user (SQLSTATE 28P01)';
  if (e.code === '28000') {
    return "the server refused the queue URL's user: no such role, or no pg_hba.conf line admits it from this address (SQLSTATE 28000; the server's log says which)";
  }
  return (e.message ?? String(e)).split('\n')[0]!;
}

/** `text` without the URL's user name, where quoted as PostgreSQL quotes names. */
function masked(text: string, url: string | undefined): string {
  if (url === undefined) return text;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return text;
  }
  const user = decodeURIComponent(parsed.username);
  return user ? text.split(`"${user}"`).join('"***"') : text;
}

export async function openFleet(url: string, options: OpenOptions = {}): Promise<FleetConnection> {
  const where = queueWhere(url);
  const [{ default: pg }, { default: PgBossClass }] = await Promise.all([import('pg'), import('pg-boss')]);
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 4, connectionTimeoutMillis: 10_000, application_name: 'provenance-scan' });
  // An idle client's error (the server restarted) must not end the process; the next query fails
  // and says so.
  pool.on('error', () => {});
  try {
    await setUpSchema(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    if (err instanceof FleetError) throw err;
    throw unreachable(where, err, url);
  }
  const boss = new PgBossClass({
    db: { executeSql: (text: string, values?: unknown[]) => (values?.length ? pool.query(text, values) : pool.query(text)) },
    schema: QUEUE_SCHEMA,
    supervise: Boolean(options.supervise),
    maintenanceIntervalSeconds: options.supervise?.intervalSeconds ?? 120,
    schedule: false,
    migrate: true,
  });
  // pg-boss reports a failed maintenance round as an event; the next round tries again.
  boss.on('error', () => {});
  try {
    await boss.start();
    await ensureQueues(boss);
  } catch (err) {
    await boss.stop({ graceful: false, close: false, wait: false }).catch(() => {});
    await pool.end().catch(() => {});
    throw unreachable(where, err, url);
  }
  return {
    pool,
    boss,
    where,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn(client);
        await client.query('COMMIT');
        return value;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await boss.stop({ graceful: false, close: false, wait: true, timeout: 1000 }).catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

async function setUpSchema(pool: Pool): Promise<void> {
  // Made already (every command after the first): one small query instead of the DDL under a lock.
  try {
    const { rows } = await pool.query<{ version: number }>(`SELECT version FROM ${SCAN_SCHEMA}.version`);
    if (rows[0]?.version === FLEET_SCHEMA_VERSION) return;
  } catch (err) {
    if ((err as { code?: string }).code !== '42P01') throw err; // 42P01: no such table yet
  }
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [FLEET_SCHEMA_LOCK]);
    try {
      await client.query(FLEET_DDL);
      const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${SCAN_SCHEMA}.version`);
      if (rows.length === 0) await client.query(`INSERT INTO ${SCAN_SCHEMA}.version VALUES ($1)`, [FLEET_SCHEMA_VERSION]);
      else if (rows[0]!.version > FLEET_SCHEMA_VERSION) {
        throw new FleetError(`the queue's scan tables are of a newer provenance (schema ${rows[0]!.version}; this one knows ${FLEET_SCHEMA_VERSION}): upgrade provenance on this machine.`, 1);
      } else if (rows[0]!.version < FLEET_SCHEMA_VERSION) {
        await maskStoredSources(client);
        await client.query(`UPDATE ${SCAN_SCHEMA}.version SET version = $1`, [FLEET_SCHEMA_VERSION]);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [FLEET_SCHEMA_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * Version 1 kept every source as given, a URL's token and password in clear, and a --files-from
 * list whole: each scan's row keeps the first few, masked, and their count (the inputs' own rows,
 * which the workers read, are unchanged). The masking is engine/masked-url.ts's, so it runs here,
 * one scan at a time, not in SQL.
 */
async function maskStoredSources(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${SCAN_SCHEMA}.scans WHERE source_count IS NULL`);
  for (const { name } of rows) {
    const { rows: kept } = await client.query<{ sources: unknown }>(`SELECT sources FROM ${SCAN_SCHEMA}.scans WHERE name = $1`, [name]);
    const sources = Array.isArray(kept[0]?.sources) ? (kept[0]!.sources as unknown[]).map(String) : [];
    const { shown, count } = sourceSummary(sources);
    await client.query(`UPDATE ${SCAN_SCHEMA}.scans SET sources = $2, source_count = $3 WHERE name = $1`, [name, JSON.stringify(shown), count]);
  }
}

/**
 * The batch queue and its dead-letter queue: a batch is tried DEFAULT_RETRIES more times with
 * back-off, then goes to DEAD_QUEUE, where a worker writes its unfinished inputs off as failed.
 */
async function ensureQueues(boss: PgBoss): Promise<void> {
  if (!(await boss.getQueue(DEAD_QUEUE))) await boss.createQueue(DEAD_QUEUE, { name: DEAD_QUEUE, retryLimit: 2 }).catch(ignoreRace);
  if (!(await boss.getQueue(BATCH_QUEUE))) {
    await boss
      .createQueue(BATCH_QUEUE, { name: BATCH_QUEUE, retryLimit: DEFAULT_RETRIES, retryDelay: RETRY_DELAY_SECONDS, retryBackoff: true, deadLetter: DEAD_QUEUE })
      .catch(ignoreRace);
  }
}

/** Two processes that make a queue at once: the second one's insert meets the first one's row. */
function ignoreRace(err: unknown): void {
  if ((err as { code?: string }).code !== '23505') throw err;
}
