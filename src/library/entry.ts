// What `import { check, scan, detectors } from 'provenance-check'` gets: light functions that load the
// engine (local.ts) on their first call. Importing the package then costs a few milliseconds
// instead of the ~65 ms that node:crypto, fs/promises, streams and the engine's own code took
// at import time (docs/PERFORMANCE.md, `npm run bench:import`).
import { CheckSelectionError } from '../engine/checks.js';
import { InputError } from '../engine/input-error.js';
import { TrustAnchorError } from '../config/trust-anchor-error.js';
import type { CatalogueName, CheckedResult, DetectorInfo } from '../types.js';
import type { CheckInput, CheckOptions } from './check.js';
import type { ConformanceOutput, CrJsonOptions, RubricName, SignalsOutput } from './c2pa-output.js';
import type { ScanEntry, ScanInputs, ScanOptions } from './scan.js';
import { validateCatalogue, validateChecks, validateConcurrency, validateFlag, validateGlobs, validateInputs } from './validate.js';

type Local = typeof import('./local.js');
let local: Promise<Local> | undefined;
const load = (): Promise<Local> => (local ??= import('./local.js'));

// The built package loads local.ts as a bundle of its own (scripts/build.mjs), with its own copy
// of these classes; an error it throws is given this module's class, so that `instanceof`
// against the classes the package exports holds. (Run from source, they are the same classes.)
const EXPORTED: Record<string, { prototype: object }> = { InputError, CheckSelectionError, TrustAnchorError };

function adopt(err: unknown): unknown {
  if (err instanceof Error && Object.hasOwn(EXPORTED, err.name)) {
    const cls = EXPORTED[err.name]!;
    if (!(err instanceof (cls as unknown as new () => Error))) Object.setPrototypeOf(err, cls.prototype);
  }
  return err;
}

/**
 * Checks one file for provenance markers and returns the /v1 detection result, the same one the
 * daemon answers with, plus the file's `verdict` (what the checks say together about AI:
 * docs/DETECTORS.md), as `provenance check --json` prints them.
 *
 * Runs in the calling thread; for many files use {@link scan}, which spreads them over worker
 * threads. The c2pa-rs WebAssembly module is loaded on the first file that carries a C2PA marker.
 *
 * @param input A file path (or `file:` URL), the file's bytes, or a readable stream of them.
 * @throws {@link InputError} (`type` not_found, permission_denied, ...) when a path cannot be read;
 *   {@link CheckSelectionError} for an unknown or repeated check id; {@link TrustAnchorError} for
 *   bad `trustAnchors`; the signal's reason (an AbortError) when aborted.
 */
export async function check(input: CheckInput, options: CheckOptions = {}): Promise<CheckedResult> {
  try {
    return await (await load()).check(input, options);
  } catch (err) {
    throw adopt(err);
  }
}

/**
 * Checks files and folders (walked recursively, entries in name order, symlinks followed) on a
 * pool of worker threads, the one `provenance check` uses, and yields one {@link ScanEntry} per
 * file in input order.
 *
 * ```ts
 * for await (const entry of scan(['uploads/'], { include: ['*.jpg'] })) {
 *   if (entry.ok) console.log(entry.source, entry.result.matches[0]?.result);
 *   else console.error(entry.error.message);
 * }
 * ```
 *
 * Breaking out of the loop stops the walk and the workers. Aborting `signal` does the same and
 * makes the loop throw the signal's reason (an AbortError). A bad `checks`, `concurrency`,
 * `include`, `exclude` or `caseSensitive` throws from scan() itself; unreadable `trustAnchors`
 * from the loop's first step, before any file is read.
 */
export function scan(inputs: ScanInputs, options: ScanOptions = {}): AsyncGenerator<ScanEntry, void, undefined> {
  validateChecks(options.checks, options.catalogue);
  validateConcurrency(options.concurrency);
  validateGlobs(options.include, 'include');
  validateGlobs(options.exclude, 'exclude');
  validateFlag(options.caseSensitive, 'caseSensitive');
  validateInputs(inputs);
  return (async function* () {
    try {
      yield* (await load()).scan(inputs, options);
    } catch (err) {
      throw adopt(err);
    }
  })();
}

/**
 * The file's Content Credentials as c2pa-rs's crJSON (the document `provenance check --crjson`
 * prints; docs/C2PA.md), validated against `trustAnchors` when given; null when the file carries
 * no C2PA manifest.
 *
 * @throws {@link InputError} when a path cannot be read; {@link TrustAnchorError} for bad
 *   `trustAnchors`; an Error with the c2pa check's reason when c2pa-rs cannot read the manifest.
 */
export async function crJson(input: CheckInput, options: CrJsonOptions = {}): Promise<Record<string, unknown> | null> {
  try {
    return await (await load()).crJson(input, options);
  } catch (err) {
    throw adopt(err);
  }
}

/**
 * A C2PA Asset Rubric evaluated over the file's crJSON: `'signals'` (the official signals
 * output), `'conformance-2.2'` or `'conformance-2.4'` (the conformance output), as `provenance
 * check --rubric NAME` prints it; null when the file carries no C2PA manifest.
 */
export async function rubric(input: CheckInput, name: RubricName, options: CrJsonOptions = {}): Promise<SignalsOutput | ConformanceOutput | null> {
  try {
    return await (await load()).rubric(input, name, options);
  } catch (err) {
    throw adopt(err);
  }
}

/** The detectors of this build, as GET /v1/detectors lists them (available and planned); with
 * `{ catalogue: 'hosted' }`, the hosted service's five. */
export async function detectors(options: { catalogue?: CatalogueName } = {}): Promise<DetectorInfo[]> {
  validateCatalogue(options.catalogue);
  return (await load()).detectors(options.catalogue);
}
