// `npm run bench`: a folder scan at speed (issue 6). Builds .bench/scan (about 1,000 camera-like
// JPEGs with unique bytes and 100 C2PA-signed files, all from the project's own fixtures), then
// times, in one run: `provenance check --json` on it, `exiftool -json -r` on it, and the
// single-core floor (the same reads, hashes and detector calls in a plain loop in one process,
// held to one core with taskset; also timed free), the ideal split (two of those loops at
// once, each on every other file), and the scan again with stderr on a terminal (script), which
// draws the progress display. BENCH_RUNS rounds (default 5), each running every contender
// once, so that ratios compare runs of the same minute. Every run starts with the folder in the
// page cache (warmCache).
// With them, the scan cache (issue 19): the folder's first scan with --incremental (an empty
// cache) and its rescan, and a rescan of 100,000 small files (.bench/small-100k, whose cache is
// filled once before the rounds).
// With them, the AI-marks checks (issue 23): the mixed camera folder (.bench/camera-1000, made
// from the shared corpus's camera files by test/helpers/camera-folder.ts) scanned with every
// check and with --catalogue hosted, and the pixel floor beside it (bench-decode-floor.ts: only
// the decodes the watermark check needs, split over two processes); skipped with a notice when
// ../shared/corpus is absent. The watermark check against the reference decoder is
// scripts/bench-watermark.ts, which `npm run bench` runs after this one.
// `npm run bench -- --rss` also scans a 10,000-file folder and reports peak RSS and order.
// Figures go into docs/PERFORMANCE.md by hand; nothing here is a pass/fail test.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { shellQuote, terminalCommand } from '../test/helpers/terminal.js';
import { sha256Ms } from './machine-speed.js';
import { concat, tinyJpeg, tinyPng } from '../test/fixtures/make.js';
import { listFiles, median } from './bench-kit.js';
import { buildScanFolder } from './bench-folders.js';
import { cameraSources, makeCameraFolder } from '../test/helpers/camera-folder.js';

const ROOT = resolve('.');
const BENCH = join(ROOT, '.bench');
const BIN = join(ROOT, 'bin', 'provenance.js');


/**
 * `count` small files (tiny PNGs and JPEGs, a few hundred bytes each, unique bytes), 1,000 per
 * folder, dated a day back so that the scan cache's racy-timestamp rule stores every one.
 */
function buildSmallFolder(dir: string, count: number): void {
  const marker = `${dir}.built-${count}`;
  if (existsSync(marker)) return;
  rmSync(dir, { recursive: true, force: true });
  const bases = [tinyPng({ seed: 1 }), tinyPng({ seed: 2 }), tinyJpeg({ seed: 3 })];
  const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
  for (let i = 0; i < count; i++) {
    const sub = join(dir, String(Math.floor(i / 1000)).padStart(3, '0'));
    if (i % 1000 === 0) mkdirSync(sub, { recursive: true });
    const base = bases[i % bases.length]!;
    const file = join(sub, `f${String(i).padStart(6, '0')}.${i % 3 === 2 ? 'jpg' : 'png'}`);
    // Bytes after the end of the image: read by nobody, but every file's sha256 differs.
    writeFileSync(file, concat(base, Buffer.from(`#${i}`)));
    utimesSync(file, dayAgo, dayAgo);
  }
  writeFileSync(marker, '');
}

// As in bench-cold-start.mjs: NODE_EXTRA_CA_CERTS costs every Node start ~45 ms before any code
// runs; some sandboxes set it, users do not. Dropped unless BENCH_KEEP_ENV=1. CI=true: no progress.
const benchEnv: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
/** The scan cache's folder for the bench's runs (PROVENANCE_CACHE_DIR), never the user's own. */
const BENCH_CACHE = join(BENCH, 'cache');
benchEnv.PROVENANCE_CACHE_DIR = BENCH_CACHE;
if (!process.env.BENCH_KEEP_ENV) delete benchEnv.NODE_EXTRA_CA_CERTS;

interface Timed {
  ms: number;
  stdout: string;
  peakRssKb?: number;
}

/**
 * Runs commands at once, each with stdout captured, and times them until the last one ends;
 * polls /proc for each process's peak RSS (VmHWM) and reports the highest.
 */
function timed(...args: [...[string, string[]][]] | [...[string, string[]][], string]): Promise<Timed> {
  // A last string argument: the scan cache folder for these commands.
  const cacheDir = typeof args.at(-1) === 'string' ? (args.pop() as string) : BENCH_CACHE;
  const commands = args as [string, string[]][];
  const env = { ...benchEnv, PROVENANCE_CACHE_DIR: cacheDir };
  const t0 = performance.now();
  let peak = 0;
  const runs = commands.map(
    ([cmd, args]) =>
      new Promise<string>((resolveRun, reject) => {
        const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
        const chunks: Buffer[] = [];
        const poll = setInterval(() => {
          try {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            const hwm = /VmHWM:\s+(\d+)/.exec(status);
            if (hwm) peak = Math.max(peak, Number(hwm[1]));
          } catch {
            /* exited between polls */
          }
        }, 20);
        child.stdout.on('data', (c: Buffer) => chunks.push(c));
        child.on('error', reject);
        child.on('close', (code) => {
          clearInterval(poll);
          if (code !== 0) reject(new Error(`${cmd} exited ${code}`));
          else resolveRun(Buffer.concat(chunks).toString());
        });
      }),
  );
  return Promise.all(runs).then((outputs) => ({ ms: performance.now() - t0, stdout: outputs.join(''), peakRssKb: peak || undefined }));
}

/**
 * Reads every file once, so that each timed run finds the whole folder in the page cache. This
 * machine's kernel pages out file pages left untouched for a while (DAMON, action pageout), and
 * a run after a pause read part of the folder from disk again: 18 MB in one measured scan,
 * which two threads reading at once felt more than one.
 */
function warmCache(files: string[]): void {
  for (const file of files) readFileSync(file);
}

/** Output lines of a run, which must be one per file. */
function checkLines(who: string, run: Timed, expected: number): Timed {
  const lines = run.stdout.trim().split('\n').length;
  if (lines !== expected) throw new Error(`${who} printed ${lines} lines for ${expected} files`);
  return run;
}

interface Round {
  scan: Timed;
  /** The same scan with --catalogue hosted (no AI-marks checks: no pixel decode). */
  scanHosted: Timed;
  /** Only the decodes the watermark check needs on this folder, split over two processes. */
  scanDecodeSplit: Timed;
  freeFloor: Timed;
  pinnedFloor?: Timed;
  /** Two floor loops at once, each on every other file. */
  split: Timed;
  exif?: Timed;
  /** The scan with stderr on a terminal (its NDJSON went to a file). */
  terminal?: Timed;
  /** --incremental with an empty scan cache, then again with the folder unchanged. */
  incrementalFirst: Timed;
  incrementalRescan: Timed;
  /** --incremental on 100,000 small files, all in the cache. */
  smallRescan: Timed;
  /** The mixed camera folder: every check, --catalogue hosted, and the pixel floor split in two. */
  cameraFull?: Timed;
  cameraHosted?: Timed;
  cameraDecodeSplit?: Timed;
}

/** Bundles a floor script once (scripts/bench-floor.ts, ...), so its wall time holds no build step. */
async function buildFloor(script = 'bench-floor'): Promise<string> {
  const outfile = join(ROOT, 'node_modules', '.cache', `${script}.mjs`);
  await build({ entryPoints: [`scripts/${script}.ts`], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'warning' });
  return outfile;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const scanDir = join(BENCH, 'scan');
  console.log('building the benchmark folder (cached in .bench/) ...');
  await buildScanFolder(scanDir, 1000, 100, join(BENCH, 'pki'));
  const files = listFiles(scanDir);
  const bytes = files.reduce((sum, f) => sum + readFileSync(f).length, 0);
  console.log(`${files.length} files, ${(bytes / 1048576).toFixed(0)} MiB, ${availableParallelism()} cores, node ${process.version}`);

  const floorScript = await buildFloor();
  // The camera folder: from the shared corpus's camera files, when the corpus is beside us.
  const corpusFiles = join(ROOT, '..', 'shared', 'corpus', 'files');
  const cameraDir = join(BENCH, 'camera-1000');
  const cameraSourceNames = cameraSources(corpusFiles);
  let cameraFiles: string[] = [];
  if (cameraSourceNames.length) {
    console.log('building the mixed camera folder (cached in .bench/) ...');
    cameraFiles = await makeCameraFolder(cameraDir, 1000, corpusFiles, cameraSourceNames);
  } else {
    console.log(`NOTICE: ${corpusFiles} is absent or holds no camera file: the camera-folder rows (every check vs --catalogue hosted) are skipped`);
  }
  const decodeFloor = await buildFloor('bench-decode-floor');
  const SMALL = 100_000;
  const smallDir = join(BENCH, 'small-100k');
  console.log(`building a folder of ${SMALL.toLocaleString('en-US')} small files (cached in .bench/) ...`);
  buildSmallFolder(smallDir, SMALL);
  const smallCache = join(BENCH, 'cache-small');
  // Filled once: the rounds time its rescans. A fresh cache, so an engine rebuilt since the last
  // bench does not leave its entries unread beside the new ones.
  rmSync(smallCache, { recursive: true, force: true });
  const smallFill = await timed([process.execPath, [BIN, 'check', '--json', '--incremental', '--summary', smallDir]], smallCache);
  console.log(`filled the scan cache for the small files: ${(smallFill.ms / 1000).toFixed(1)} s (${(SMALL / (smallFill.ms / 1000)).toFixed(0)} files/s, a first scan)`);
  const has = (cmd: string) => {
    try {
      execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  // The single-core floor is the plain loop held to one core (taskset): left free, Node runs its
  // garbage collector and V8's compilers on the second core, about a fifth of it, so the free
  // loop is not single-core. Both are measured; the target is read against the held one.
  const pinnable = has('taskset');
  if (!pinnable) console.log('taskset not installed (util-linux): the floor cannot be held to one core; the free loop stands in');
  const withExiftool = has('exiftool');
  if (!withExiftool) console.log('exiftool not installed (Debian: libimage-exiftool-perl): skipped');
  // The same scan with stderr on a pseudo-terminal (util-linux script, 100 x 40, CI unset), so
  // the live progress display is drawn: the piped runs above never pay for it.
  const withTerminal = has('script');
  if (!withTerminal) console.log('script not installed (Debian: bsdutils): the scan in a terminal is skipped');
  const terminalOut = join(BENCH, 'terminal-scan.ndjson');
  const q = shellQuote;
  const inTerminal = terminalCommand(`exec env -u CI ${q(process.execPath)} ${q(BIN)} check --json ${q(scanDir)} > ${q(terminalOut)}`);

  // Rounds, each running every contender once in turn: this machine drifts by up to a third
  // over minutes, and running all scans first and all floors last compared different minutes.
  const rounds: Round[] = [];
  const node = (...args: string[]): [string, string[]] => [process.execPath, args];
  const run = (...commands: [string, string[]][]) => {
    warmCache(files);
    return timed(...commands);
  };
  const runCamera = (...commands: [string, string[]][]) => {
    warmCache(cameraFiles);
    return timed(...commands);
  };
  const incremental = node(BIN, 'check', '--json', '--incremental', scanDir);
  const runWithEmptyCache = (...commands: [string, string[]][]) => {
    rmSync(BENCH_CACHE, { recursive: true, force: true });
    return run(...commands);
  };
  for (let i = 0; i < runs; i++) {
    const n = files.length;
    rounds.push({
      scan: checkLines('the scan', await run(node(BIN, 'check', '--json', scanDir)), n),
      scanHosted: checkLines('the scan, --catalogue hosted', await run(node(BIN, 'check', '--json', '--catalogue', 'hosted', scanDir)), n),
      scanDecodeSplit: await run(node(decodeFloor, scanDir, '0/2'), node(decodeFloor, scanDir, '1/2')),
      freeFloor: checkLines('the floor', await run(node(floorScript, scanDir)), n),
      pinnedFloor: pinnable ? checkLines('the floor', await run(['taskset', ['-c', '0', process.execPath, floorScript, scanDir]]), n) : undefined,
      split: checkLines('the split', await run(node(floorScript, scanDir, '0/2'), node(floorScript, scanDir, '1/2')), n),
      exif: withExiftool ? await run(['exiftool', ['-json', '-r', '-q', scanDir]]) : undefined,
      terminal: withTerminal ? checkLines('the scan in a terminal', { ...(await run(inTerminal)), stdout: readFileSync(terminalOut, 'utf8') }, n) : undefined,
      incrementalFirst: checkLines('the first --incremental scan', await runWithEmptyCache(incremental), n),
      incrementalRescan: checkLines('the --incremental rescan', await run(incremental), n),
      // The small files are not warmed: a stat needs the inodes, not the bytes, and they stay cached.
      smallRescan: checkLines('the rescan of the small files', await timed(node(BIN, 'check', '--json', '--incremental', smallDir), smallCache), SMALL),
      ...(cameraFiles.length
        ? {
            cameraFull: checkLines('the camera folder, every check', await runCamera(node(BIN, 'check', '--json', cameraDir)), cameraFiles.length),
            cameraHosted: checkLines('the camera folder, --catalogue hosted', await runCamera(node(BIN, 'check', '--json', '--catalogue', 'hosted', cameraDir)), cameraFiles.length),
            cameraDecodeSplit: await runCamera(node(decodeFloor, cameraDir, '0/2'), node(decodeFloor, cameraDir, '1/2')),
          }
        : {}),
    });
  }
  const ms = (pick: (r: Round) => Timed | undefined) => median(rounds.map((r) => pick(r)?.ms ?? NaN));
  /** The median over rounds of a ratio taken within each round, and its range. */
  const paired = (num: (r: Round) => Timed | undefined, den: (r: Round) => Timed | undefined) => {
    const ratios = rounds.map((r) => num(r)!.ms / den(r)!.ms);
    return `${median(ratios).toFixed(2)}x (rounds: ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
  };
  const floorOf = (r: Round) => r.pinnedFloor ?? r.freeFloor;
  const row = (label: string, wall: number) => console.log(`| ${label} | ${(wall / 1000).toFixed(2)} s | ${(files.length / (wall / 1000)).toFixed(0)} |`);
  console.log(`\n${runs} rounds; medians:\n`);
  console.log(`| run | wall time | files/s |`);
  console.log(`|---|---|---|`);
  row(`provenance check --json (pool of ${availableParallelism()}), every check`, ms((r) => r.scan));
  row('provenance check --json --catalogue hosted (no pixel check)', ms((r) => r.scanHosted));
  if (pinnable) row('single-core floor: plain loop, one process, held to one core (taskset -c 0)', ms((r) => r.pinnedFloor));
  row(`the same loop, not held to a core${pinnable ? '' : ' (stands in for the floor)'}`, ms((r) => r.freeFloor));
  row('ideal split: two such loops at once, each on every other file', ms((r) => r.split));
  if (withExiftool) row('exiftool -json -r', ms((r) => r.exif));
  if (withTerminal) row('provenance check --json, stderr a terminal (live display)', ms((r) => r.terminal));
  row('provenance check --json --incremental, first scan (empty scan cache)', ms((r) => r.incrementalFirst));
  row('provenance check --json --incremental, rescan of the unchanged folder', ms((r) => r.incrementalRescan));
  const small = ms((r) => r.smallRescan);
  console.log(`| ${SMALL.toLocaleString('en-US')} small files, --incremental rescan, all from the cache | ${(small / 1000).toFixed(2)} s | ${(SMALL / (small / 1000)).toFixed(0)} |`);
  console.log(`\nscan, every check / exiftool: ${withExiftool ? `${paired((r) => r.scan, (r) => r.exif)} (issue 32 target <= 1.0x)` : 'n/a'}`);
  console.log(`scan, --catalogue hosted / exiftool: ${withExiftool ? `${paired((r) => r.scanHosted, (r) => r.exif)} (target <= 0.35x)` : 'n/a'}`);
  const scanDecoded = rounds[0]!.scanDecodeSplit.stdout.trim().split('\n').filter(Boolean);
  row(`pixel floor: only the decodes the watermark check needs (${scanDecoded.length} pictures), two processes`, ms((r) => r.scanDecodeSplit));
  const leastPixel = (r: Round) => ({ ms: r.scanHosted.ms + r.scanDecodeSplit.ms, stdout: '' });
  if (withExiftool) console.log(`(hosted scan + pixel floor) / exiftool: ${paired(leastPixel, (r) => r.exif)} (the least a scan that reads every mark can cost here)`);
  console.log(`single-core floor / scan: ${paired(floorOf, (r) => r.scan)} (target >= 1.5x)`);
  if (pinnable) console.log(`the loop not held to a core / scan: ${paired((r) => r.freeFloor, (r) => r.scan)}`);
  console.log(`single-core floor / ideal split: ${paired(floorOf, (r) => r.split)} (two processes, no coordination: the bound a pool of two starts from)`);
  console.log(`ideal split / scan: ${paired((r) => r.split, (r) => r.scan)}`);
  if (withTerminal) console.log(`scan in a terminal / piped scan: ${paired((r) => r.terminal, (r) => r.scan)}`);
  console.log(`incremental rescan / first incremental scan: ${paired((r) => r.incrementalRescan, (r) => r.incrementalFirst)} (target <= 0.1x)`);
  console.log(`incremental rescan / plain scan: ${paired((r) => r.incrementalRescan, (r) => r.scan)}`);
  console.log(`first incremental scan / plain scan: ${paired((r) => r.incrementalFirst, (r) => r.scan)} (the cost of storing)`);
  console.log(`${SMALL.toLocaleString('en-US')}-file rescan: ${(SMALL / (small / 1000)).toFixed(0)} files/s (target >= 20,000)`);
  if (cameraFiles.length) {
    const cameraRow = (label: string, wall: number) => console.log(`| ${label} | ${(wall / 1000).toFixed(2)} s | ${(cameraFiles.length / (wall / 1000)).toFixed(0)} |`);
    console.log(`\nthe mixed camera folder (${cameraFiles.length} pictures from ${cameraSourceNames.join(', ')}):\n`);
    console.log(`| run | wall time | files/s |`);
    console.log(`|---|---|---|`);
    cameraRow('provenance check --json (every check)', ms((r) => r.cameraFull));
    cameraRow('provenance check --json --catalogue hosted', ms((r) => r.cameraHosted));
    const decoded = rounds[0]!.cameraDecodeSplit!.stdout.trim().split('\n').filter(Boolean);
    const megapixels = decoded.reduce((sum, px) => sum + Number(px), 0) / 1e6;
    cameraRow(`pixel floor: only the decodes the watermark check needs (${decoded.length} pictures, ${megapixels.toFixed(0)} MP), two processes`, ms((r) => r.cameraDecodeSplit));
    console.log(`\nevery check / --catalogue hosted: ${paired((r) => r.cameraFull, (r) => r.cameraHosted)} (target <= 1.5x)`);
    console.log(`(hosted scan + pixel floor) / hosted scan: ${paired((r) => ({ ms: r.cameraHosted!.ms + r.cameraDecodeSplit!.ms, stdout: '' }), (r) => r.cameraHosted)} (the least the full catalogue can cost)`);
    const found: Record<string, number> = {};
    for (const line of rounds[0]!.cameraFull!.stdout.trim().split('\n')) {
      for (const m of JSON.parse(line).matches ?? []) if (m.result === 'found') found[m.check] = (found[m.check] ?? 0) + 1;
    }
    console.log(`found in the camera folder: ${JSON.stringify(found)} (generator_metadata and invisible_watermark must be absent: no false positive)`);
  }
  const scan = rounds.map((r) => r.scan).sort((x, y) => x.ms - y.ms)[Math.floor(rounds.length / 2)]!;
  // 1.9 MB, the size of the corpus JPEG bench-daemon.ts hashes, so the two benches' figures compare.
  console.log(`machine speed at the end: SHA-256 of 1.9 MB in ${sha256Ms(Buffer.alloc(1957448, 7)).toFixed(2)} ms, one thread`);
  console.log(`peak RSS of the scan: ${((scan.peakRssKb ?? 0) / 1024).toFixed(0)} MiB`);

  if (args.includes('--rss')) {
    const bigDir = join(BENCH, 'scan-10k');
    console.log('\nbuilding a 10,000-file folder ...');
    await buildScanFolder(bigDir, 10_000, 0, join(BENCH, 'pki'));
    const big = await timed([process.execPath, [BIN, 'check', '--json', bigDir]]);
    const sources = big.stdout.trim().split('\n').map((l) => JSON.parse(l).source as string);
    const expectedOrder = [...sources].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    console.log(`10,000 files: ${(big.ms / 1000).toFixed(1)} s, peak RSS ${((big.peakRssKb ?? 0) / 1024).toFixed(0)} MiB (target < 250 MiB), ` +
      `${sources.length} lines, output order ${JSON.stringify(sources) === JSON.stringify(expectedOrder) ? 'equals' : 'DIFFERS FROM'} input order`);
  }
}

await main();
