// Where the data files that ship with the package (data/ at the package root: the C2PA lists and
// rubrics, data/c2pa/README.md says what and from where) are at run time. The same source runs
// as src/ under the tests, bundled into dist/cli.js or dist/detect-worker.js, and as a chunk in
// dist/lazy/, so the folder is found by looking up from this module's own file rather than by a
// fixed number of '..'. In media/ because it is the lowest room every reader of that data may
// import (detectors, verdict, report, engine, config alike); it reads no file's contents.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

/** The package's data/ folder (the first data/c2pa/README.md found above this module's file). */
export function packageDataDir(): string {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up += 1) {
    const candidate = join(dir, 'data');
    if (existsSync(join(candidate, 'c2pa', 'README.md'))) return (found = candidate);
    dir = dirname(dir);
  }
  throw new Error(`provenance: the package's data folder (data/c2pa) is missing near ${fileURLToPath(import.meta.url)}; reinstall the package`);
}

/** A file in the package's data folder, e.g. packageDataFile('c2pa', 'C2PA-TRUST-LIST.pem'). */
export function packageDataFile(...segments: string[]): string {
  return join(packageDataDir(), ...segments);
}
