// scan(): files and folders through the worker pool that `provenance check` uses for a folder,
// opened and bounded by the same rules (library/scan-pool.ts: eight files per message, at most
// four workers per core, 32 results in flight per core), yielding results in input order.
import { availableParallelism } from 'node:os';
import type { DetectOptions } from '../engine/detect.js';
import { InputError } from '../engine/input-error.js';
import { expandInputs, type InputItem } from '../engine/inputs.js';
import { makePathFilter } from '../engine/path-filter.js';
import { holdRead, objectBudget, type ReadBudget, type ReadHold } from '../engine/read-budget.js';
import type { DetectPool } from '../engine/pool.js';
import type { CheckedResult } from '../types.js';
import { verdictOf } from '../verdict/verdict.js';
import { abortReason, unlessAborted } from './abort.js';
import { detectOptions, type CommonOptions } from './options.js';
import { openScanPool, scanWindow } from './scan-pool.js';
import { validateConcurrency, validateFlag, validateGlobs, validateInputs, validateReadTimeout } from './validate.js';

export interface ScanOptions extends CommonOptions {
  /** Globs a file found in a folder must match (`*.jpg`; with a slash, the path below the folder). Named files are always checked. */
  include?: readonly string[];
  /** Globs for files and folders to skip inside folders (an excluded folder is not entered). */
  exclude?: readonly string[];
  /**
   * Match `include` and `exclude` with letter case exactly, as the CLI's `--case-sensitive`.
   * Default false: `*.jpg` matches `IMG_0001.JPG`.
   */
  caseSensitive?: boolean;
  /**
   * Worker threads asked for (1 to 256); default: the available cores. At most four per core
   * are started, as `provenance check --concurrency` does: more only cost memory.
   */
  concurrency?: number;
}

/** Why one input has no result. */
export type ScanErrorType =
  | 'not_found'
  | 'permission_denied'
  | 'directory_loop'
  /** Symbolic links that lead back to themselves: a -> b -> a. */
  | 'symlink_loop'
  | 'file_too_large'
  | 'read_error'
  /** The checks did not finish within 120 s; the worker was replaced. */
  | 'timeout'
  | 'internal_error';

export interface ScanError {
  type: ScanErrorType;
  /** One sentence naming the input, e.g. `photos/a.jpg: permission denied.` */
  message: string;
}

/**
 * One input's outcome: its result, or why it has none. `source` is the path as found; one that is
 * not valid UTF-8 is escaped (`bad\xffname.png`: docs/CLI.md).
 */
export type ScanEntry =
  | { source: string; ok: true; result: CheckedResult }
  | { source: string; ok: false; error: ScanError };

export type ScanInputs = string | Iterable<string> | AsyncIterable<string>;

/**
 * Checks files and folders (walked recursively, entries in name order, symlinks followed) on a
 * pool of worker threads, and yields one {@link ScanEntry} per file in input order.
 *
 * ```ts
 * for await (const entry of scan(['uploads/'], { include: ['*.jpg'] })) {
 *   if (entry.ok) console.log(entry.source, entry.result.matches[0]?.result);
 *   else console.error(entry.error.message);
 * }
 * ```
 *
 * Breaking out of the loop stops the walk and the workers. Aborting `signal` does the same and
 * makes the loop throw the signal's reason (an AbortError). Options are checked at once: a bad
 * one throws from scan() itself, before any file is read.
 */
export function scan(inputs: ScanInputs, options: ScanOptions = {}): AsyncGenerator<ScanEntry, void, undefined> {
  const detectWith = detectOptions(options);
  validateConcurrency(options.concurrency);
  const concurrency = options.concurrency ?? availableParallelism();
  const caseSensitive = validateFlag(options.caseSensitive, 'caseSensitive');
  const filter = makePathFilter(validateGlobs(options.include, 'include'), validateGlobs(options.exclude, 'exclude'), { caseSensitive });
  validateInputs(inputs);
  const readTimeoutMs = validateReadTimeout(options.readTimeoutMs);
  return run(typeof inputs === 'string' ? [inputs] : inputs, { detectWith, concurrency, filter, signal: options.signal, readTimeoutMs });
}

interface Run {
  detectWith: DetectOptions;
  concurrency: number;
  filter: ReturnType<typeof makePathFilter>;
  signal?: AbortSignal;
  readTimeoutMs?: number;
}

async function* run(inputs: Iterable<string> | AsyncIterable<string>, r: Run): AsyncGenerator<ScanEntry, void, undefined> {
  const { signal } = r;
  if (signal?.aborted) throw abortReason(signal);
  const pool = await openScanPool(r.concurrency);
  // Abort: the workers are terminated at once (tasks still queued are dropped), and the wait
  // for the next result ends with the abort reason.
  const onAbort = () => void pool.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  const walk = expandInputs(inputs, { filter: r.filter, stdin: false, readTimeoutMs: r.readTimeoutMs });
  // Per core, not per worker, as in `provenance check`: the concurrency asked for cannot make
  // memory grow while results wait for their turn in input order.
  const limit = scanWindow();
  const inFlight: Promise<ScanEntry>[] = [];
  const objects = objectBudget();
  try {
    for await (const item of walk) {
      if (signal?.aborted) throw abortReason(signal);
      inFlight.push(checkItem(pool, item, r.detectWith, objects));
      if (inFlight.length >= limit) yield await unlessAborted(inFlight.shift()!, signal);
    }
    while (inFlight.length) yield await unlessAborted(inFlight.shift()!, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await pool.close();
  }
}

async function checkItem(pool: DetectPool, item: InputItem, options: DetectOptions, objects: ReadBudget): Promise<ScanEntry> {
  if (item.kind === 'error') return { source: item.source, ok: false, error: item.error.toInfo() as ScanError };
  if (item.kind === 'stdin') throw new Error('scan: standard input is not an input here');
  // An S3 object or https:// URL is read here (s3-source.ts, https-source.ts), within the scan's
  // budget; its bytes go to the worker.
  let release: ReadHold | undefined;
  try {
    release = await holdRead(objects, item);
    const input = item.kind === 'file' ? { path: item.path } : { bytes: await item.object.read(release?.room) };
    // The worker posts the C2PA details beside the result (a structured clone drops the link).
    const { result, details, hints } = await pool.run({ source: item.source, hints: true, ...input }, options);
    return { source: item.source, ok: true, result: Object.assign(result, { verdict: verdictOf(result, details, hints) }) };
  } catch (err) {
    const info = (err as { info?: { type: string; message: string } }).info ?? (err instanceof InputError ? err.toInfo() : undefined);
    if (!info) throw err;
    return { source: item.source, ok: false, error: { type: info.type, message: info.message } as ScanError };
  } finally {
    release?.();
  }
}
