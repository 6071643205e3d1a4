// What `import { startScan, runScanWorker, ... } from 'provenance-check'` gets: light functions
// that load the distributed scan (fleet-api.ts, and with it `pg` and pg-boss) on their first call,
// so that importing the package stays cheap for those who never scan past one machine.
import type { QueueOptions, ScanResultRow, ScanStatus, ScanWorkerOptions, StartOutcome, StartScanOptions, WorkerSummary } from './fleet-types.js';

export { FleetError } from './fleet-settings.js';
export type { QueueOptions, ScanResultRow, ScanStatus, ScanWorkerOptions, StartOutcome, StartScanOptions, WorkerShare, WorkerSummary } from './fleet-types.js';

let api: Promise<typeof import('./fleet-api.js')> | undefined;
const load = () => (api ??= import('./fleet-api.js'));

/**
 * Lists the sources (files, folders walked as `check` walks them, `s3://bucket/prefix`), writes one
 * row per input in the queue's PostgreSQL and queues them in batches; returns once all are queued.
 * Workers (`provenance scan worker`, or {@link runScanWorker}) on any machine then check them.
 * @throws {@link FleetError} for a bad name, option or source list, an existing scan of that name,
 *   or a queue that cannot be reached.
 */
export async function startScan(options: StartScanOptions): Promise<StartOutcome> {
  return (await load()).startScan(options);
}

/**
 * Takes batches from the queue and checks them, as `provenance scan worker` does, until
 * `options.signal` is aborted (the batches in hand are finished first) or, with `untilEmpty`, no
 * batch is waiting.
 */
export async function runScanWorker(options: ScanWorkerOptions = {}): Promise<WorkerSummary> {
  return (await load()).runScanWorker(options);
}

/** Queued, done and failed inputs, per worker, rate and ETA of a scan. */
export async function scanStatus(name: string, options: QueueOptions = {}): Promise<ScanStatus> {
  return (await load()).scanStatus(name, options);
}

/** Every scan in the queue with its status. */
export async function listScans(options: QueueOptions = {}): Promise<ScanStatus[]> {
  return (await load()).listScans(options);
}

/** A scan's inputs in source order; each finished one with its `check --json` line. */
export async function* scanResults(name: string, options: QueueOptions = {}): AsyncGenerator<ScanResultRow> {
  yield* (await load()).scanResults(name, options);
}

/** Stops a scan: none of its waiting batches is begun; batches in hand finish. */
export async function cancelScan(name: string, options: QueueOptions = {}): Promise<{ cancelledJobs: number }> {
  return (await load()).cancelScan(name, options);
}

/** Queues the failed inputs of a scan again, and only those. */
export async function retryScan(name: string, options: QueueOptions = {}): Promise<{ requeued: number }> {
  return (await load()).retryScan(name, options);
}

/** Removes a scan with its inputs and results (its waiting batches are cancelled). */
export async function deleteScan(name: string, options: QueueOptions = {}): Promise<void> {
  return (await load()).deleteScan(name, options);
}
