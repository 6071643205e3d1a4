// The checks of scan()'s options that need nothing loaded (no file system, no engine), so that
// scan() can throw for them at once while the engine is still loaded lazily (entry.ts).
import { resolveChecks } from '../engine/checks.js';
import { CATALOGUE_NAMES, type CatalogueName, type DetectorId } from '../types.js';

export function validateChecks(checks: readonly DetectorId[] | undefined, catalogue?: CatalogueName): void {
  validateCatalogue(catalogue);
  if (checks !== undefined && !Array.isArray(checks)) throw new TypeError('checks must be an array of detector ids.');
  resolveChecks(checks, catalogue);
}

export function validateCatalogue(catalogue: CatalogueName | undefined): void {
  if (catalogue !== undefined && !CATALOGUE_NAMES.includes(catalogue)) throw new TypeError("catalogue must be 'full' or 'hosted'.");
}

export function validateConcurrency(n: number | undefined): void {
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > 256)) throw new RangeError('concurrency must be a whole number from 1 to 256.');
}

/** `readTimeoutMs`: whole milliseconds from 1 to an hour (the CLI's --read-timeout, in seconds). */
export function validateReadTimeout(ms: number | undefined): number | undefined {
  if (ms !== undefined && (!Number.isInteger(ms) || ms < 1 || ms > 3_600_000)) throw new RangeError('readTimeoutMs must be a whole number of milliseconds from 1 to 3600000.');
  return ms;
}

export function validateFlag(value: boolean | undefined, name: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`${name} must be true or false.`);
  return value;
}

export function validateGlobs(value: readonly string[] | undefined, name: string): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((g) => typeof g !== 'string' || !g)) throw new TypeError(`${name} must be an array of glob patterns.`);
  return value;
}

export function validateInputs<T>(inputs: T): void {
  const list = typeof inputs === 'string' ? [inputs] : (inputs as unknown);
  const iterable = list !== null && typeof list === 'object' && (Symbol.iterator in list || Symbol.asyncIterator in list);
  if (!iterable) throw new TypeError('scan takes a path, or an iterable of paths.');
}
