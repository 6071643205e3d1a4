// --include / --exclude globs for folder walks. A pattern without a slash matches a file's name
// (`*.jpg`); one with a slash matches the path below the folder being walked (`raw/**/*.dng`).
// Files named on the command line or in --files-from are always checked: naming is choosing.
// Letter case is ignored unless asked for (`--case-sensitive`), as ExifTool's `-ext` does:
// cameras write IMG_0001.JPG, and `--include '*.jpg'` that skipped those would drop them unseen.
import { createRequire } from 'node:module';
import type picomatchType from 'picomatch';

const require = createRequire(import.meta.url);

export interface PathFilter {
  /** A file found inside a walked folder; `relative` is its path below that folder. */
  includesFile(relative: string): boolean;
  /** A folder below a walked folder: an excluded one is not entered at all. */
  entersFolder(relative: string): boolean;
}

export interface PathFilterOptions {
  /** Match letter case exactly; default false (`*.jpg` matches IMG_1.JPG). */
  caseSensitive?: boolean;
}

function matcher(patterns: readonly string[], nocase: boolean): (relative: string) => boolean {
  // picomatch is required on the first pattern (require keeps it): most runs give none, and
  // importing it cost every process some 6 ms (50 KB of code) before its first line
  // (docs/PERFORMANCE.md).
  const picomatch = require('picomatch') as typeof picomatchType;
  const tests = patterns.map((p) => picomatch(p, { dot: true, basename: !p.includes('/'), nocase }));
  return (relative) => tests.some((test) => test(relative));
}

export function makePathFilter(include: readonly string[] = [], exclude: readonly string[] = [], options: PathFilterOptions = {}): PathFilter | undefined {
  if (include.length === 0 && exclude.length === 0) return undefined;
  const nocase = !options.caseSensitive;
  const included = include.length ? matcher(include, nocase) : () => true;
  const excluded = exclude.length ? matcher(exclude, nocase) : () => false;
  return {
    includesFile: (relative) => included(relative) && !excluded(relative),
    entersFolder: (relative) => !excluded(relative),
  };
}
