// Builds dist/ as one bundled ES module per entry point. One file instead of a module graph
// saves ~15 ms of ESM loading on every start (docs/PERFORMANCE.md). The c2pa wasm and
// file-type stay external: they are imported lazily, only by runs that need them.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  external: ['@contentauth/c2pa-wasm', 'file-type'],
  // Bundled CommonJS dependencies (commander) call require(); give them one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
