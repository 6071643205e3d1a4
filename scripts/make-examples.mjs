// Node 20 cannot run TypeScript; bundle scripts/make-examples.ts with esbuild and run it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

// Inside the project, so the bundle resolves the project's own node_modules.
mkdirSync('node_modules/.cache', { recursive: true });
const dir = mkdtempSync(join('node_modules/.cache', 'prov-examples-'));
const outfile = join(dir, 'make-examples.mjs');
try {
  await build({
    entryPoints: ['scripts/make-examples.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  await import(pathToFileURL(join(process.cwd(), outfile)).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
