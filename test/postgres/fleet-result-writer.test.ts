// Issue 40 (23): the result writer (src/fleet/result-writer.ts) in this process against the real
// PostgreSQL, so that mutation testing reaches it (the other fleet suites run it inside CLI
// subprocesses): real results of real files (a C2PA-signed JPEG with its report details, a camera
// JPEG, a file that is gone), written into the rows `scan start` made, with the scan's and the
// worker's counts.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandInputs, type InputItem } from '../../src/engine/inputs.js';
import { openFleet, type FleetConnection } from '../../src/fleet/fleet-connection.js';
import { ResultWriter } from '../../src/fleet/result-writer.js';
import { startScan } from '../../src/fleet/scan-start.js';
import { poolRunner, type Outcome, type PoolRunner } from '../../src/library/checker.js';
import { errorLine, resultLine } from '../../src/library/json-line.js';
import { verdictOf } from '../../src/verdict/verdict.js';
import { tinyJpeg } from '../fixtures/make.js';
import { ROOT } from '../helpers/corpus.js';
import { waitFor } from '../helpers/fleet.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const OPTIONS = { checks: ['c2pa', 'camera_reference', 'generator_metadata'], catalogue: 'full' as const };

let db: TestDatabase;
let fleet: FleetConnection;
let runner: PoolRunner;
let dir: string;
/** Real outcomes of real files: the signed JPEG's (with C2PA details), the camera JPEG's, a missing file's. */
let signed: Outcome & { ok: true };
let camera: Outcome & { ok: true };
let missing: Outcome & { ok: false };

async function itemOf(path: string): Promise<InputItem> {
  for await (const item of expandInputs([path])) return item;
  throw new Error(`no item for ${path}`);
}

beforeAll(async () => {
  db = await createTestDatabase();
  fleet = await openFleet(db.url);
  runner = poolRunner(1, process.stdin);
  dir = mkdtempSync(join(tmpdir(), 'prov-result-writer-'));
  copyFileSync(join(ROOT, 'examples', 'signed.jpg'), join(dir, 'signed.jpg'));
  copyFileSync(join(ROOT, 'examples', 'camera.jpg'), join(dir, 'camera.jpg'));
  signed = (await runner.check(await itemOf(join(dir, 'signed.jpg')), OPTIONS)) as typeof signed;
  camera = (await runner.check(await itemOf(join(dir, 'camera.jpg')), OPTIONS)) as typeof camera;
  missing = (await runner.check({ source: 'gone.jpg', kind: 'file', path: join(dir, 'gone.jpg') }, OPTIONS)) as typeof missing;
  expect(signed.ok && camera.ok && !missing.ok).toBe(true);
  expect(signed.details).toBeTruthy(); // the C2PA report details the worker posts beside the result
}, 120_000);

afterAll(async () => {
  await runner?.close();
  await fleet?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A scan of `count` files of its own (listed by scan start, so its rows are as a worker finds them). */
async function newScan(name: string, count: number): Promise<void> {
  const folder = join(dir, name);
  mkdirSync(folder);
  for (let i = 0; i < count; i++) writeFileSync(join(folder, `f${String(i).padStart(4, '0')}.jpg`), tinyJpeg({ seed: i }));
  await startScan(fleet, { name, sources: [folder], options: OPTIONS, batchSize: 10_000, leaseSeconds: 60, engine: 'test' });
}

const rowOf = async (scan: string, seq: number) =>
  (
    await fleet.pool.query(`SELECT state, line, details, reason, worker, identity, finished_at IS NOT NULL AS finished FROM provenance_scan.inputs WHERE scan = $1 AND seq = $2`, [
      scan,
      seq,
    ])
  ).rows[0];
const countsOf = async (scan: string) =>
  (await fleet.pool.query(`SELECT queued::int, done::int, failed::int FROM provenance_scan.scans WHERE name = $1`, [scan])).rows[0];
const workersOf = async (scan: string) =>
  (await fleet.pool.query(`SELECT worker, done::int, failed::int, last_at IS NOT NULL AS seen FROM provenance_scan.workers WHERE scan = $1 ORDER BY worker`, [scan])).rows;
const doneIn = async (scan: string) =>
  (await fleet.pool.query(`SELECT count(*)::int AS n FROM provenance_scan.inputs WHERE scan = $1 AND state <> 'queued'`, [scan])).rows[0].n as number;

describe('one result', () => {
  it('takes its row: the check --json line with its verdict, the C2PA details, the worker, the time; the counts move by one', async () => {
    await newScan('one', 3);
    const writer = new ResultWriter(fleet, 'one', 'w1');
    await writer.add(1, signed, 'file:1:2');
    await writer.flush();
    const row = await rowOf('one', 1);
    expect(row).toMatchObject({ state: 'done', reason: null, worker: 'w1', identity: 'file:1:2', finished: true });
    expect(row.line).toBe(resultLine(signed.source, signed.result, signed.hints, verdictOf(signed.result)));
    expect(JSON.parse(row.line).verdict).toEqual(verdictOf(signed.result));
    expect(row.details).toEqual(JSON.parse(JSON.stringify(signed.details)));
    expect(await rowOf('one', 0)).toMatchObject({ state: 'queued', line: null, worker: null, finished: false });
    expect(await countsOf('one')).toEqual({ queued: 2, done: 1, failed: 0 });
    expect(await workersOf('one')).toEqual([{ worker: 'w1', done: 1, failed: 0, seen: true }]);
    expect({ written: writer.written, failed: writer.failed }).toEqual({ written: 1, failed: 0 });
  });

  it('a line the scan cache made is kept as it is; a result without C2PA details has none', async () => {
    await newScan('cached', 2);
    const writer = new ResultWriter(fleet, 'cached', 'w1');
    const json = '{"source":"cached.jpg","made":"by the scan cache"}';
    await writer.add(0, { ...signed, json });
    await writer.add(1, camera);
    await writer.flush();
    expect((await rowOf('cached', 0)).line).toBe(json);
    const plain = await rowOf('cached', 1);
    expect(plain.details).toBeNull();
    expect(plain.line).toBe(resultLine(camera.source, camera.result, camera.hints, verdictOf(camera.result)));
  });

  it('a failed input: its error line and reason, no details; counted failed by the scan, the worker and the writer', async () => {
    await newScan('failed', 2);
    const writer = new ResultWriter(fleet, 'failed', 'w2');
    await writer.add(0, missing, null);
    await writer.add(1, camera, null);
    await writer.flush();
    const row = await rowOf('failed', 0);
    expect(row).toMatchObject({ state: 'failed', details: null, worker: 'w2', finished: true });
    expect(row.line).toBe(errorLine(missing.source, missing.error));
    expect(row.reason).toBe(missing.error.message);
    expect(await countsOf('failed')).toEqual({ queued: 0, done: 1, failed: 1 });
    expect(await workersOf('failed')).toEqual([{ worker: 'w2', done: 1, failed: 1, seen: true }]);
    expect({ written: writer.written, failed: writer.failed }).toEqual({ written: 2, failed: 1 });
  });

  it("the identity as read is stored (null too); without one the listing's stays", async () => {
    await newScan('identity', 3);
    const listed = (await rowOf('identity', 2)).identity;
    expect(listed).toMatch(/^file:\d+:\d+$/);
    const writer = new ResultWriter(fleet, 'identity', 'w1');
    await writer.add(0, camera, 'file:9:9');
    await writer.add(1, camera, null);
    await writer.add(2, camera);
    await writer.flush();
    expect((await rowOf('identity', 0)).identity).toBe('file:9:9');
    expect((await rowOf('identity', 1)).identity).toBeNull();
    expect((await rowOf('identity', 2)).identity).toBe(listed);
  });
});

describe('one result per input', () => {
  it('a row finished already is left as it was and counted by no one; rows of other scans are not touched', async () => {
    await newScan('twice', 2);
    await newScan('other', 2);
    const first = new ResultWriter(fleet, 'twice', 'w1');
    await first.add(0, camera);
    await first.flush();
    const before = await rowOf('twice', 0);
    const second = new ResultWriter(fleet, 'twice', 'w2');
    await second.add(0, missing);
    await second.flush();
    expect(await rowOf('twice', 0)).toEqual(before);
    expect({ written: second.written, failed: second.failed }).toEqual({ written: 0, failed: 0 });
    expect(await countsOf('twice')).toEqual({ queued: 1, done: 1, failed: 0 });
    expect(await workersOf('twice')).toEqual([{ worker: 'w1', done: 1, failed: 0, seen: true }]);
    expect(await countsOf('other')).toEqual({ queued: 2, done: 0, failed: 0 });
    expect(await rowOf('other', 0)).toMatchObject({ state: 'queued', line: null });
  });
});

describe('groups', () => {
  it('64 results are written at once; fewer a moment later without a flush, again after a flush', async () => {
    await newScan('groups', 140);
    const writer = new ResultWriter(fleet, 'groups', 'w1');
    for (let seq = 0; seq < 63; seq++) await writer.add(seq, camera);
    expect(await doneIn('groups')).toBe(0);
    await writer.add(63, camera);
    expect(await doneIn('groups')).toBe(64);
    expect(writer.written).toBe(64);
    // The next group starts empty: again 63 wait, the 64th writes them all.
    for (let seq = 64; seq < 127; seq++) await writer.add(seq, camera);
    expect(await doneIn('groups')).toBe(64);
    await writer.add(127, camera);
    expect(await doneIn('groups')).toBe(128);
    await writer.add(128, camera);
    expect(await doneIn('groups')).toBe(128);
    await waitFor('the timer to write the 129th', async () => (await doneIn('groups')) === 129, 5000);
    // After a flush the next result has a timer of its own again.
    await writer.add(129, camera);
    await writer.flush();
    await writer.add(130, camera);
    await waitFor('the timer to write the 131st', async () => (await doneIn('groups')) === 131, 5000);
    expect(writer.written).toBe(131);
    expect(await countsOf('groups')).toEqual({ queued: 9, done: 131, failed: 0 });
  });

  it('a later group never overtakes an earlier one', async () => {
    await newScan('order', 1);
    const writer = new ResultWriter(fleet, 'order', 'w1');
    await writer.add(0, camera);
    const early = writer.flush();
    await writer.add(0, missing);
    const late = writer.flush();
    await Promise.all([early, late]);
    expect((await rowOf('order', 0)).state).toBe('done');
    expect({ written: writer.written, failed: writer.failed }).toEqual({ written: 1, failed: 0 });
  });

  it('a write that fails is counted by no one and fails its flush; a flush with nothing to write asks nothing', async () => {
    await newScan('down', 1);
    const gone = await openFleet(db.url);
    await gone.close();
    const idle = new ResultWriter(gone, 'down', 'w1');
    await expect(idle.flush()).resolves.toBeUndefined();
    const writer = new ResultWriter(gone, 'down', 'w1');
    await writer.add(0, missing);
    await expect(writer.flush()).rejects.toThrow();
    expect({ written: writer.written, failed: writer.failed }).toEqual({ written: 0, failed: 0 });
    expect(await countsOf('down')).toEqual({ queued: 1, done: 0, failed: 0 });
  });
});
