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
import { sql } from '../helpers/postgres.js';
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
}, 240_000);
