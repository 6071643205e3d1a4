import type { C2paDetails } from '../detectors/c2pa-manifest.js';
import type { DetectionResult, ErrorInfo } from '../types.js';
import type { DetectOptions } from './detect.js';
import type { Hints } from './xmp-hints.js';

// The pool and its workers talk in batches: the pool posts an array of tasks, and the worker
// answers the whole array with one array of replies (PoolOptions.batch says why). A worker does
// one task at a time and writes which one, and since when, to a small shared buffer, so the pool
// can time each task from its real start and knows which task a crashed worker was on.

/** Layout of the shared progress buffer (BigInt64Array over a SharedArrayBuffer). */
export const PROGRESS_TASK = 0;
export const PROGRESS_STARTED_MS = 1;
export const PROGRESS_SLOTS = 2;

/** Milliseconds on the system's monotonic clock, which every thread reads alike and which no
 * change of the wall clock moves. */
export function progressClock(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/** One file to check: a path the worker reads itself, or bytes already in memory (stdin). */
export interface WorkerTask {
  id: number;
  source: string;
  path?: string;
  bytes?: Uint8Array;
  options: DetectOptions;
  /** The CLI's unsigned XMP hints (never part of the /v1 result the daemon returns). */
  hints?: boolean;
}

/** What a worker found: the /v1 result plus what the CLI's report shows beside it. */
export interface Checked {
  result: DetectionResult;
  hints?: Hints;
  /** Report details of the c2pa match, which structured clone cannot carry inside `result`. */
  details?: C2paDetails;
}

export type WorkerReply =
  | ({ id: number; ok: true } & Checked)
  | { id: number; ok: false; inputError: boolean; error: ErrorInfo };
