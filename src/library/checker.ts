// How `check` gets one input checked: in this thread (one file, or --concurrency 1) or through
// the worker pool. Both give the same outcome, so the command does not care which ran it.
import { attachDetails, detailsOfResult } from '../detectors/c2pa-manifest.js';
import type { DetectOptions } from '../engine/detect.js';
import { newCheckId } from '../engine/ids.js';
import { httpsVersion } from '../engine/https-source.js';
import { InputError } from '../engine/input-error.js';
import { readInput, type InputItem } from '../engine/inputs.js';
import { holdRead, objectBudget, type ReadHold } from '../engine/read-budget.js';
import type { DetectPool } from '../engine/pool.js';
import type { ndjsonLine as NdjsonLine, objectIdentity as ObjectIdentity, ScanCache } from '../engine/scan-cache.js';
import { checkBytes } from './check-bytes.js';
import { openScanPool } from './scan-pool.js';
import type { Checked } from '../engine/pool-protocol.js';
import { readHints } from '../media/xmp-hints.js';
import type { ErrorInfo } from '../types.js';

export type Outcome =
  | ({
      source: string;
      ok: true;
      /** Answered from the scan cache (--incremental). */
      fromCache?: boolean;
      /** The NDJSON line for --json (without its newline), when the scan cache made it. */
      json?: string;
    } & Checked)
  | { source: string; ok: false; error: ErrorInfo; inputError: boolean };

export interface Checker {
  check(item: InputItem): Promise<Outcome>;
  close(): Promise<void>;
}

function failed(source: string, err: unknown): Outcome {
  if (err instanceof InputError) return { source, ok: false, error: err.toInfo(), inputError: true };
  const info = (err as { info?: ErrorInfo })?.info;
  if (info) return { source, ok: false, error: info, inputError: Boolean((err as { inputError?: boolean }).inputError) };
  throw err;
}

/** Checks in this thread, through the library check()'s own step from bytes to a result. */
export function inProcessChecker(options: DetectOptions, stdin: NodeJS.ReadableStream): Checker {
  return {
    async check(item) {
      try {
        const bytes = await readInput(item, stdin);
        const result = await checkBytes(bytes, options);
        return { source: item.source, ok: true, result, hints: await readHints(bytes) };
      } catch (err) {
        return failed(item.source, err);
      }
    },
    close: async () => {},
  };
}

/**
 * Checks through the worker pool with the options given per input: `check` uses one set for a
 * run (poolChecker), a distributed scan's worker one per scan it takes batches of (fleet/).
 */
export interface PoolRunner {
  /** `reading`: told when an S3 object's or https:// URL's read in this thread begins; what it returns, when it ends (a scan worker's InputReads). */
  check(item: InputItem, options: DetectOptions, reading?: (source: string) => () => void): Promise<Outcome>;
  close(): Promise<void>;
}

export function poolRunner(size: number, stdin: NodeJS.ReadableStream): PoolRunner {
  // The pool the library's scan() opens too (eight files per message). Started by the first file
  // that needs it: a rescan answered from the scan cache needs no workers.
  let started: Promise<DetectPool> | undefined;
  const pool = { run: async (...args: Parameters<DetectPool['run']>) => (await (started ??= openScanPool(size))).run(...args) };
  // An S3 object or https:// URL is read here and its bytes held until its check ends
  // (ReadBudget): a run's window of results in flight does not become as many objects in memory.
  const objects = objectBudget();
  return {
    async check(item, options, reading) {
      let release: ReadHold | undefined;
      let readEnds: (() => void) | undefined;
      try {
        if (item.kind === 'error') throw item.error;
        release = await holdRead(objects, item);
        if (item.kind !== 'file') readEnds = reading?.(item.source);
        const input = item.kind === 'file' ? { path: item.path } : { bytes: await readInput(item, stdin, release?.room) };
        readEnds?.();
        const checked = await pool.run({ source: item.source, hints: true, ...input }, options);
        attachDetails(checked.result, checked.details);
        return { source: item.source, ok: true, ...checked };
      } catch (err) {
        return failed(item.source, err);
      } finally {
        readEnds?.();
        release?.();
      }
    },
    close: async () => (await started)?.close(),
  };
}

export async function poolChecker(size: number, options: DetectOptions, stdin: NodeJS.ReadableStream): Promise<Checker> {
  const runner = poolRunner(size, stdin);
  return { check: (item) => runner.check(item, options), close: () => runner.close() };
}

/**
 * `check --incremental`: answers files seen unchanged from the scan cache (engine/scan-cache.ts,
 * loaded only then) and stores what `inner` finds. Here, in the start-up bundle, rather than
 * beside the cache: the c2pa report details are linked to a result inside this bundle's copy
 * of c2pa-manifest.ts, which is the one the text report reads.
 *
 * Files, S3 objects and https:// URLs are looked up: standard input has no identity to key on,
 * and an input error goes to `inner`, which reports it. The file is stat'ed before `inner` reads
 * it, so a change made while it is read leaves other times behind, and the next scan misses.
 */
export function cachedChecker(inner: Checker, cache: ScanCache, ndjsonLine: typeof NdjsonLine, objectIdentity: typeof ObjectIdentity): Checker {
  return {
    async check(item) {
      // An S3 object is known by its URL, size and ETag (from the listing; read with If-Match, so
      // the bytes checked are the ones that ETag names); an https:// URL by what its HEAD answer
      // says (httpsVersion; read with If-Match or If-Unmodified-Since on it).
      let identity: Buffer | undefined;
      if (item.kind === 'file') identity = cache.identify(item.path);
      else if (item.kind === 's3' && item.object.etag !== undefined && item.object.size !== undefined) {
        identity = objectIdentity(item.source, item.object.etag, item.object.size);
      } else if (item.kind === 'https') {
        try {
          await item.object.head();
        } catch (err) {
          return failed(item.source, err);
        }
        const known = httpsVersion(item.object);
        // Keyed by the URL as given, secrets and all (hashed): two signed URLs differ.
        if (known) identity = objectIdentity(item.object.url, known.version, known.size, known.modifiedMs);
      }
      if (!identity) return inner.check(item);
      const hit = cache.get(identity);
      if (hit) {
        // A hit is a new answer to this run's question: a new id, and the time this run spent
        // checking the file, none (docs/CACHE.md: what id and duration_ms are on a hit).
        const { result, hints, details, resultJson } = hit;
        result.id = newCheckId();
        result.duration_ms = 0;
        attachDetails(result, details);
        const json = resultJson === undefined ? undefined : ndjsonLine(item.source, resultJson, result.id, hints);
        return { source: item.source, ok: true, result, hints, details, fromCache: true, json };
      }
      const outcome = await inner.check(item);
      // Only results are kept: a file that could not be read, or whose checks failed, is tried again.
      if (outcome.ok) cache.put(identity, { result: outcome.result, hints: outcome.hints, details: outcome.details ?? detailsOfResult(outcome.result) });
      return outcome;
    },
    async close() {
      await inner.close();
      await cache.close();
    },
  };
}
