// Issue 40 item 3: a scan worker reads only regular files. The listing keeps regular files, but
// the worker reads whatever path a row names, later: a listed file swapped for a symlink to
// /dev/zero or for a named pipe after `scan start`, and a row naming /dev/zero itself, are each
// a failed input saying what the path is, and `scan worker --until-empty` exits (a named pipe
// left a pool thread in open(2) for ever, so the worker printed its summary and never exited).
// Real PostgreSQL, the built CLI as a subprocess, every wait bounded.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tinyJpeg, tinyPng } from '../fixtures/make.js';
import { inputCounts, startWorker, type CliProcess } from '../helpers/fleet.js';
import { createTestDatabase, sql, type TestDatabase } from '../helpers/postgres.js';
import { runBin } from '../helpers/run-cli.js';

let dir: string;
let db: TestDatabase;
const workers: CliProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'prov-fleet-reads-'));
}, 120_000);

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

it('a symlink to /dev/zero, a named pipe and a row naming /dev/zero each fail; the worker exits', async () => {
  const photos = join(dir, 'photos');
  mkdirSync(photos);
  for (const name of ['zero.jpg', 'pipe.jpg', 'row.png', 'fine.jpg']) writeFileSync(join(photos, name), name.endsWith('.png') ? tinyPng() : tinyJpeg());
  const started = await runBin(['scan', 'start', 'swapped', 'photos', '--queue', db.url], { cwd: dir });
  expect(started.code).toBe(0);
  // After the listing: two files swapped by someone who can write into the folder, and a row
  // pointed at the device itself.
  rmSync(join(photos, 'zero.jpg'));
  symlinkSync('/dev/zero', join(photos, 'zero.jpg'));
  rmSync(join(photos, 'pipe.jpg'));
  execFileSync('mkfifo', [join(photos, 'pipe.jpg')]);
  await sql(db.url, `UPDATE provenance_scan.inputs SET location = '{"path": "/dev/zero"}'::jsonb WHERE scan = 'swapped' AND source LIKE '%row.png'`);

  // Two threads, so the pool (not only one in-process read) is what reads them.
  const w = startWorker(db.url, ['--until-empty', '--concurrency', '2']);
  workers.push(w);
  const ended = await Promise.race([w.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  expect(ended).toEqual({ code: 0, signal: null });

  expect(await inputCounts(db.url, 'swapped')).toEqual({ queued: 0, done: 1, failed: 3 });
  const rows = await sql(db.url, `SELECT source, line FROM provenance_scan.inputs WHERE scan = 'swapped' AND state = 'failed' ORDER BY source`);
  const errors = Object.fromEntries(rows.map((r) => [String(r.source).split('/').pop(), (typeof r.line === 'string' ? JSON.parse(r.line) : r.line).error]));
  expect(errors['pipe.jpg']).toEqual({ type: 'read_error', message: expect.stringMatching(/pipe\.jpg: not a regular file \(a named pipe\); only regular files are read\.$/) });
  expect(errors['zero.jpg']).toEqual({ type: 'read_error', message: expect.stringMatching(/zero\.jpg: not a regular file \(a character device\); only regular files are read\.$/) });
  expect(errors['row.png']).toEqual({ type: 'read_error', message: expect.stringMatching(/row\.png: not a regular file \(a character device\); only regular files are read\.$/) });
}, 120_000);
