// The real PostgreSQL the tests use (never a mock): PROVENANCE_TEST_DATABASE_URL, else the
// development machines' server at 127.0.0.1:5432. Each test run creates its own database
// (prov_test_<random>, see pg-global-setup.ts) and drops it after; each app in the contract
// suite gets its own schema in it, so tests never see each other's accounts.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_ENV = 'PROVENANCE_TEST_DATABASE_URL';
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export function adminUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env[TEST_DATABASE_ENV] || DEFAULT_TEST_DATABASE_URL;
}

/** Undefined when the server answers, else why not (one line). */
export async function unreachableReason(url = adminUrl()): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The same server and credentials, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** One statement on a short-lived connection. */
export async function sql(url: string, text: string, values?: unknown[]): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** CREATE DATABASE prov_test_<random> on the test server; drop() removes it (connections and all). */
export async function createTestDatabase(server = adminUrl()): Promise<TestDatabase> {
  const name = `prov_test_${randomBytes(6).toString('hex')}`;
  await sql(server, `CREATE DATABASE ${name}`);
  return {
    name,
    url: withDatabase(server, name),
    async drop() {
      await sql(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A fresh schema in a database, and the URL that makes it the connection's search_path. */
export async function createTestSchema(databaseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `s_${randomBytes(6).toString('hex')}`;
  await sql(databaseUrl, `CREATE SCHEMA ${schema}`);
  const parsed = new URL(databaseUrl);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: parsed.toString(),
    drop: async () => {
      await sql(databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}
