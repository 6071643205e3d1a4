// The queue benches' databases (bench-fleet.ts, bench-queue-choice.mjs): made fresh on the server
// PROVENANCE_BENCH_QUEUE names (default the local one) and dropped after, never a database of
// anyone's own.
import pg from 'pg';

export const BENCH_SERVER = process.env.PROVENANCE_BENCH_QUEUE || 'postgres://postgres@127.0.0.1:5432/postgres';

/** One statement on the server's own database. */
export async function admin(text) {
  const client = new pg.Client({ connectionString: BENCH_SERVER });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh database of this name (a plain identifier) on the server; its URL. */
export async function freshDatabase(name) {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(BENCH_SERVER);
  url.pathname = `/${name}`;
  return url.toString();
}
