// `--detect-timeout`: how long one file's checks may run on a worker before the worker is
// stopped and the request answered 413 (media/detect-pool.ts). Apart from the runner so that
// `daemon start` reads the flag without loading the engine.

/**
 * The default: a minute, the limit before the flag existed. The slowest file measured while it was
 * added, a 2,048 x 2,048 WebP of noise with every check, took 0.34 s.
 */
export const DEFAULT_DETECT_TIMEOUT_MS = 60_000;

/** Whole seconds from 1 to 600; returns milliseconds. */
export function parseDetectTimeout(text: string): number {
  const seconds = /^\s*\d{1,3}\s*$/.test(text) ? Number(text) : NaN;
  if (!(seconds >= 1 && seconds <= 600)) throw new RangeError(`--detect-timeout must be a whole number of seconds from 1 to 600, e.g. 60, not "${text}"`);
  return seconds * 1000;
}
