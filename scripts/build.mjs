// Builds dist/: the CLI (dist/cli.js), the pool's worker (dist/detect-worker.js), and one bundle
// in dist/lazy/ for each of our modules that the code imports dynamically (the progress display,
// the worker pool, daemon and trust commands, ...).
//
// Why this shape: a start should load as few ES modules as possible (Node 20's ESM loader costs
// about 2 ms per module, measured in docs/PERFORMANCE.md), and nothing heavy. esbuild's own
// code splitting would turn shared code into chunks that every start loads one by one; without
// splitting it would inline lazy modules and hoist their imports of ink or react to the top of
// cli.js. So each dynamic import of our own code becomes its own self-contained bundle, and
// test/bundle.test.ts checks that the start-up path stays one file with no package imports.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const DIST = 'dist';
const LAZY = join(DIST, 'lazy');

rmSync(DIST, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  // Packages loaded only by some runs, always through import(): the c2pa wasm and file-type by
  // checks that need them, ink and react by the progress display, the daemon's packages by
  // `provenance daemon`.
  external: [
    '@contentauth/c2pa-wasm', 'file-type', 'ink', 'react', 'react/jsx-runtime',
    'fastify', '@fastify/multipart', '@fastify/swagger', '@fastify/swagger-ui', 'lowdb', 'undici', 'nodemailer',
  ],
  // Bundled CommonJS dependencies (commander) call require(); give them one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
};

/** src/ui/progress.tsx -> "ui-progress" */
const lazyName = (source) => relative('src', source).replace(/\.[jt]sx?$/, '').replaceAll('/', '-');

/** The TypeScript source behind an import of "./x.js". */
function sourceOf(resolveDir, spec) {
  const base = resolve(resolveDir, spec).replace(/\.js$/, '');
  for (const ext of ['.ts', '.tsx', '.js']) if (existsSync(base + ext)) return base + ext;
  throw new Error(`cannot find the source of ${spec} from ${resolveDir}`);
}

const pending = [];
const queued = new Set();

/** Makes every dynamic import of our own code external, pointing at its lazy bundle. */
function lazyImports(outfile) {
  return {
    name: 'lazy-imports',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const source = sourceOf(args.resolveDir, args.path);
        const name = lazyName(relative(process.cwd(), source));
        if (!queued.has(source)) {
          queued.add(source);
          pending.push({ source, outfile: join(LAZY, `${name}.js`) });
        }
        let path = relative(dirname(outfile), join(LAZY, `${name}.js`));
        if (!path.startsWith('.')) path = `./${path}`;
        return { path, external: true };
      });
    },
  };
}

async function bundle(source, outfile) {
  await build({ ...common, entryPoints: [source], outfile, plugins: [lazyImports(outfile)] });
}

await bundle('src/cli.ts', join(DIST, 'cli.js'));
await bundle('src/engine/detect-worker.ts', join(DIST, 'detect-worker.js'));
while (pending.length) {
  const { source, outfile } = pending.shift();
  await bundle(source, outfile);
}
