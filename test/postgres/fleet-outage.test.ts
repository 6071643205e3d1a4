// Issue 33: a queue that goes away mid-scan (its server stopped, then started again) stops no
// worker and loses no input: the worker says so, waits, takes up the scan again, and every input
// ends with exactly one result. A throwaway PostgreSQL server of its own (test/helpers/pg-cluster.ts),
// never the shared one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inputCounts, makeMixedFolder, startWorker, waitFor, type CliProcess } from '../helpers/fleet.js';
import { clusterUnavailable, startCluster, type Cluster } from '../helpers/pg-cluster.js';
import { BATCH_QUEUE, DEAD_QUEUE } from '../../src/fleet/fleet-settings.js';
import { openFleet } from '../../src/fleet/fleet-connection.js';
import { createTestDatabase, sql } from '../helpers/postgres.js';
import { runBin } from '../helpers/run-cli.js';

const unavailable = clusterUnavailable();
if (unavailable) {
  if (process.env.CI) throw new Error(`the queue outage test needs a throwaway server: ${unavailable}`);
  process.stderr.write(`NOTICE: queue outage test SKIPPED: ${unavailable}\n`);
}

const FILES = 300;
let cluster: Cluster;
let dir: string;
let worker: CliProcess | undefined;

beforeAll(async () => {
  if (unavailable) return;
  cluster = await startCluster();
  dir = mkdtempSync(join(tmpdir(), 'prov-fleet-outage-'));
  makeMixedFolder(join(dir, 'photos'), FILES);
}, 120_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await worker?.exited;
  cluster?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it.skipIf(Boolean(unavailable))('a worker outlives a stopped queue and finishes the scan when it is back', async () => {
  const queue = cluster.url;
  expect((await runBin(['scan', 'start', 'outage', 'photos', '--queue', queue, '--batch', '20', '--lease', '3'], { cwd: dir })).code).toBe(0);
  worker = startWorker(queue);
  await waitFor('a first result', async () => (await inputCounts(queue, 'outage')).done > 0);
  cluster.stop();
  await waitFor('the worker to notice', () => worker!.stderr().includes('the queue does not answer'), 30_000);
  cluster.start();
  await waitFor('the scan to finish', async () => (await inputCounts(queue, 'outage')).queued === 0, 120_000);
  expect(worker.child.exitCode).toBeNull();
  // Said by the first claim after the outage (a batch in hand may have finished the scan first).
  await waitFor('the worker to say the queue answers again', () => /the queue answers again after \d+ s/.test(worker!.stderr()), 60_000);
  const [{ rows, sources }] = await sql(queue, `SELECT count(*)::int AS rows, count(DISTINCT source)::int AS sources FROM provenance_scan.inputs WHERE scan = 'outage' AND line IS NOT NULL`);
  expect({ rows, sources }).toEqual({ rows: FILES, sources: FILES });
  worker.child.kill('SIGTERM');
  expect((await worker.exited).code).toBe(0);
  // Issue 40 (15): its closing line counts what the database holds under its name, whatever the
  // outage did to the writes in flight (a batch failed after some of its results were written; a
  // write committed whose answer was lost).
  expect(closingCounts(worker)).toEqual(await countsUnder(queue, worker));
}, 240_000);

/** The worker's closing line: its name, inputs written and failed. */
function closingCounts(w: CliProcess): { id: string; inputs: number; failed: number } {
  const m = /scan worker (\S+): [\d,]+ batches, ([\d,]+) inputs written \(([\d,]+) failed\)/.exec(w.stderr());
  if (!m) throw new Error(`no closing line in: ${w.stderr()}`);
  const n = (s: string) => Number(s.replace(/,/g, ''));
  return { id: m[1]!, inputs: n(m[2]!), failed: n(m[3]!) };
}

/** What the scan's per-worker counts hold for the worker of that closing line. */
async function countsUnder(queue: string, w: CliProcess): Promise<{ id: string; inputs: number; failed: number }> {
  const { id } = closingCounts(w);
  const [row] = await sql(queue, `SELECT coalesce(sum(done + failed), 0)::int AS inputs, coalesce(sum(failed), 0)::int AS failed FROM provenance_scan.workers WHERE worker = $1`, [id]);
  return { id, inputs: row!.inputs, failed: row!.failed };
}

it.skipIf(Boolean(unavailable))('the closing line counts the inputs a worker wrote off from the dead-letter queue', async () => {
  const db = await createTestDatabase(cluster.url);
  try {
    makeMixedFolder(join(dir, 'dead'), 5);
    expect((await runBin(['scan', 'start', 'dead', 'dead', '--queue', db.url], { cwd: dir })).code).toBe(0);
    // The batch as pg-boss leaves it once its tries are spent: a copy in the dead-letter queue.
    const fleet = await openFleet(db.url);
    try {
      const [job] = await sql(db.url, `SELECT data FROM provenance_queue.job WHERE name = $1`, [BATCH_QUEUE]);
      await fleet.boss.send(DEAD_QUEUE, job!.data);
      await sql(db.url, `DELETE FROM provenance_queue.job WHERE name = $1`, [BATCH_QUEUE]);
    } finally {
      await fleet.close();
    }
    const dead = startWorker(db.url, ['--until-empty']);
    expect((await dead.exited).code).toBe(0);
    expect(await inputCounts(db.url, 'dead')).toEqual({ queued: 0, done: 0, failed: 5 });
    expect(dead.stderr()).toContain('5 input(s) of a batch that failed every try written off as failed');
    expect(closingCounts(dead)).toMatchObject({ inputs: 5, failed: 5 });
    expect(closingCounts(dead)).toEqual(await countsUnder(db.url, dead));
  } finally {
    await db.drop();
  }
}, 120_000);
