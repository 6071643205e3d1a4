// The distributed scan as functions: what `provenance scan ...` runs and what the library exports
// (fleet/entry.ts loads this module on the first call). Each opens its own connection to the
// queue and closes it before it returns.
import { READ_TIMEOUT_MAX_SECONDS } from '../engine/read-deadline.js';
import { availableParallelism } from 'node:os';
import { CheckSelectionError, parseCatalogue, resolveChecks } from '../engine/checks.js';
import type { FsPath } from '../engine/byte-paths.js';
import { createHash } from 'node:crypto';
import { trustListFiles } from '../config/trust-lists.js';
import { engineVersion } from '../engine/engine-version.js';
import { packageDataFile } from '../media/package-data.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import { isHttpsUrl, isPlainHttpUrl, parseHttpsUrl } from '../engine/https-source.js';
import { isS3Url, parseS3Url } from '../engine/s3-source.js';
import { makePathFilter } from '../engine/path-filter.js';
import { poolRunner } from '../library/checker.js';
import { scanWorkers } from '../library/scan-pool.js';
import type { CatalogueName } from '../types.js';
import { openFleet, type FleetConnection } from './fleet-connection.js';
import {
  BATCH_BOUNDS,
  checkBounded,
  checkScanName,
  DEFAULT_BATCH,
  DEFAULT_LEASE_SECONDS,
  FleetError,
  LEASE_BOUNDS,
  queueUrl,
} from './fleet-settings.js';
import * as rows from './scan-rows.js';
import { checkBasedOn, startScan as listAndQueue } from './scan-start.js';
import { runWorker } from './scan-worker.js';
import type { QueueOptions, ScanResultRow, ScanWorkerOptions, StartScanOptions, StartOutcome, WorkerSummary } from './fleet-types.js';

async function withFleet<T>(options: QueueOptions, fn: (fleet: FleetConnection) => Promise<T>, open: Parameters<typeof openFleet>[1] = {}): Promise<T> {
  const fleet = await openFleet(queueUrl(options.queue, options.env ?? process.env), open);
  try {
    return await fn(fleet);
  } finally {
    await fleet.close();
  }
}

/**
 * `listed`: more sources after `options.sources`, as `--files-from` gives them (bytes for a name
 * that is not UTF-8): one that is not a URL a worker can read is a failed input of the scan, as
 * `check` makes it that input's error line, where a named source is refused before the scan is made.
 */
export async function startScan(options: StartScanOptions, listed: readonly FsPath[] = []): Promise<StartOutcome> {
  const name = checkScanName(options.name);
  if (!options.sources.length && !listed.length) throw new FleetError('name at least one source: files, folders or s3://bucket/prefix.');
  const bad = options.sources.find((s) => s === '-');
  if (bad !== undefined) throw new FleetError('standard input (-) cannot be a scan source: workers on other machines cannot read it; list the files, or use --files-from with a file.');
  for (const source of options.sources) checkUrlSource(source);
  let catalogue: CatalogueName;
  let checks: string[];
  try {
    catalogue = options.catalogue === undefined ? 'full' : parseCatalogue(options.catalogue);
    checks = resolveChecks(options.checks, catalogue);
  } catch (err) {
    if (err instanceof CheckSelectionError) throw new FleetError(err.message);
    throw err;
  }
  const batchSize = checkBounded('the batch size', options.batchSize ?? DEFAULT_BATCH, BATCH_BOUNDS);
  const leaseSeconds = checkBounded('the lease', options.leaseSeconds ?? DEFAULT_LEASE_SECONDS, LEASE_BOUNDS);
  const filter = makePathFilter(options.include, options.exclude, { caseSensitive: options.caseSensitive });
  const scanOptions = {
    checks,
    catalogue,
    ...(options.trustAnchorsPem ? { trustAnchorsPem: options.trustAnchorsPem } : {}),
    ...((options.c2paLists ?? !options.trustAnchorsPem) ? { c2paListsSha256: listsSha256(options.env ?? process.env) } : { c2paLists: false as const }),
  };
  const engine = engineVersion();
  return withFleet(options, async (fleet) => {
    const basedOn = options.incremental !== undefined ? await checkBasedOn(fleet, name, options.incremental, { options: scanOptions, engine }) : undefined;
    const outcome = await listAndQueue(fleet, {
      name,
      sources: [...options.sources, ...listed],
      options: scanOptions,
      filter,
      batchSize,
      leaseSeconds,
      engine,
      basedOn: options.incremental,
      reuse: basedOn?.reuse,
      onListed: options.onListed,
      signal: options.signal,
    });
    return basedOn && !basedOn.reuse ? { ...outcome, notReused: basedOn.why } : outcome;
  });
}

/** The SHA-256 of the C2PA lists this machine uses (updated in its config folder, else bundled). */
function listsSha256(env: NodeJS.ProcessEnv): string {
  const text = trustAnchorText({ trustLists: trustListFiles(packageDataFile('c2pa'), env) }) ?? '';
  return createHash('sha256').update(text).digest('hex');
}

/**
 * An http:// URL, or an https:// or s3:// one that is malformed, among the named sources: a typing
 * error, refused before the scan takes its name (as `check` refuses it before any request).
 */
function checkUrlSource(source: string): void {
  try {
    if (isS3Url(source)) parseS3Url(source);
    else if (isHttpsUrl(source) || isPlainHttpUrl(source)) parseHttpsUrl(source);
  } catch (err) {
    throw new FleetError((err as Error).message);
  }
}

/** Seconds between pg-boss's sweeps for leases run out (the live workers take turns at it). */
const SWEEP_SECONDS = 2;

export async function runScanWorker(options: ScanWorkerOptions = {}): Promise<WorkerSummary> {
  const concurrency = checkBounded('--concurrency', options.concurrency ?? availableParallelism(), { min: 1, max: 256 });
  const readTimeoutMs = options.readTimeoutSeconds === undefined ? undefined : checkBounded('--read-timeout', options.readTimeoutSeconds, { min: 1, max: READ_TIMEOUT_MAX_SECONDS }) * 1000;
  const runner = poolRunner(scanWorkers(concurrency), process.stdin);
  try {
    return await withFleet(
      options,
      (fleet) =>
        runWorker({
          fleet,
          runner,
          engine: engineVersion(),
          signal: options.signal ?? new AbortController().signal,
          log: options.onLog ?? (() => {}),
          untilEmpty: options.untilEmpty,
          pollSeconds: options.pollSeconds,
          readTimeoutMs,
        }),
      // Connections: a claim or a write per batch in hand, their lease renewals, pg-boss's sweep.
      { supervise: { intervalSeconds: SWEEP_SECONDS }, max: 6 },
    );
  } finally {
    await runner.close();
  }
}

export const scanStatus = (name: string, options: QueueOptions = {}) => withFleet(options, (fleet) => rows.scanStatus(fleet, name));
export const listScans = (options: QueueOptions = {}) => withFleet(options, (fleet) => rows.listScans(fleet));
export const cancelScan = (name: string, options: QueueOptions = {}) => withFleet(options, (fleet) => rows.cancelScan(fleet, name));
export const retryScan = (name: string, options: QueueOptions = {}) => withFleet(options, (fleet) => rows.retryScan(fleet, name));
export const deleteScan = (name: string, options: QueueOptions = {}) => withFleet(options, (fleet) => rows.deleteScan(fleet, name));

/** A scan's inputs in source order, finished or not; the connection closes when the loop ends. */
export async function* scanResults(name: string, options: QueueOptions = {}): AsyncGenerator<ScanResultRow> {
  const fleet = await openFleet(queueUrl(options.queue, options.env ?? process.env));
  try {
    for await (const row of rows.scanResults(fleet, name)) yield { source: row.source, state: row.state, line: row.line, details: row.details, reason: row.reason };
  } finally {
    await fleet.close();
  }
}
