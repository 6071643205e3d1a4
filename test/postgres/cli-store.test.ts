// The CLI around the PostgreSQL store: `daemon migrate`, `daemon store copy` from an embedded
// store (keys keep working), and bad input (a malformed URL, a refused connection, a schema
// newer than this provenance): one line, exit 2, nothing written.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { runBin, runCli } from '../helpers/run-cli.js';
import { createTestDatabase, sql, type TestDatabase } from '../helpers/postgres.js';
import { b64, http, tempDir } from '../daemon/helpers.js';
import { startDaemonProcess } from '../daemon/process.js';

const jpeg = tinyJpeg();
const body = JSON.stringify({ media: b64(jpeg) });
const json = { 'content-type': 'application/json' };
const databases: TestDatabase[] = [];
const dirs: { cleanup(): void }[] = [];

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}

function dataDir(): string {
  const d = tempDir('prov-pg-cli-');
  dirs.push(d);
  return d.dir;
}

/** Every file under a directory, by relative path, with its bytes (what "nothing written" compares). */
function filesOf(root: string, under = ''): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(join(root, under))) {
    const path = join(under, name);
    if (statSync(join(root, path)).isDirectory()) for (const [p, bytes] of filesOf(root, path)) files.set(p, bytes);
    else files.set(path, readFileSync(join(root, path)));
  }
  return files;
}

const tables = async (url: string) =>
  (await sql(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).map((r) => r.table_name);

afterAll(async () => {
  for (const db of databases) await db.drop();
  for (const d of dirs) d.cleanup();
});

describe('daemon migrate', () => {
  it('creates the schema once, then has nothing to do', async () => {
    const db = await database();
    const first = await runCli(['daemon', 'migrate', '--store', db.url]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/from schema version 0 to 2 \(applied 1, 2\)/);
    const again = await runCli(['daemon', 'migrate'], undefined, { PROVENANCE_DATABASE_URL: db.url });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/is at schema version 2; nothing to do/);
    expect(await tables(db.url)).toEqual(['accounts', 'api_keys', 'burst_hits', 'schema_migrations', 'sessions', 'signin_tokens', 'upload_chunks', 'uploads', 'usage']);
  });
});

describe('daemon start --detach --store', () => {
  it('runs in the background on the database; the URL reaches it through the environment, not its command line', async () => {
    const db = await database();
    const dir = dataDir();
    const url = db.url.replace('postgres://postgres@', 'postgres://postgres:not-needed-with-trust@');
    const started = await runBin(['daemon', 'start', '--detach', '--port', '0', '--data-dir', dir, '--store', url]);
    expect(started.code, started.stderr).toBe(0);
    const pid = Number(readFileSync(join(dir, 'daemon.pid'), 'utf8'));
    try {
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('postgres://');
      expect(JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8')).store).not.toContain('not-needed-with-trust');
      const base = /listening on (\S+)/.exec(started.stdout)![1]!;
      expect((await http(base, 'GET', '/healthz')).body).toEqual({ status: 'ok', test_mode: false });
    } finally {
      expect((await runBin(['daemon', 'stop', '--data-dir', dir])).code).toBe(0);
    }
  });
});

describe('bad --store input: one line, exit 2, nothing written', () => {
  let refusedPort: number;
  beforeAll(async () => {
    // A port on 127.0.0.1 that nothing listens on: bound, noted, closed.
    refusedPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
  });

  it.each([
    ['a malformed URL', () => 'postgres//nohost', /--store must be a PostgreSQL URL/],
    ['another scheme', () => 'mysql://root@127.0.0.1/db', /--store must be a postgres:\/\/ URL/],
    ['no database', () => 'postgres://postgres@127.0.0.1:5432', /names no database/],
    ['a refused connection', () => `postgres://postgres@127.0.0.1:${refusedPort}/x`, /could not connect to PostgreSQL at .*: connection refused/],
  ])('%s', async (_name, url, message) => {
    const dir = dataDir();
    for (const args of [
      ['daemon', 'start', '--port', '0', '--data-dir', dir, '--store', url()],
      ['daemon', 'migrate', '--store', url()],
      ['daemon', 'accounts', 'list', '--store', url()],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
    // Nothing written to the data dir either: no embedded store, no store.json, no lock or token.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a database of a newer schema', async () => {
    const db = await database();
    expect((await runCli(['daemon', 'migrate', '--store', db.url])).code).toBe(0);
    await sql(db.url, "INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')");
    const before = await sql(db.url, 'SELECT count(*)::int AS n FROM accounts');
    const dir = dataDir();
    for (const args of [
      ['daemon', 'start', '--port', '0', '--data-dir', dir, '--store', db.url],
      ['daemon', 'migrate', '--store', db.url],
      ['daemon', 'accounts', 'create', '--email', 'x@example.test', '--store', db.url],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toBe("provenance: the database's schema is version 99, newer than this provenance knows (2); upgrade provenance");
    }
    expect(await sql(db.url, 'SELECT count(*)::int AS n FROM accounts')).toEqual(before);
    expect((await sql(db.url, 'SELECT version FROM schema_migrations ORDER BY 1')).map((r) => r.version)).toEqual([1, 2, 99]);
    // Nor to the daemon's data dir: no embedded store, no store.json, no lock or token.
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('daemon store copy', () => {
  it('moves accounts, keys, usage and live uploads; the old keys keep working on PostgreSQL', async () => {
    const from = dataDir();
    const created = await runCli(['daemon', 'accounts', 'create', '--email', 'move@example.test', '--plan', 'starter', '--data-dir', from, '--json']);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout).key;
    const revokedKey = JSON.parse((await runCli(['daemon', 'keys', 'create', '--email', 'move@example.test', '--data-dir', from, '--json'])).stdout).key;
    expect((await runCli(['daemon', 'keys', 'revoke', revokedKey.id, '--data-dir', from])).code).toBe(0);

    // Some usage and an upload on the embedded store.
    const embedded = await startDaemonProcess(['--data-dir', from]);
    for (let i = 0; i < 3; i++) expect((await http(embedded.url, 'POST', '/v1/detect', { key: key.value, body, headers: json })).status).toBe(200);
    const upload = await http(embedded.url, 'POST', '/v1/uploads', { key: key.value, body: jpeg as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/octet-stream' } });
    expect(upload.status).toBe(201);

    // Not while its daemon runs.
    const db = await database();
    const busy = await runCli(['daemon', 'store', 'copy', '--from', from, '--to', db.url]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/a daemon \(pid \d+\) runs on .*; stop it first/);
    embedded.child.kill('SIGTERM');
    expect(await embedded.exited).toBe(0);

    const copy = await runCli(['daemon', 'store', 'copy', '--from', from, '--to', db.url]);
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toMatch(/^copied 1 accounts, 2 keys, 1 usage counters and 1 live uploads from .* to postgres:\/\//);

    const sharedDir = dataDir();
    const shared = await startDaemonProcess(['--data-dir', sharedDir, '--store', db.url]);
    try {
      const r = await http(shared.url, 'POST', '/v1/detect', { key: key.value, body, headers: json });
      expect(r.status).toBe(200);
      expect(r.headers['x-quota-used']).toBe('4');
      const fromUpload = await http(shared.url, 'POST', '/v1/detect', { key: key.value, json: { upload: upload.body.id } });
      expect(fromUpload.status).toBe(200);
      expect(fromUpload.body.media.sha256).toBe(upload.body.sha256);
      expect((await http(shared.url, 'POST', '/v1/detect', { key: revokedKey.value, body, headers: json })).status).toBe(401);
      // While it runs, the admin commands on its data dir go through it (to the database).
      const listed = await runCli(['daemon', 'keys', 'list', '--data-dir', sharedDir, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).keys).toHaveLength(2);
    } finally {
      shared.child.kill('SIGTERM');
      await shared.exited;
    }
    // Stopped, its data dir still says where its state is: no quiet write to an embedded store.
    const offline = await runCli(['daemon', 'accounts', 'create', '--email', 'lost@example.test', '--data-dir', sharedDir]);
    expect(offline.code).toBe(2);
    expect(offline.stderr.trim()).toMatch(/^provenance: the daemon of .* keeps its state in PostgreSQL \(postgres:\/\/.*\); pass --store with that URL/);
    expect(existsSync(join(sharedDir, 'provenance.json'))).toBe(false);

    // A second copy into a database that holds accounts is refused, and changes nothing.
    const twice = await runCli(['daemon', 'store', 'copy', '--from', from, '--to', db.url]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/holds accounts already; store copy fills an empty database/);
    expect(await sql(db.url, 'SELECT count(*)::int AS n FROM accounts')).toEqual([{ n: 1 }]);
  });
});

describe('daemon store copy: the target is checked before the source is touched', () => {
  it('a malformed --to, a refused connection or a newer schema: one line, exit 2, the source data dir byte-identical', async () => {
    // A source whose journal holds changes (its daemon killed -9 under calls): opening it would
    // fold them into the snapshot and empty the journal, and take over the stale lock.
    const from = dataDir();
    const created = await runCli(['daemon', 'accounts', 'create', '--email', 'untouched@example.test', '--plan', 'starter', '--data-dir', from, '--json']);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout).key.value;
    const daemon = await startDaemonProcess(['--data-dir', from]);
    for (let i = 0; i < 3; i++) expect((await http(daemon.url, 'POST', '/v1/detect', { key, body, headers: json })).status).toBe(200);
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    const before = filesOf(from);
    expect(before.get('provenance.journal')?.length).toBeGreaterThan(0);

    const refusedPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const newer = await database();
    expect((await runCli(['daemon', 'migrate', '--store', newer.url])).code).toBe(0);
    await sql(newer.url, "INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')");
    for (const [to, message] of [
      ['postgres//nohost', /^provenance: --to must be a PostgreSQL URL/],
      ['mysql://root@127.0.0.1/db', /^provenance: --to must be a postgres:\/\/ URL/],
      [`postgres://postgres@127.0.0.1:${refusedPort}/x`, /^provenance: could not connect to PostgreSQL at .*: connection refused$/],
      [newer.url, /^provenance: the database's schema is version 99, newer than this provenance knows/],
    ] as const) {
      const r = await runCli(['daemon', 'store', 'copy', '--from', from, '--to', to]);
      expect(r.code, to).toBe(2);
      expect(r.stderr.trim().split('\n'), to).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
      expect(r.stdout).toBe('');
      expect(filesOf(from), to).toEqual(before);
    }
  });
});
