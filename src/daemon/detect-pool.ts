// How the daemon runs the engine: on the engine's worker pool (src/engine/pool.ts), so a slow
// file never delays /healthz, /v1/detectors or another request's I/O; or, with `size: 0`, on
// the main thread (tests that run the TypeScript sources without a built worker).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { detect } from '../engine/detect.js';
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

/**
 * The engine pool's worker is dist/detect-worker.js (looked up the way src/engine/pool.ts does:
 * from dist/cli.js, a chunk in dist/chunks/, or src/ under the tests); without a build there is
 * none to start.
 */
export function builtWorkerExists(): boolean {
  for (const rel of ['./detect-worker.js', '../detect-worker.js', '../../dist/detect-worker.js']) {
    if (existsSync(fileURLToPath(new URL(rel, import.meta.url)))) return true;
  }
  return false;
}

export async function createDetectRunner(options: PoolOptions = {}): Promise<DetectRunner> {
  const size = options.size ?? (builtWorkerExists() ? Math.min(4, availableParallelism()) : 0);
  const detectOptions = (checks?: DetectorId[]) => ({ checks, ...(options.trustAnchorsPem ? { trustAnchorsPem: options.trustAnchorsPem } : {}) });
  if (size === 0) {
    return { size: 0, detect: (bytes, checks) => detect(bytes, detectOptions(checks)), close: async () => {} };
  }
  const { DetectPool } = await import('../engine/pool.js');
  const pool = new DetectPool({ size, taskTimeoutMs: 60_000 });
  return {
    size,
    detect: async (bytes, checks) => (await pool.run({ source: 'request', bytes }, detectOptions(checks))).result,
    close: () => pool.close(),
  };
}
