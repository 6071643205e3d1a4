// PROVENANCE_STORE, --store's own variable, reaches the same database for every command that
// takes --store (issue 34, item 11): `daemon start` read it, `daemon migrate` and the admin
// commands did not (they fell back to the data dir, or asked for --store). Order everywhere:
// --store, then PROVENANCE_STORE, then PROVENANCE_DATABASE_URL.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { createTestDatabase, sql, type TestDatabase } from '../helpers/postgres.js';

let db: TestDatabase;
let refused: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  refused = `postgres://postgres@127.0.0.1:${port}/nothing`;
});
afterAll(() => db.drop());

describe('PROVENANCE_STORE', () => {
  it('is read by daemon migrate and the admin commands, before PROVENANCE_DATABASE_URL', async () => {
    // PROVENANCE_DATABASE_URL points nowhere: every command must use PROVENANCE_STORE instead.
    const env = { PROVENANCE_STORE: db.url, PROVENANCE_DATABASE_URL: refused };
    const migrated = await runCli(['daemon', 'migrate'], undefined, env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/from schema version 0 to \d+/);
    const created = await runCli(['daemon', 'accounts', 'create', '--email', 'store-env@example.test', '--json'], undefined, env);
    expect(created.code, created.stderr).toBe(0);
    expect((await sql(db.url, 'SELECT email FROM accounts')).map((r) => r.email)).toEqual(['store-env@example.test']);
    const listed = await runCli(['daemon', 'accounts', 'list', '--json'], undefined, env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('store-env@example.test');
    // --store still wins over both.
    const flag = await runCli(['daemon', 'migrate', '--store', refused], undefined, { PROVENANCE_STORE: db.url });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/could not connect to PostgreSQL at .*: connection refused/);
  });
});
