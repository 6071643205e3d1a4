// Builds dist/: the CLI (dist/cli.js) and the pool's worker (dist/detect-worker.js) bundled with
// our dependencies, plus chunks (dist/chunks/) for what only some runs load. A bundle instead of
// a module graph saves ~15 ms of ESM loading on every start (docs/PERFORMANCE.md);
// test/bundle.test.ts keeps heavy packages off the start-up path.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });

await build({
  // detect-worker: the worker-thread entry of src/engine/pool.ts, resolved beside cli.js.
  entryPoints: { cli: 'src/cli.ts', 'detect-worker': 'src/engine/detect-worker.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Splitting keeps each lazily imported module (progress display, daemon, trust store, exifr)
  // in its own chunk, with its own imports: without it esbuild inlines them, and their external
  // imports (ink, react) become static imports of cli.js that every start would pay for.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  // ink and react load only when stderr is a terminal (src/ui/progress.tsx); the daemon's
  // packages only under `provenance daemon` (src/daemon/app.ts imports them dynamically), so
  // `provenance check` never pays for fastify at start.
  external: [
    '@contentauth/c2pa-wasm', 'file-type', 'ink', 'react', 'react/jsx-runtime',
    'fastify', '@fastify/multipart', '@fastify/swagger', '@fastify/swagger-ui', 'lowdb', 'undici',
  ],
  // Bundled CommonJS dependencies (commander) call require(); give them one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
