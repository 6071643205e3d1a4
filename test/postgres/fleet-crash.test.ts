// Issue 33: a scan spread over three workers, one of them killed with SIGKILL twice while the
// 1,100-file scan runs (once alone, once among the others), ends with exactly one result per
// input, equal (checks and results) to `check --json` of the same files. Real PostgreSQL, real
// subprocesses of the built CLI.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { comparable, fleetTestBed, inputCounts, makeMixedFolder, waitFor } from '../helpers/fleet.js';
import { sql } from '../helpers/postgres.js';
import { parseLines, runBin } from '../helpers/run-cli.js';
import { makeSignedSet } from '../helpers/signed.js';

const FILES = 1100;
const bed = fleetTestBed('prov-fleet-crash-');

beforeAll(async () => {
  makeMixedFolder(join(bed.dir, 'photos'), FILES, (await makeSignedSet()).jpeg);
}, 120_000);

it('three workers, one killed twice: every input has exactly one result, equal to check --json', async () => {
  const queue = bed.queue;
  // Small batches and a short lease, so that kills land in the middle of batches and their
  // batches come back within seconds.
  const started = await runBin(['scan', 'start', 'crash', 'photos', '--queue', queue, '--batch', '40', '--lease', '3'], { cwd: bed.dir });
  expect(started.stderr).toContain(`${FILES.toLocaleString('en-US')} inputs listed`);
  expect(started.code).toBe(0);

  const spawnOne = () => bed.worker();
  // First kill: the victim alone, so the batches it holds when it dies are certainly its own.
  let victim = spawnOne();
  await waitFor('100 results', async () => (await inputCounts(queue, 'crash')).done >= 100);
  victim.child.kill('SIGKILL');
  expect((await victim.exited).signal).toBe('SIGKILL');
  // Second kill: three workers, the victim killed as soon as it has written results, while most
  // of the scan (and of the batches it took) is still to do.
  spawnOne();
  spawnOne();
  victim = spawnOne();
  const victimId = `${hostname()}:${victim.child.pid}`;
  await waitFor("the second victim's first results", async () => (await sql(queue, `SELECT 1 FROM provenance_scan.inputs WHERE scan = 'crash' AND worker = $1 LIMIT 1`, [victimId])).length > 0);
  expect((await inputCounts(queue, 'crash')).queued).toBeGreaterThan(0);
  victim.child.kill('SIGKILL');
  expect((await victim.exited).signal).toBe('SIGKILL');
  spawnOne();
  await waitFor('the scan to finish', async () => (await inputCounts(queue, 'crash')).queued === 0, 180_000);

  // Exactly one row per input, each with its one line (the table's key, and what it holds).
  const [{ rows, sources }] = await sql(queue, `SELECT count(*)::int AS rows, count(DISTINCT source)::int AS sources FROM provenance_scan.inputs WHERE scan = 'crash' AND line IS NOT NULL`);
  expect({ rows, sources }).toEqual({ rows: FILES, sources: FILES });

  // The counts `scan status` reads from the scan's row and per worker, kept by the writes
  // themselves, agree with the rows, batches run twice and all.
  const status = JSON.parse((await runBin(['scan', 'status', 'crash', '--json', '--queue', queue])).stdout);
  const [byState] = await sql(queue, `SELECT count(*) FILTER (WHERE state = 'done')::int AS done, count(*) FILTER (WHERE state = 'failed')::int AS failed FROM provenance_scan.inputs WHERE scan = 'crash'`);
  expect(status).toMatchObject({ state: 'finished', total: FILES, queued: 0, done: byState!.done, failed: byState!.failed });
  expect(status.workers.reduce((sum: number, w: { done: number; failed: number }) => sum + w.done + w.failed, 0)).toBe(FILES);

  const results = await runBin(['scan', 'results', 'crash', '--json', '--queue', queue], { cwd: bed.dir });
  const checked = await runBin(['check', '--json', 'photos'], { cwd: bed.dir });
  const fromScan = parseLines(results.stdout);
  const fromCheck = parseLines(checked.stdout);
  expect(fromScan).toHaveLength(FILES);
  expect(comparable(fromScan)).toEqual(comparable(fromCheck));
  // The text files are errors in both, the rest results: the same exit code as check's.
  expect(results.code).toBe(checked.code);
  // The kills landed in batches, which came back when their leases ran out and were run again.
  const [{ retried }] = await sql(queue, `SELECT count(*)::int AS retried FROM provenance_queue.job WHERE name = 'provenance-scan-batches' AND retry_count > 0`);
  expect(retried).toBeGreaterThanOrEqual(1);
  // The killed workers' batches were taken up by others: more than one worker wrote results.
  const writers = await sql(queue, `SELECT DISTINCT worker FROM provenance_scan.inputs WHERE scan = 'crash'`);
  expect(writers.length).toBeGreaterThanOrEqual(3);
}, 300_000);
