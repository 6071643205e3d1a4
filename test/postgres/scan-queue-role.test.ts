// The queue's role (issue 40, 9 and 16), on the test server: docs/SCALE.md "The queue's role" run
// as written on a throwaway copy of docs/SELF-HOSTING.md's database (its role and database SQL
// with the names changed), then a whole scan as that role through the built CLI; and what a
// refused login says: the queue by host, port and database, never by its user.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMixedFolder } from '../helpers/fleet.js';
import { ROOT } from '../helpers/corpus.js';
import { adminUrl, sql, withDatabase } from '../helpers/postgres.js';
import { parseLines, runBin } from '../helpers/run-cli.js';

const suffix = randomBytes(4).toString('hex');
/** docs/SELF-HOSTING.md's `provenance` (role and database) and docs/SCALE.md's `scanner`. */
const owner = `prov_owner_${suffix}`;
const database = `prov_queue_${suffix}`;
const scanner = `prov_scanner_${suffix}`;
const server = new URL(adminUrl());
const queueUrl = (role: string, db = database) =>
  `postgres://${role}:another-long-random-password@${server.hostname}:${server.port || 5432}/${db}`;
const where = `${server.hostname}:${server.port || 5432}/${database}`;

/** The statements of the heredoc in the doc's shell block that holds `marker`. */
function heredoc(file: string, marker: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes(marker));
  expect(found, `${file}: ${marker}`).toHaveLength(1);
  return /<<'SQL'\n([\s\S]*?)\nSQL/.exec(found[0]!)![1]!.split('\n').filter(Boolean);
}

/** A statement of the docs under this test's names. */
const local = (statement: string) =>
  statement
    .replace(/\bscanner\b/g, scanner)
    .replace(/\bprovenance\b/g, (_m, at: number, all: string) => (/DATABASE\s+$/.test(all.slice(0, at)) ? database : owner));

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-queue-role-'));
  // docs/SELF-HOSTING.md's role and database: every right on it revoked from other roles.
  for (const statement of heredoc('docs/SELF-HOSTING.md', 'CREATE ROLE provenance')) await sql(adminUrl(), local(statement));
}, 60_000);

afterAll(async () => {
  await sql(adminUrl(), `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  for (const role of [scanner, owner]) await sql(adminUrl(), `DROP ROLE IF EXISTS ${role}`).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

const scan = (args: string[], role = scanner) => runBin(['scan', ...args, '--queue', queueUrl(role)], { cwd: dir });

describe("a login the server refuses names the queue, never its user (docs/SCALE.md: 'never by its user or password')", () => {
  it('a role that does not exist', async () => {
    const missing = `prov_nobody_${suffix}`;
    const run = await scan(['status', 'x'], missing);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `provenance: cannot reach the queue at ${where}: the server refused the queue URL's user: no such role, or no pg_hba.conf line admits it from this address (SQLSTATE 28000; the server's log says which).\n`,
    );
    expect(run.stderr).not.toContain(missing);
    expect(run.stderr).not.toContain('another-long-random-password');
  });
});

describe("docs/SCALE.md: the queue's role", () => {
  const [createRole, ...grants] = heredoc('docs/SCALE.md', 'CREATE ROLE scanner');

  it("without the doc's GRANT the role cannot even connect to the daemons' database", async () => {
    await sql(adminUrl(), local(createRole!));
    const run = await scan(['list']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach the queue at ${where}: permission denied for database`);
    expect(run.stderr).not.toContain(scanner);
  });

  it('with it, the role runs a whole scan: start, a worker, status, results', async () => {
    for (const statement of grants) await sql(adminUrl(), local(statement));
    const [role] = await sql(adminUrl(), 'SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = $1', [scanner]);
    expect(role).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    const files = makeMixedFolder(join(dir, 'photos'), 12);
    const started = await scan(['start', 'photos-2026', 'photos']);
    expect(started.code, started.stderr).toBe(0);
    const worker = await scan(['worker', '--until-empty', '--concurrency', '1', '--quiet']);
    expect(worker.code, worker.stderr).toBe(0);
    const status = await scan(['status', 'photos-2026', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).state).toBe('finished');
    const results = await scan(['results', 'photos-2026', '--json']);
    const lines = parseLines(results.stdout);
    expect(lines).toHaveLength(files.length);
    expect(lines.filter((l) => l.error === undefined).length).toBeGreaterThan(0);
    // The role made the two schemas, so it owns them.
    const schemas = await sql(withDatabase(adminUrl(), database), "SELECT nspname, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname LIKE 'provenance_%' ORDER BY 1");
    expect(schemas).toEqual([
      { nspname: 'provenance_queue', owner: scanner },
      { nspname: 'provenance_scan', owner: scanner },
    ]);
  }, 120_000);

  it("the daemons' tables are not the role's, nor its tables theirs", async () => {
    await sql(withDatabase(adminUrl(), database), `CREATE TABLE public.accounts_probe (id int)`);
    await sql(withDatabase(adminUrl(), database), `ALTER TABLE public.accounts_probe OWNER TO ${owner}`);
    await expect(sql(queueUrl(scanner), 'SELECT * FROM public.accounts_probe')).rejects.toThrow(/permission denied/);
    await expect(sql(queueUrl(owner), 'SELECT * FROM provenance_scan.inputs')).rejects.toThrow(/permission denied/);
  });

  it('as SECURITY.md and SCALE.md say, the role itself can change a finished result (only the code keeps to queued rows)', async () => {
    const rows = await sql(queueUrl(scanner), "UPDATE provenance_scan.inputs SET line = line WHERE state = 'done' RETURNING seq");
    expect(rows.length).toBeGreaterThan(0);
    const text = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
    expect(text('docs/SECURITY.md')).toContain('so a batch run twice cannot change a finished result; the role can');
    expect(text('docs/SCALE.md')).toContain('anyone holding the queue\'s URL can change or delete any row');
  });
});
