// The distributed scan's settings and their bounds: where the queue is (--queue or
// PROVENANCE_QUEUE), how inputs are grouped into jobs, how long a worker holds one, how often a
// job or an input is tried. One place, read by the commands, the library and the docs' test.

/** The environment variable that names the queue when --queue is not given. */
export const QUEUE_ENV = 'PROVENANCE_QUEUE';

/** pg-boss's own tables live here, apart from a user's own pg-boss in `pgboss`. */
export const QUEUE_SCHEMA = 'provenance_queue';
/** Our scan and input tables (fleet-schema.ts). */
export const SCAN_SCHEMA = 'provenance_scan';
/** The pg-boss queue of batches, and where a batch goes once its retries are spent. */
export const BATCH_QUEUE = 'provenance-scan-batches';
export const DEAD_QUEUE = 'provenance-scan-dead';

/** Inputs per job: hundreds, so that the queue is never what a fleet waits on (docs/SCALE.md). */
export const DEFAULT_BATCH = 200;
export const BATCH_BOUNDS = { min: 1, max: 10_000 } as const;

/**
 * Seconds a worker holds a batch without a sign of life: it renews the lease every third of it,
 * so a batch of a killed worker comes back within one lease and a maintenance interval.
 */
export const DEFAULT_LEASE_SECONDS = 60;
export const LEASE_BOUNDS = { min: 3, max: 3600 } as const;

/** Tries of a batch after its first (a crash, a lost lease, a database error), with back-off. */
export const DEFAULT_RETRIES = 5;
export const RETRY_DELAY_SECONDS = 1;

/**
 * Times an input may be begun by a worker that then ended without a result for it (a crash, a
 * kill) before it is written off as a failed input, so that one file that kills every worker
 * that reads it cannot stop its batch's other inputs or the scan.
 */
export const MAX_INPUT_STARTS = 2;

/** A scan's name: what `scan status NAME` takes, safe in a shell and a log line. */
export const SCAN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class FleetError extends Error {
  /** Exit code for the CLI: 2 for a usage error (the default), 1 for a queue that cannot be reached. */
  constructor(
    message: string,
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'FleetError';
  }
}

/** --queue, else PROVENANCE_QUEUE: a postgres:// URL, or a FleetError saying what is wrong. */
export function queueUrl(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = given ?? env[QUEUE_ENV];
  if (!url) throw new FleetError(`name the queue: --queue postgres://... or ${QUEUE_ENV} (docs/SCALE.md).`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FleetError(`the queue must be a postgres:// URL (${given !== undefined ? '--queue' : QUEUE_ENV}).`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new FleetError(`the queue must be a postgres:// URL, not ${parsed.protocol}// (${given !== undefined ? '--queue' : QUEUE_ENV}).`);
  }
  return url;
}

/** Where the queue is, for messages: host, port and database, never the user or a password. */
export function queueWhere(url: string): string {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '') || 'postgres';
  return `${parsed.hostname || 'localhost'}${parsed.port ? `:${parsed.port}` : ''}/${decodeURIComponent(db)}`;
}

export function checkScanName(name: string): string {
  if (!SCAN_NAME.test(name)) throw new FleetError(`"${name.slice(0, 40)}" is not a scan name: letters, digits, ".", "_" and "-", starting with a letter or digit, at most 100.`);
  return name;
}

export function checkBounded(what: string, value: number, bounds: { min: number; max: number }): number {
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) throw new FleetError(`${what} takes a whole number from ${bounds.min} to ${bounds.max}.`);
  return value;
}
