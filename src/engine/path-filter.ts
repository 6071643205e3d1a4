// --include / --exclude globs for folder walks. A pattern without a slash matches a file's name
// (`*.jpg`); one with a slash matches the path below the folder being walked (`raw/**/*.dng`).
// Files named on the command line or in --files-from are always checked: naming is choosing.
import picomatch from 'picomatch';

export interface PathFilter {
  /** A file found inside a walked folder; `relative` is its path below that folder. */
  includesFile(relative: string): boolean;
  /** A folder below a walked folder: an excluded one is not entered at all. */
  entersFolder(relative: string): boolean;
}

function matcher(patterns: readonly string[]): (relative: string) => boolean {
  const tests = patterns.map((p) => picomatch(p, { dot: true, basename: !p.includes('/') }));
  return (relative) => tests.some((test) => test(relative));
}

export function makePathFilter(include: readonly string[] = [], exclude: readonly string[] = []): PathFilter | undefined {
  if (include.length === 0 && exclude.length === 0) return undefined;
  const included = include.length ? matcher(include) : () => true;
  const excluded = exclude.length ? matcher(exclude) : () => false;
  return {
    includesFile: (relative) => included(relative) && !excluded(relative),
    entersFolder: (relative) => !excluded(relative),
  };
}
