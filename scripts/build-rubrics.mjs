// Reads the shipped C2PA rubrics (data/c2pa/asset-rubrics/*.yml) and compiles their expressions
// with json-formula (src/rubrics/rubric-build.ts), and writes each result as one JSON text to
// src/rubrics/built-<name>.ts (not in git: made by every build), which src/rubrics/
// shipped-rubrics.ts parses. One module per rubric: a check loads the signals rubric's alone. A cold check of a signed file then parses JSON instead
// of the YAML and compiles no expression (docs/PERFORMANCE.md, issue 38's cost). Run by
// `npm run build` and `npm run typecheck`, as build-wasm.mjs is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** signals -> src/rubrics/built-signals.ts, conformance-2.4 -> src/rubrics/built-conformance-2-4.ts */
const outFile = (name) => `src/rubrics/built-${name.replaceAll('.', '-')}.ts`;
const dir = mkdtempSync(join(tmpdir(), 'prov-rubrics-'));
try {
  const outfile = join(dir, 'rubric-build.mjs');
  // json-formula bundled in: the script runs from a temporary folder, outside node_modules' reach.
  await build({ entryPoints: ['src/rubrics/rubric-build.ts'], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning' });
  const { buildRubric, RUBRIC_NAMES: names } = await import(pathToFileURL(outfile).href);
  const rubricsDir = resolve('data', 'c2pa', 'asset-rubrics');
  for (const name of names) {
    writeFileSync(
      outFile(name),
      [
        `// Made by scripts/build-rubrics.mjs from data/c2pa/asset-rubrics/: do not edit (not in git).`,
        `/** The ${name} rubric read and its expressions compiled, as JSON text (shipped-rubrics.ts). */`,
        // Indented, so that the bundles' lines stay short enough to read (test/first-page.test.ts).
        `export default ${JSON.stringify(JSON.stringify(buildRubric(name, rubricsDir), null, 1))};`,
        '',
      ].join('\n'),
    );
  }
  console.log(`build-rubrics: ${rubricsDir} -> ${names.map(outFile).join(', ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
