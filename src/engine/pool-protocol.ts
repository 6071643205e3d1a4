import type { C2paDetails } from '../detectors/c2pa-manifest.js';
import type { DetectionResult, ErrorInfo } from '../types.js';
import type { Base64Outcome } from './base64-media.js';
import type { DetectOptions } from './detect.js';
import type { Hints } from '../media/xmp-hints.js';

// The pool and its workers talk in batches: the pool posts an array of tasks, and the worker
// answers the whole array with one array of replies (PoolOptions.batch says why). A worker does
// one task at a time and writes which one, and since when, to a small shared buffer, so the pool
// can time each task from its real start and knows which task a crashed worker was on.

/** Layout of the shared progress buffer (BigInt64Array over a SharedArrayBuffer). */
const PROGRESS_TASK = 0;
const PROGRESS_STARTED_MS = 1;
/** Bytes for one progress buffer. */
export const PROGRESS_BYTES = 16;

/** Milliseconds on the system's monotonic clock, which every thread reads alike and which no
 * change of the wall clock moves. */
export function progressClock(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/** Worker side: it starts task `id` now. The start is written before the id, and the pool reads
 * the id first (runningTask), so it never pairs a new task with the previous one's start. */
export function markTaskStarted(progress: BigInt64Array, id: number): void {
  Atomics.store(progress, PROGRESS_STARTED_MS, BigInt(progressClock()));
  Atomics.store(progress, PROGRESS_TASK, BigInt(id));
}

/** Worker side: between tasks. */
export function markIdle(progress: BigInt64Array): void {
  Atomics.store(progress, PROGRESS_TASK, 0n);
}

/** Pool side: the task a worker is on (0 when none) and since when. */
export function runningTask(progress: BigInt64Array): { id: number; startedMs: number } {
  const id = Number(Atomics.load(progress, PROGRESS_TASK));
  return { id, startedMs: Number(Atomics.load(progress, PROGRESS_STARTED_MS)) };
}

/**
 * One file to check: a path the worker reads itself, or bytes already in memory (stdin, a
 * daemon request). Bytes over a SharedArrayBuffer are only lent: the worker copies them first.
 */
export interface WorkerTask {
  id: number;
  source: string;
  /** Bytes when the path is not valid UTF-8 (byte-paths.ts); a Buffer arrives as a Uint8Array. */
  path?: string | Uint8Array;
  bytes?: Uint8Array;
  options: DetectOptions;
  /** The CLI's unsigned XMP hints (never part of the /v1 result the daemon returns). */
  hints?: boolean;
  /**
   * Not a check: `bytes` is base64 text, to be decoded into this (both over shared memory), and
   * the answer is the decoded length (a DecodeReply). The daemon's inline `media`.
   */
  decodeInto?: Uint8Array;
  /**
   * The daemon's test mode only (its tests' `testDetectHold`): the worker blocks this long before
   * the checks, as a file whose checks take that long would, so the time limit and the turns
   * per account can be tested without a file that costs real minutes. Nothing else sets it.
   */
  holdMs?: number;
}

/** What a worker found: the /v1 result plus what the CLI's report shows beside it. */
export interface Checked {
  result: DetectionResult;
  hints?: Hints;
  /** Report details of the c2pa match, which structured clone cannot carry inside `result`. */
  details?: C2paDetails;
}

export type CheckReply = { id: number; ok: true } & Checked;
export type DecodeReply = { id: number; ok: true; decoded: Base64Outcome };

/**
 * The one message that is not a batch of replies: a worker posts it once its code has loaded and
 * it listens for tasks, so the pool can tell a started worker from one that is still loading or
 * fails as it loads (the daemon's /readyz counts ready workers).
 */
export const WORKER_READY = 'ready';

export type WorkerReply =
  | CheckReply
  | DecodeReply
  | { id: number; ok: false; inputError: boolean; error: ErrorInfo };
