// Builds dist/: the CLI (dist/cli.js), the library (dist/index.js), the pool's worker
// (dist/detect-worker.js), one output in dist/lazy/ for each of our modules that the code imports
// dynamically (the progress display, the worker pool, daemon and trust commands, ...), and the
// chunks in dist/lazy/ that those share.
//
// Why this shape (issue 34): every module lives in exactly one output file of a process. Before,
// each lazy module was a self-contained bundle with its own copy of everything it imported, and a
// module with identity or state then existed twice in one daemon: dist/lazy/daemon-http-metrics.js
// carried its own ApiError, the error handler's `instanceof` failed, and GET /metrics without a
// token answered 500. So the CLI, the library and the lazy modules are one esbuild build with code
// splitting: what several of them import goes into a shared chunk that each imports. The price is
// a few more files on the start-up path (test/bundle.test.ts bounds it; docs/PERFORMANCE.md).
// dist/detect-worker.js stays a self-contained bundle: it runs in worker threads, a module realm of
// its own that exchanges only copies of data with the main thread, so a module in both it and the
// main graph is two instances by design, never shared by reference.
//
// The build REFUSES an output set where any of our modules or a package's sits in more than one
// output of one realm (checkSingleCopies below): a copy of an error class, a registry or a cache
// is a defect that no test from src/ can see.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

// PROVENANCE_BUILD_OUT: another folder than dist/ (test/build-single-copy.test.ts builds into a
// temporary one, so that it never replaces the dist/ other tests run).
const DIST = process.env.PROVENANCE_BUILD_OUT || 'dist';

// The WebAssembly kernels first (scripts/build-wasm.mjs): src/media/dwt-dct-wasm-bytes.ts, which
// the bundles below import and the engine's fingerprint hashes.
await import('./build-wasm.mjs');
// The shipped rubrics read and compiled (scripts/build-rubrics.mjs): src/rubrics/shipped-rubrics-data.ts.
await import('./build-rubrics.mjs');

/**
 * The engine's fingerprint for the scan cache and a distributed scan's --incremental
 * (src/engine/engine-version.ts): a hash of everything that can change a result. Every source
 * file of the detection engine (the worker's bundle takes in exactly those: engine, detectors,
 * media readers, rubrics, types), the version of each package bundled into it or loaded by it,
 * and the data the package ships (data/c2pa: the bundled trust lists, the Conforming Products
 * List, the rubrics), so that a new list or rubric with the same code never answers from
 * entries made with the old one. (Lists that `trust update` put in the config folder, and
 * anchors added by hand, are hashed at run time: scanScope, and a scan's options.)
 */
async function engineBuild() {
  const { metafile } = await build({ ...common, entryPoints: ['src/engine/detect-worker.ts'], outfile: join(DIST, 'detect-worker.js'), write: false, metafile: true });
  const inputs = Object.keys(metafile.inputs);
  const sources = inputs.filter((file) => file.startsWith('src/')).sort();
  const packageOf = (file) => {
    const parts = file.slice(file.lastIndexOf('node_modules/') + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  };
  // Bundled packages, and the loaded ones that read the bytes (c2pa-rs's wasm, the pixel decoder).
  const packages = [...new Set([...inputs.filter((file) => file.includes('node_modules/')).map(packageOf), '@contentauth/c2pa-wasm', 'sharp'])].sort();
  const data = readdirSync('data', { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .sort();
  const hash = createHash('sha256');
  for (const file of [...sources, ...data]) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  for (const name of packages) hash.update(`${name}@${JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8')).version}\0`);
  return hash.digest('hex').slice(0, 16);
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Whitespace kept: Node prints the source line of an uncaught error before its message, and a
  // one-line bundle made that 60 KB (issue 24). Lines as written cost no measurable start time.
  minifyWhitespace: false,
  minifySyntax: true,
  // Packages loaded only by some runs, always through import(): the c2pa wasm and file-type by
  // checks that need them, the daemon's packages by `provenance daemon`. ink and react stay out
  // of every bundle but the progress display's own (PROGRESS below).
  external: [
    '@contentauth/c2pa-wasm', 'file-type', 'ink', 'react', 'react/jsx-runtime',
    'fastify', '@fastify/multipart', '@fastify/swagger', '@fastify/swagger-ui', 'lowdb', 'undici', 'nodemailer', 'pg', 'pg-boss', 'sharp',
    // The daemon's metrics (daemon/http/metrics.ts, its own lazy bundle): read only by a daemon start.
    'prom-client',
    // s3:// inputs (engine/s3-source.ts imports it on the first one).
    '@aws-sdk/client-s3',
  ],
  logLevel: 'warning',
};
const ENGINE_BUILD = { __PROVENANCE_ENGINE_BUILD__: JSON.stringify(await engineBuild()) };
common.define = ENGINE_BUILD;

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


/** src/ui/progress.tsx -> "ui-progress" */
const lazyName = (source) => relative('src', source).replace(/\.[jt]sx?$/, '').replaceAll('/', '-');

const mainOptions = {
  ...common,
  splitting: true,
  outdir: DIST,
  // ink and react go into the progress display's output only (the one module that imports them).
  // Loaded as packages, they are some 540 module files, and Node 20's loader took 0.55 to 1 s of
  // the main thread to resolve, read and compile them (docs/PERFORMANCE.md): a folder scan in a
  // terminal took 1.7 to 1.8 times as long as the same scan piped. Bundled, with React's
  // production build, they load in a fifth of that.
  external: common.external.filter((p) => !BUNDLED_IN_PROGRESS.has(p)),
  define: { ...ENGINE_BUILD, 'process.env.NODE_ENV': '"production"' },
  plugins: [progressDependencies()],
  write: false,
  metafile: true,
};

/**
 * Our modules that an entry imports dynamically, each an entry of its own named <dir>/<its path>
 * (esbuild would make them entries anyway; this names them). A first pass, not written, finds
 * them in its metafile.
 */
async function lazyEntries(entry, dir) {
  const { metafile } = await build({ ...mainOptions, entryPoints: entry, chunkNames: `${dir}/chunk-[hash]` });
  const entries = {};
  for (const info of Object.values(metafile.inputs)) {
    for (const imp of info.imports) {
      if (imp.kind === 'dynamic-import' && !imp.external && imp.path.startsWith('src/')) entries[`${dir}/${lazyName(imp.path)}`] = imp.path;
    }
  }
  return entries;
}

/** A realm's split build: its entry, its lazy modules and their shared chunks, all in `dir`. */
async function splitBuild(entry, dir, more = {}) {
  return build({ ...mainOptions, entryPoints: { ...entry, ...(await lazyEntries(entry, dir)), ...more }, chunkNames: `${dir}/chunk-[hash]` });
}

/**
 * The daemon's app and server, which `provenance daemon start` runs, as entries of their own: the
 * daemon contract suite builds its apps with them when it runs on dist/ (PROVENANCE_SUITE_DIST,
 * test/daemon/helpers.ts), so that it tests the bundles users run. The same modules, in the same
 * realm: only where the code sits among the files changes.
 */
const DAEMON_ENTRIES = { 'lazy/daemon-http-app': 'src/daemon/http/app.ts', 'lazy/daemon-http-server': 'src/daemon/http/server.ts' };

/**
 * Bundled CommonJS (commander) calls require(), which an ES module lacks: an output holding
 * esbuild's require shim gets one. The others (the library's entry among them) do not pay the
 * import of node:module.
 */
const REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);\n";
const withRequire = (text) => (text.includes('typeof require') ? REQUIRE_BANNER + text : text);

/**
 * Refuses a build where a module sits in more than one output of one realm (the outputs that load
 * into one module graph: the main thread's, or a worker thread's). Each copy would have its own
 * classes (an `instanceof` across copies fails), its own registries and caches. Ours or a
 * package's, any module counts: a rule on what a module holds ("defines a class", "has a
 * top-level Map") would miss the next way to have state, and with code splitting no module
 * needs two copies.
 */
function checkSingleCopies(realm, metafiles) {
  const where = new Map();
  for (const metafile of metafiles) {
    for (const [output, info] of Object.entries(metafile.outputs)) {
      for (const [input, use] of Object.entries(info.inputs)) {
        if (use.bytesInOutput === 0) continue;
        if (!where.has(input)) where.set(input, new Set());
        where.get(input).add(output);
      }
    }
  }
  const copies = [...where].filter(([, outputs]) => outputs.size > 1);
  if (copies.length === 0) return;
  const list = copies.map(([input, outputs]) => `  ${input}: ${[...outputs].join(', ')}`).join('\n');
  throw new Error(
    `build refused: ${copies.length} module(s) would be in more than one output file of the ${realm} realm, ` +
      'each copy with its own classes (instanceof fails across copies), registries and caches ' +
      `(issue 34; see checkSingleCopies in scripts/build.mjs):\n${list}`,
  );
}

/** Writes an esbuild result's files (the builds are not written until every check passed). */
function writeOutputs(result) {
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, withRequire(file.text));
  }
}

// Two realms in the main thread, each one split build: the CLI's (dist/cli.js, dist/lazy/) and
// the library's (dist/index.js, dist/lib/), which a process never loads together (the CLI does
// not import the library's entry). Apart, each entry's start-up path holds only what it shares
// with its own lazy modules: importing the library stays light (test/library-import.test.ts).
const cli = await splitBuild({ cli: 'src/cli.ts' }, 'lazy', DAEMON_ENTRIES);
const library = await splitBuild({ index: 'src/index.ts' }, 'lib');
const cliMetafiles = [cli.metafile];
const extra = [];
// PROVENANCE_BUILD_DUPLICATE=src/x.ts: also build that module the old way, as a self-contained
// bundle beside the CLI's, so that test/build-single-copy.test.ts can see the refusal fire.
if (process.env.PROVENANCE_BUILD_DUPLICATE) {
  const source = process.env.PROVENANCE_BUILD_DUPLICATE;
  const alone = await build({ ...mainOptions, splitting: false, outdir: undefined, entryPoints: [source], outfile: join(DIST, 'lazy', `${lazyName(source)}-alone.js`) });
  cliMetafiles.push(alone.metafile);
  extra.push(alone);
}
checkSingleCopies('CLI', cliMetafiles);
checkSingleCopies('library', [library.metafile]);

// The worker threads' realm: one self-contained bundle (see the top of this file).
const worker = await build({ ...common, entryPoints: ['src/engine/detect-worker.ts'], outfile: join(DIST, 'detect-worker.js'), write: false, metafile: true });
checkSingleCopies('worker', [worker.metafile]);

rmSync(DIST, { recursive: true, force: true });
for (const result of [cli, library, ...extra, worker]) writeOutputs(result);
