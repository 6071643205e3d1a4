// Builds dist/: the CLI (dist/cli.js), the library (dist/index.js), the pool's worker (dist/detect-worker.js), and one bundle
// in dist/lazy/ for each of our modules that the code imports dynamically (the progress display,
// the worker pool, daemon and trust commands, ...).
//
// Why this shape: a start should load as few ES modules as possible (Node 20's ESM loader costs
// about 2 ms per module, measured in docs/PERFORMANCE.md), and nothing heavy. esbuild's own
// code splitting would turn shared code into chunks that every start loads one by one; without
// splitting it would inline lazy modules and hoist their imports of ink or react to the top of
// cli.js. So each dynamic import of our own code becomes its own self-contained bundle, and
// test/bundle.test.ts checks that the start-up path stays one file with no package imports.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const DIST = 'dist';
const LAZY = join(DIST, 'lazy');

rmSync(DIST, { recursive: true, force: true });

/**
 * The engine's fingerprint for the scan cache (src/engine/engine-version.ts): a hash of every
 * source file that can change a result, and of the c2pa-wasm package's version.
 */
function engineBuild() {
  const hash = createHash('sha256');
  const files = ['src/engine', 'src/detectors', 'src/media']
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name)));
  for (const file of [...files, 'src/types.ts'].sort()) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  hash.update(JSON.parse(readFileSync('node_modules/@contentauth/c2pa-wasm/package.json', 'utf8')).version);
  return hash.digest('hex').slice(0, 16);
}
const ENGINE_BUILD = { __PROVENANCE_ENGINE_BUILD__: JSON.stringify(engineBuild()) };

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Whitespace kept: Node prints the source line of an uncaught error before its message, and a
  // one-line bundle made that 60 KB (issue 24). Lines as written cost no measurable start time.
  minifyWhitespace: false,
  minifySyntax: true,
  // Packages loaded only by some runs, always through import(): the c2pa wasm and file-type by
  // checks that need them, the daemon's packages by `provenance daemon`. ink and react stay out
  // of every bundle but the progress display's own (PROGRESS below).
  external: [
    '@contentauth/c2pa-wasm', 'file-type', 'ink', 'react', 'react/jsx-runtime',
    'fastify', '@fastify/multipart', '@fastify/swagger', '@fastify/swagger-ui', 'lowdb', 'undici', 'nodemailer', 'pg', 'sharp',
    // The daemon's metrics (daemon/http/metrics.ts, its own lazy bundle): read only by a daemon start.
    'prom-client',
    // s3:// inputs (engine/s3-source.ts imports it on the first one).
    '@aws-sdk/client-s3',
  ],
  // Bundled CommonJS dependencies (commander) call require(); give them one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  define: ENGINE_BUILD,
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
        // Only our own code's: a package's dynamic import of its own files stays in its bundle.
        if (args.kind !== 'dynamic-import' || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
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

// The progress display carries ink and react inside its bundle. Loaded as packages, they are
// some 540 module files, and Node 20's loader took 0.55 to 1 s of the main thread to resolve,
// read and compile them (docs/PERFORMANCE.md): a folder scan in a terminal took 1.7 to 1.8 times as
// long as the same scan piped. One bundle, with React's production build, loads in a fifth of
// that.
const PROGRESS = 'src/ui/progress.tsx';
const BUNDLED_IN_PROGRESS = new Set(['ink', 'react', 'react/jsx-runtime']);

/**
 * Two changes to what ink brings along, for the bundle only:
 * - ink imports React devtools (react-devtools-core, which we do not install) when DEV=true;
 *   that import becomes an empty module, so DEV=true simply has no devtools.
 * - yoga-layout's Emscripten loader compiles its embedded wasm through `fetch` when a global
 *   fetch exists, which loads Node's whole HTTP client (undici) for a data: URL: 85 ms of the
 *   display's start. Its tests for fetch become `true` ("no fetch"), so it decodes the same
 *   bytes itself. The build fails if the loader has no such test left, rather than silently
 *   losing this.
 */
function progressDependencies() {
  const YOGA_FETCH_TEST = '"function"!=typeof fetch';
  return {
    name: 'progress-dependencies',
    setup(b) {
      b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
        args.importer.includes(`${sep}node_modules${sep}ink${sep}`) ? { path: 'ink-devtools', namespace: 'empty' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '', loader: 'js' }));
      b.onLoad({ filter: /yoga-wasm-base64-esm\.js$/ }, (args) => {
        const code = readFileSync(args.path, 'utf8');
        if (!code.includes(YOGA_FETCH_TEST)) {
          throw new Error(`${args.path}: no \`${YOGA_FETCH_TEST}\` left to replace (see progressDependencies in scripts/build.mjs)`);
        }
        return { contents: code.replaceAll(YOGA_FETCH_TEST, 'true'), loader: 'js' };
      });
    },
  };
}

/** Bundles with no CommonJS inside need no `require` (the library's entry: node:module costs its import). */
const NO_REQUIRE = new Set(['src/index.ts']);

async function bundle(source, outfile) {
  const progress = relative(process.cwd(), resolve(source)) === PROGRESS;
  await build({
    ...common,
    ...(NO_REQUIRE.has(relative(process.cwd(), resolve(source))) ? { banner: {} } : {}),
    entryPoints: [source],
    outfile,
    plugins: [...(progress ? [progressDependencies()] : []), lazyImports(outfile)],
    ...(progress
      ? {
          external: common.external.filter((p) => !BUNDLED_IN_PROGRESS.has(p)),
          define: { ...ENGINE_BUILD, 'process.env.NODE_ENV': '"production"' },
        }
      : {}),
  });
}

await bundle('src/cli.ts', join(DIST, 'cli.js'));
// The library's entry (`import ... from 'provenance-check'`, package.json "exports"); its lazy parts
// (the worker pool) share dist/lazy/ with the CLI's. Its declarations come from
// tsconfig.types.json, run by `npm run build` after this script.
await bundle('src/index.ts', join(DIST, 'index.js'));
await bundle('src/engine/detect-worker.ts', join(DIST, 'detect-worker.js'));
while (pending.length) {
  const { source, outfile } = pending.shift();
  await bundle(source, outfile);
}
