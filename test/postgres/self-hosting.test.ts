// docs/SELF-HOSTING.md's PostgreSQL section, run as written against the test server, with its
// names changed: the role and database `provenance` become a throwaway prov_guide_<random>,
// db.internal the test server, `sudo -u postgres` the test server's admin user. The role/database
// SQL, `daemon migrate` as that role (no superuser), a daemon on it, the backup commands
// (pg_dump -Fc, both forms) and the restore (createdb, pg_restore --no-owner, daemon migrate):
// a key made before the dump still works on the restored database, and its usage carried on.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { ROOT } from '../helpers/corpus.js';
import { adminUrl, sql, withDatabase } from '../helpers/postgres.js';
import { b64, tempDir } from '../daemon/helpers.js';
import { BIN, startDaemonProcess } from '../daemon/process.js';

const GUIDE = readFileSync(join(ROOT, 'docs', 'SELF-HOSTING.md'), 'utf8');
const shellBlocks = [...GUIDE.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
/** The guide's shell block whose text contains `marker`. */
const block = (marker: string) => {
  const found = shellBlocks.filter((b) => b.includes(marker));
  expect(found, marker).toHaveLength(1);
  return found[0]!;
};
/** Its commands: comment lines dropped, `\` continuations joined. */
const commands = (text: string) =>
  text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));

const server = new URL(adminUrl());
const role = `prov_guide_${randomBytes(4).toString('hex')}`;
const restored = `${role}_r`;
const work = tempDir('prov-guide-');
const dirs = [work];

/** A command of the guide, on the test server, under the throwaway names. */
function local(command: string): string {
  return command
    .replace(/^sudo -u postgres /, '')
    .replaceAll('postgres://provenance:PASSWORD@db.internal:5432/', `postgres://${role}:a-long-random-password@${server.hostname}:${server.port || 5432}/`)
    .replaceAll('-h db.internal', `-h ${server.hostname} -p ${server.port || 5432}`)
    .replace(/\bprovenance_restored\b/g, restored)
    .replace(/(-U|-O|-d) provenance\b/g, `$1 ${role}`)
    .replace(/\/provenance\b/g, `/${role}`)
    .replace(/^provenance /, `'${process.execPath}' '${BIN}' `);
}

function sh(command: string): string {
  const run = spawnSync('sh', ['-c', command], {
    cwd: work.dir,
    encoding: 'utf8',
    // createdb as the test server's admin user (the guide's `sudo -u postgres`).
    env: { ...process.env, PGUSER: decodeURIComponent(server.username || 'postgres'), PGPASSWORD: decodeURIComponent(server.password), PGHOST: server.hostname, PGPORT: server.port || '5432' },
  });
  expect(run.status, `${command}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run.stdout;
}

const hasPgDump = spawnSync('pg_dump', ['--version']).status === 0;

afterAll(async () => {
  for (const db of [restored, role]) await sql(adminUrl(), `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
  await sql(adminUrl(), `DROP ROLE IF EXISTS ${role}`).catch(() => {});
  for (const d of dirs) d.cleanup();
});

describe('docs/SELF-HOSTING.md, PostgreSQL', () => {
  let key = '';

  it('the role and database SQL makes a role without superuser that owns its database', async () => {
    const setup = block('CREATE ROLE provenance');
    const body = /<<'SQL'\n([\s\S]*?)\nSQL/.exec(setup)![1]!;
    for (const statement of body.split('\n').filter(Boolean)) await sql(adminUrl(), local(statement.replace(/\bprovenance\b/g, role)));
    const [r] = await sql(adminUrl(), 'SELECT rolsuper, rolcreatedb FROM pg_roles WHERE rolname = $1', [role]);
    expect(r).toEqual({ rolsuper: false, rolcreatedb: false });
    const [d] = await sql(adminUrl(), 'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [role]);
    expect(d!.owner).toBe(role);
  });

  it('daemon migrate as that role migrates, then finds nothing to do; a daemon on it serves', async () => {
    const [migrate] = commands(block('provenance daemon migrate --store postgres://provenance:PASSWORD@db.internal:5432/provenance\n'));
    expect(sh(local(migrate!))).toMatch(/from schema version 0 to \d+/);
    expect(sh(local(migrate!))).toMatch(/nothing to do/);
    const [create] = commands(block('daemon accounts create --email team@example.com'));
    key = JSON.parse(sh(`${local(create!)} --json`)).key.value;
    const url = local('postgres://provenance:PASSWORD@db.internal:5432/provenance');
    const data = tempDir('prov-guide-daemon-');
    dirs.push(data);
    const daemon = await startDaemonProcess(['--store', url, '--data-dir', data.dir]);
    try {
      const res = await fetch(`${daemon.url}/v1/detect`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ media: b64(tinyJpeg()) }) });
      expect(res.status).toBe(200);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it.skipIf(!hasPgDump)('the backup and restore commands: the key works on the restored database, its usage carried on', async () => {
    const [full, small] = commands(block('pg_dump -h db.internal'));
    sh(local(full!));
    sh(local(small!));
    expect(readdirSync(work.dir).filter((f) => /^provenance-\d{4}-\d{2}-\d{2}\.dump$/.test(f))).toHaveLength(1);
    const restore = commands(block('pg_restore'));
    // The guide restores the newest dated dump, whatever day it was made: no fixed date in it.
    expect(restore.join('\n')).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    for (const command of restore) sh(local(command));
    const data = tempDir('prov-guide-restored-');
    dirs.push(data);
    const daemon = await startDaemonProcess(['--store', local('postgres://provenance:PASSWORD@db.internal:5432/provenance_restored'), '--data-dir', data.dir]);
    try {
      const res = await fetch(`${daemon.url}/v1/detect`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ media: b64(tinyJpeg()) }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-quota-used')).toBe('2');
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    // The small form restores the accounts and keys, without uploads.
    const list = execFileSync('pg_restore', ['--list', join(work.dir, 'provenance-small.dump')], { encoding: 'utf8' });
    expect(list).toMatch(/TABLE DATA public api_keys/);
    expect(list).not.toMatch(/TABLE DATA public upload_chunks/);
  });
});
