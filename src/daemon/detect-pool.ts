// How the daemon runs the engine: on the engine's worker pool (src/engine/pool.ts), so a slow
// file never delays /healthz, /v1/detectors or another request's I/O; or, with `size: 0`, on
// the main thread (tests that run the TypeScript sources without a built worker).
import { availableParallelism } from 'node:os';
import { detect } from '../engine/detect.js';
import { DetectPool, findWorkerUrl } from '../engine/pool.js';
import type { DetectionResult, DetectorId } from '../types.js';

export interface DetectRunner {
  readonly size: number;
  detect(bytes: Uint8Array, checks?: DetectorId[]): Promise<DetectionResult>;
  close(): Promise<void>;
}

export interface PoolOptions {
  /** Worker threads; default one per core, at most 4; 0 runs detection on the main thread. */
  size?: number;
  /** PEM trust anchors for C2PA signer validation, as `provenance check` uses them. */
  trustAnchorsPem?: string;
}

export async function createDetectRunner(options: PoolOptions = {}): Promise<DetectRunner> {
  // Without a build there is no worker to start (tests that run the TypeScript sources).
  const size = options.size ?? (findWorkerUrl() ? Math.min(4, availableParallelism()) : 0);
  const detectOptions = (checks?: DetectorId[]) => ({ checks, ...(options.trustAnchorsPem ? { trustAnchorsPem: options.trustAnchorsPem } : {}) });
  if (size === 0) {
    return { size: 0, detect: (bytes, checks) => detect(bytes, detectOptions(checks)), close: async () => {} };
  }
  const pool = new DetectPool({ size, taskTimeoutMs: 60_000 });
  return {
    size,
    detect: async (bytes, checks) => (await pool.run({ source: 'request', bytes }, detectOptions(checks))).result,
    close: () => pool.close(),
  };
}
