// The PostgreSQL schema, as numbered migrations. Each runs once, in its own transaction, and is
// recorded in schema_migrations; all of them run under one session advisory lock, so daemons
// starting together against one database apply each migration exactly once. Never edit a
// migration that has shipped: add the next number.
//
// Timestamps are kept as the ISO text the daemon wrote (so records read back byte-for-byte as
// the embedded store returns them), plus a millisecond column wherever SQL compares times.
import type { PoolClient } from 'pg';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, usage, burst, uploads, sessions, sign-in tokens',
    sql: `
      -- seq keeps insertion order, which lists follow (as the embedded store's do) when
      -- records share a created_at.
      CREATE TABLE accounts (
        seq bigserial,
        id text PRIMARY KEY,
        email text NOT NULL UNIQUE,
        plan text NOT NULL,
        quota bigint,
        created_at text NOT NULL
      );
      CREATE TABLE api_keys (
        seq bigserial,
        id text PRIMARY KEY,
        account text NOT NULL REFERENCES accounts(id),
        name text NOT NULL,
        prefix text NOT NULL,
        sha256 text NOT NULL UNIQUE,
        created_at text NOT NULL,
        last_used_at text,
        revoked_at text
      );
      CREATE INDEX api_keys_account ON api_keys(account);
      CREATE TABLE usage (
        account text NOT NULL,
        period text NOT NULL,
        used bigint NOT NULL,
        PRIMARY KEY (account, period)
      );
      -- One row per request admitted into a key's sliding 60 s window.
      CREATE TABLE burst_hits (
        key_id text NOT NULL,
        at_ms bigint NOT NULL
      );
      CREATE INDEX burst_hits_key_at ON burst_hits(key_id, at_ms);
      CREATE TABLE uploads (
        id text PRIMARY KEY,
        account text NOT NULL,
        bytes bigint NOT NULL,
        sha256 text NOT NULL,
        type text NOT NULL,
        created_at text NOT NULL,
        expires_at text NOT NULL,
        expires_ms bigint NOT NULL,
        file text NOT NULL
      );
      CREATE INDEX uploads_expires ON uploads(expires_ms);
      -- An upload's bytes in pieces of at most 1 MB, written in one transaction, so a daemon
      -- never holds a whole 25 MB upload (and the driver's copy of it) to store it.
      CREATE TABLE upload_chunks (
        upload text NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
        n integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (upload, n)
      );
      CREATE TABLE sessions (
        sha256 text PRIMARY KEY,
        account text NOT NULL,
        created_at text NOT NULL,
        expires_at text NOT NULL,
        expires_ms bigint NOT NULL
      );
      CREATE TABLE signin_tokens (
        sha256 text PRIMARY KEY,
        email text NOT NULL,
        next text NOT NULL,
        created_at text NOT NULL,
        expires_at text NOT NULL,
        expires_ms bigint NOT NULL,
        used_at text
      );
      -- The burst gate in one call: the advisory lock serialises requests of one key across
      -- every daemon until this transaction ends, so the count and the insert cannot interleave.
      CREATE FUNCTION provenance_take_burst(p_key text, p_limit integer, p_now bigint)
      RETURNS TABLE (allowed boolean, in_window integer, oldest bigint)
      LANGUAGE plpgsql AS $$
      DECLARE
        n integer;
        o bigint;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('provenance_burst:' || p_key));
        DELETE FROM burst_hits WHERE key_id = p_key AND at_ms <= p_now - 60000;
        SELECT count(*), min(at_ms) INTO n, o FROM burst_hits WHERE key_id = p_key;
        IF n >= p_limit THEN
          RETURN QUERY SELECT false, n, o;
          RETURN;
        END IF;
        INSERT INTO burst_hits (key_id, at_ms) VALUES (p_key, p_now);
        RETURN QUERY SELECT true, n + 1, COALESCE(o, p_now);
      END
      $$;
    `,
  },
  {
    version: 2,
    name: 'uploads by account and expiry',
    sql: `
      -- An upload's caps count one account's live uploads (CONTRACT "Keys, accounts, uploads"):
      -- found by this index, not by scanning every account's.
      CREATE INDEX uploads_account_expires ON uploads(account, expires_ms);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Any fixed number: the advisory lock every daemon and `daemon migrate` takes to migrate. */
const MIGRATION_LOCK = 0x70726f76; // "prov"

/** The database was migrated by a newer provenance than this one. */
export class SchemaTooNewError extends Error {}

/** The database needs migrations and the caller asked not to apply them. */
export class SchemaTooOldError extends Error {}

export interface MigrationOutcome {
  from: number;
  to: number;
  applied: number[];
}

/**
 * Brings the schema to SCHEMA_VERSION. A database of a newer schema is refused before anything
 * is written (schema_migrations is only created when it is missing, i.e. on an empty database).
 */
export async function migrate(client: PoolClient, options: { apply?: boolean } = {}): Promise<MigrationOutcome> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    const exists = await client.query<{ found: string | null }>("SELECT to_regclass('schema_migrations')::text AS found");
    let from = 0;
    if (exists.rows[0]?.found) {
      const current = await client.query<{ version: number | null }>('SELECT max(version)::int AS version FROM schema_migrations');
      from = current.rows[0]?.version ?? 0;
    }
    if (from > SCHEMA_VERSION) {
      throw new SchemaTooNewError(
        `the database's schema is version ${from}, newer than this provenance knows (${SCHEMA_VERSION}); upgrade provenance`,
      );
    }
    if (from < SCHEMA_VERSION && options.apply === false) {
      throw new SchemaTooOldError(`the database's schema is version ${from}, older than this provenance's (${SCHEMA_VERSION}); run provenance daemon migrate --store URL`);
    }
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query('BEGIN');
      try {
        await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
      applied.push(migration.version);
    }
    return { from, to: Math.max(from, SCHEMA_VERSION), applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}
