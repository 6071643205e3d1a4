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
  detect(bytes: Uint8Array, checks?: DetectorId[]): Promise<DetectionResult>;
  /** Inline base64 `media` decoded into `into` (on a worker: both over shared memory). */
  decodeBase64(text: Buffer, into: Buffer): Promise<Base64Outcome>;
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
    return {
      size: 0,
      detect: (bytes, checks) => detect(bytes, detectOptions(checks)),
      decodeBase64: async (text, into) => decodeBase64Into(text, into),
      close: async () => {},
    };
  }
  const pool = new DetectPool({ size, taskTimeoutMs: 60_000, collectWhenIdle: true });
  return {
    size,
    detect: async (bytes, checks) => (await pool.run({ source: 'request', bytes }, detectOptions(checks))).result,
    decodeBase64: (text, into) => pool.decodeBase64('request', text, into),
    close: () => pool.close(),
  };
}
