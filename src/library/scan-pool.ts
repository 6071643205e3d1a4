// The worker pool of a scan, opened the same way for `provenance check` on a folder
// (library/checker.ts) and the library's scan(): one place for its shape, the worker cap and
// the number of results in flight, so the two cannot drift apart.
import { availableParallelism } from 'node:os';
import type { DetectPool } from '../engine/pool.js';

/**
 * Files sent to a worker per message: a scan wants throughput, not each answer a moment sooner
 * (PoolOptions.batch in engine/pool.ts says why).
 */
export const SCAN_BATCH = 8;

/**
 * Worker threads per core, at most. Checks are CPU work; more threads than this only add
 * memory (each worker loads its own engine) and switching: `--concurrency 256` on 2 cores took
 * 22 s and 5.4 GB for 300 files, the default 2.4 s and 135 MB (docs/PERFORMANCE.md).
 */
export const MAX_WORKERS_PER_CORE = 4;

/**
 * Results in flight per core: two batches of eight for a worker per core, and as many again
 * queued, so workers stay busy behind a slow file. Bounded by the machine, not by the worker
 * count, so a large concurrency cannot make memory grow while results wait to go out in input
 * order.
 */
export const WINDOW_PER_CORE = 32;

/** The workers a scan starts when `requested` are asked for: at most MAX_WORKERS_PER_CORE per core. */
export function scanWorkers(requested: number, cores: number = availableParallelism()): number {
  return Math.min(requested, MAX_WORKERS_PER_CORE * cores);
}

/** Inputs a scan has in flight (handed to the pool, result not yet passed on), at most. */
export function scanWindow(cores: number = availableParallelism()): number {
  return WINDOW_PER_CORE * cores;
}

/**
 * A pool for a scan that asks for `requested` workers (capped by scanWorkers); the pool's code
 * is loaded here, on the first scan only.
 */
export async function openScanPool(requested: number): Promise<DetectPool> {
  const { DetectPool } = await import('../engine/pool.js');
  return new DetectPool({ size: scanWorkers(requested), batch: SCAN_BATCH });
}
