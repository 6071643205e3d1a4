// How the daemon runs the engine: on the engine's worker pool (src/engine/pool.ts), so a slow
// file never delays /healthz, /v1/detectors or another request's I/O; or, with `size: 0`, on
// the main thread (tests that run the TypeScript sources without a built worker).
import { availableParallelism } from 'node:os';
import { decodeBase64Into, type Base64Outcome } from '../../engine/base64-media.js';
import { detect } from '../../engine/detect.js';
import { DetectPool, findWorkerUrl, PoolTaskError } from '../../engine/pool.js';
import type { DetectionResult, DetectorId, TrustOptions } from '../../types.js';
import { BORROWED_TURN_MS, DetectTurns } from './detect-turns.js';
import { ApiError } from '../contract/errors.js';
import { DEFAULT_DETECT_TIMEOUT_MS } from './detect-timeout-flag.js';

/**
 * A file's checks ran past the time limit: its worker was stopped and replaced. The answer is
 * 413 media_too_large, the contract's type for a file over a limit the service sets (docs/API.md
 * "Time limit per file" says why that one); unlike the other 413s its call stays counted, since
 * the work was done.
 */
export class DetectTimeoutError extends ApiError {
  constructor(
    readonly limitMs: number,
    param?: string,
  ) {
    super(
      'media_too_large',
      `The checks of this file did not finish within the daemon's time limit of ${limitMs / 1000} s per file: it costs more work than this daemon allows, and sending it again gives the same answer. The call is counted.`,
      param,
    );
  }
}

/** How one detect runs: whose it is (its turn on the workers), and what the caller needs. */
export interface DetectRun {
  /** The account the detect is for: one account's detects take at most its share of the workers. */
  account?: string;
  /** The caller reads the bytes after the check. */
  keepBytes?: boolean;
}

export interface DetectRunner {
  readonly size: number;
  /**
   * Checks the bytes. On workers they are moved, not copied (the view is empty afterwards),
   * unless `keepBytes`: the caller reads them after the check.
   */
  detect(bytes: Uint8Array, checks?: DetectorId[], run?: DetectRun): Promise<DetectionResult>;
  /** Inline base64 `media` decoded into `into` (on a worker: both over shared memory). */
  decodeBase64(text: Buffer, into: Buffer): Promise<Base64Outcome>;
  /**
   * Detection can run: at least one worker has loaded and is alive (or it runs on the main
   * thread), and the runner is not closed. /readyz asks it on every probe, so it only counts.
   */
  workersUp(): boolean;
  /** Workers busy now and tasks waiting for one (/metrics); on the main thread, detections running. */
  load(): { busy: number; queued: number };
  /** Detects waiting for their account's turn on the workers now (/metrics). */
  waitingTurns(): number;
  /** Detects stopped at the time limit since the start (/metrics). */
  timeouts(): number;
  /**
   * Runs `work` (the Verify page's card pictures, made in this thread from bounded decodes) in a
   * turn of `account`'s own share, as its detects take theirs, so one account's pictures wait
   * behind its other work rather than beside another account's; `signal` aborts at the time
   * limit (`--detect-timeout`), after which `work` starts nothing more.
   */
  pictures<T>(account: string, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** `work` given a signal that aborts after `ms` (its timer never keeps the process alive). */
async function withinTime<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), ms);
  timer.unref();
  try {
    return await work(limit.signal);
  } finally {
    clearTimeout(timer);
  }
}

export interface PoolOptions {
  /** Worker threads; default one per core, at most 4; 0 runs detection on the main thread. */
  size?: number;
  /** C2PA trust anchors, as `provenance check` uses them: the lists as paths, read where a manifest is found. */
  trust?: TrustOptions;
  /** The worker script (tests only: one that cannot start); default the built detect-worker. */
  workerUrl?: URL;
  /** `--detect-timeout`: how long one file's checks may run on a worker (default 60 s). */
  timeoutMs?: number;
  /**
   * Test mode's hold (TestMode.detectHold: undefined outside test mode): how long the worker
   * blocks before the checks of these bytes, as a file that slow would.
   */
  holdFor?: (bytes: Uint8Array) => number | undefined;
}

export async function createDetectRunner(options: PoolOptions = {}): Promise<DetectRunner> {
  // Without a build there is no worker to start (tests that run the TypeScript sources).
  const size = options.size ?? (findWorkerUrl() ? Math.min(4, availableParallelism()) : 0);
  const detectOptions = (checks?: DetectorId[]) => ({ checks, ...options.trust });
  if (size === 0) {
    let closed = false;
    let running = 0;
    return {
      size: 0,
      detect: async (bytes, checks) => {
        running++;
        try {
          return await detect(bytes, detectOptions(checks));
        } finally {
          running--;
        }
      },
      decodeBase64: async (text, into) => decodeBase64Into(text, into),
      workersUp: () => !closed,
      load: () => ({ busy: running, queued: 0 }),
      // The main thread cannot be stopped mid-check: no time limit, and no turns to take there.
      waitingTurns: () => 0,
      timeouts: () => 0,
      pictures: (_account, work) => withinTime(options.timeoutMs ?? DEFAULT_DETECT_TIMEOUT_MS, work),
      close: async () => {
        closed = true;
      },
    };
  }
  const pool = new DetectPool({
    size,
    taskTimeoutMs: options.timeoutMs ?? DEFAULT_DETECT_TIMEOUT_MS,
    collectWhenIdle: true,
    ...(options.workerUrl ? { workerUrl: options.workerUrl } : {}),
  });
  const turns = new DetectTurns(size);
  let timeouts = 0;
  const timedOut = (err: unknown) => err instanceof PoolTaskError && err.info.type === 'timeout';
  const check = async (bytes: Uint8Array, checks: DetectorId[] | undefined, run: DetectRun, borrowed: boolean) => {
    // A borrowed turn may be cut short, and the detect run again: its bytes are copied to the
    // worker then, not moved (a stopped worker takes moved bytes with it).
    const holdMs = options.holdFor?.(bytes);
    const task = { source: 'request', bytes, keepBytes: run.keepBytes || borrowed, ...(holdMs ? { holdMs } : {}) };
    return (await pool.run(borrowed ? { ...task, timeoutMs: Math.min(BORROWED_TURN_MS, pool.timeoutMs) } : task, detectOptions(checks))).result;
  };
  /** In a turn of the account's own share: its time limit is the answer's. */
  const ownTurn = async (bytes: Uint8Array, checks: DetectorId[] | undefined, run: DetectRun) => {
    try {
      return await check(bytes, checks, run, false);
    } catch (err) {
      if (!timedOut(err)) throw err;
      timeouts++;
      throw new DetectTimeoutError(pool.timeoutMs);
    }
  };
  const inTurn = async (bytes: Uint8Array, checks: DetectorId[] | undefined, run: DetectRun) => {
    const account = run.account ?? '';
    try {
      return await turns.run(account, (borrowed) => (borrowed ? check(bytes, checks, run, true) : ownTurn(bytes, checks, run)));
    } catch (err) {
      // A borrowed turn ran out (never an own turn's timeout: that one is a DetectTimeoutError).
      if (!timedOut(err)) throw err;
      return turns.run(account, () => ownTurn(bytes, checks, run), false);
    }
  };
  return {
    size,
    // A detect without an account (none today) takes the turns of the account ''.
    detect: (bytes, checks, run = {}) => inTurn(bytes, checks, run),
    decodeBase64: (text, into) => pool.decodeBase64('request', text, into),
    workersUp: () => pool.liveWorkers > 0,
    load: () => pool.load,
    waitingTurns: () => turns.waiting,
    timeouts: () => timeouts,
    pictures: (account, work) => turns.run(account, () => withinTime(pool.timeoutMs, work), false),
    close: () => pool.close(),
  };
}
