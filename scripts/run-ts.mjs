// Runs a TypeScript script of this repository on Node 22 and later (before 22.18 Node cannot run TS
// itself, and from it only erasable syntax): bundles it
// with esbuild into node_modules/.cache (so it resolves the project's packages) and imports it.
// Usage: node scripts/run-ts.mjs scripts/make-examples.ts [args...]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const entry = process.argv[2];
if (!entry) {
  console.error('usage: node scripts/run-ts.mjs SCRIPT.ts [args...]');
  process.exit(2);
}
process.argv.splice(2, 1); // the script sees its own arguments from argv[2] on

mkdirSync('node_modules/.cache', { recursive: true });
const dir = mkdtempSync(join('node_modules/.cache', 'prov-run-'));
const outfile = join(process.cwd(), dir, basename(entry).replace(/\.tsx?$/, '.mjs'));
try {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
  });
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
