// A store URL with its password in every form (user:PASSWORD@, ?password=, ?sslpassword=) on a
// real PostgreSQL (trust auth: the passwords are never checked, only carried): the daemon runs
// on it, and no form of the password is in its start's output, its daemon.log (the start's
// configuration line included), store.json, or what `daemon migrate` and the admin commands
// print (issue 34, item 7). test/daemon/masked-url.test.ts has each form on its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { http, tempDir } from '../daemon/helpers.js';

let db: TestDatabase | undefined;
const dir = tempDir('prov-pg-url-secrets-');
afterAll(async () => {
  await db?.drop();
  dir.cleanup();
});

describe('a store URL with passwords', () => {
  it('is shown and saved masked everywhere', async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    url.password = 'pw-user-s3cret';
    url.searchParams.set('password', 'pw-query-s3cret');
    url.searchParams.set('application_name', 'provenance-test');
    const store = url.toString();
    const seen: string[] = [];
    const run = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const r = await runBin(args, { env });
      seen.push(r.stdout, r.stderr);
      return r;
    };
    const migrated = await run(['daemon', 'migrate', '--store', store]);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/password=\*\*\*/);
    const started = await run(['daemon', 'start', '--detach', '--port', '0', '--data-dir', dir.dir, '--store', store]);
    expect(started.code, started.stderr).toBe(0);
    try {
      const base = /listening on (\S+)/.exec(started.stdout)![1]!;
      expect((await http(base, 'GET', '/healthz')).status).toBe(200);
      const created = await run(['daemon', 'accounts', 'create', '--email', 'url-secrets@example.test', '--data-dir', dir.dir]);
      expect(created.code, created.stderr).toBe(0);
      expect((await run(['daemon', 'accounts', 'list'], { PROVENANCE_DATABASE_URL: store })).code).toBe(0);
    } finally {
      expect((await run(['daemon', 'stop', '--data-dir', dir.dir])).code).toBe(0);
    }
    const saved = JSON.parse(readFileSync(join(dir.dir, 'store.json'), 'utf8')).store as string;
    expect(saved).toContain('password=***');
    const log = readFileSync(join(dir.dir, 'daemon.log'), 'utf8');
    // The configuration line names the store, masked (the log's last filter then says [redacted]).
    expect(log).toMatch(/"store":"postgres:\/\/postgres:\*\*\*@[^"]*password=(\*\*\*|\[redacted\])/);
    for (const text of [saved, log, ...seen]) {
      expect(text).not.toContain('s3cret');
    }
  }, 60_000);
});
