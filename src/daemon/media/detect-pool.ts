// How the daemon runs the engine: on the engine's worker pool (src/engine/pool.ts), so a slow
// file never delays /healthz, /v1/detectors or another request's I/O; or, with `size: 0`, on
// the main thread (tests that run the TypeScript sources without a built worker).
import { availableParallelism } from 'node:os';
import { decodeBase64Into, type Base64Outcome } from '../../engine/base64-media.js';
import { detect } from '../../engine/detect.js';
import { DetectPool, findWorkerUrl } from '../../engine/pool.js';
import type { DetectionResult, DetectorId } from '../../types.js';

export interface DetectRunner {
  readonly size: number;
  /**
   * Checks the bytes. On workers they are moved, not copied (the view is empty afterwards),
   * unless `keepBytes`: the caller reads them after the check.
   */
  detect(bytes: Uint8Array, checks?: DetectorId[], options?: { keepBytes?: boolean }): Promise<DetectionResult>;
  /** Inline base64 `media` decoded into `into` (on a worker: both over shared memory). */
  decodeBase64(text: Buffer, into: Buffer): Promise<Base64Outcome>;
  /**
   * Detection can run: at least one worker has loaded and is alive (or it runs on the main
   * thread), and the runner is not closed. /readyz asks it on every probe, so it only counts.
   */
  workersUp(): boolean;
  /** Workers busy now and tasks waiting for one (/metrics); on the main thread, detections running. */
  load(): { busy: number; queued: number };
  close(): Promise<void>;
}

export interface PoolOptions {
  /** Worker threads; default one per core, at most 4; 0 runs detection on the main thread. */
  size?: number;
  /** PEM trust anchors for C2PA signer validation, as `provenance check` uses them. */
  trustAnchorsPem?: string;
  /** The worker script (tests only: one that cannot start); default the built detect-worker. */
  workerUrl?: URL;
}

export async function createDetectRunner(options: PoolOptions = {}): Promise<DetectRunner> {
  // Without a build there is no worker to start (tests that run the TypeScript sources).
  const size = options.size ?? (findWorkerUrl() ? Math.min(4, availableParallelism()) : 0);
  const detectOptions = (checks?: DetectorId[]) => ({ checks, ...(options.trustAnchorsPem ? { trustAnchorsPem: options.trustAnchorsPem } : {}) });
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
      close: async () => {
        closed = true;
      },
    };
  }
  const pool = new DetectPool({ size, taskTimeoutMs: 60_000, collectWhenIdle: true, ...(options.workerUrl ? { workerUrl: options.workerUrl } : {}) });
  return {
    size,
    detect: async (bytes, checks, run) => (await pool.run({ source: 'request', bytes, keepBytes: run?.keepBytes }, detectOptions(checks))).result,
    decodeBase64: (text, into) => pool.decodeBase64('request', text, into),
    workersUp: () => pool.liveWorkers > 0,
    load: () => pool.load,
    close: () => pool.close(),
  };
}
