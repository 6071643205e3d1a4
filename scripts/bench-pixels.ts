// `npm run bench:pixels`: what the invisible_watermark check costs beside the decode it needs
// (issue 32), per kind of picture, one core each. For each kind (a type and size of the bench's
// folder, of the mixed camera folder, and the AI corpus's PNGs):
//   - the check's cost: `provenance check --json --concurrency 1 --checks invisible_watermark
//     FILES` minus the same with `--checks camera_reference` (whole processes, held to core 0
//     with taskset: the difference is the pixel check, the rest alike), each side less its run on
//     the first file alone: the cost of the files after the first, without what a process pays
//     once (sharp's load, some 90 ms, and the kernels' compile), which a scan spreads over all its
//     files and which a kind of ten files would count ten times too heavily;
//   - the decode: sharp alone decoding the same files to raw pixels on one thread (libvips held to
//     one thread), in a process of its own (sharp loaded, one file decoded to warm it), the files
//     read before and each decode timed alone from a clean heap (decodeChild), all the files less
//     the first alone: what any reading of these pixels must pay at least.
// Ratio = cost / decode, per round, median over BENCH_RUNS rounds (default 3), each round running
// the three for every kind in turn, so a ratio compares runs of the same minute. Overall: the sum
// of the costs over the sum of the decodes. Targets: <= 2.0x overall, <= 3.0x per kind. The
// machine's speed (SHA-256 of 1.9 MB) is printed before and after.
// The camera folder and the AI PNGs need ../shared/corpus (skipped with a notice without it).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listFiles, median } from './bench-kit.js';
import { buildScanFolder } from './bench-folders.js';
import { sha256Ms } from './machine-speed.js';

const ROOT = resolve('.');
const BENCH = join(ROOT, '.bench');
const BIN = join(ROOT, 'bin', 'provenance.js');
const DECODE_FLAG = '--decode-child';
/** Files per kind, at most (the first ones in name order). */
const PER_KIND = Number(process.env.BENCH_PER_KIND ?? 40);
/** Kinds with fewer files than this are left out (too few to time). */
const MIN_KIND = 10;

const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', VIPS_CONCURRENCY: '1' };
if (!process.env.BENCH_KEEP_ENV) delete env.NODE_EXTRA_CA_CERTS;

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}
const PIN = has('taskset');
const pinned = (args: string[]): [string, string[]] => (PIN ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args]);

/** The decode child: sharp alone on the listed files, after one warm-up decode; prints ms. Run
 * with --expose-gc. */
async function decodeChild(listFile: string): Promise<void> {
  const { decodePixels, loadSharp, releasePixels } = await import('../src/media/pixels.js');
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the decode child needs node --expose-gc');
  await loadSharp();
  const files = readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
  // Only the decodes are timed, each from a clean heap: the files are read first (reading is not
  // the decode, and the checks' side pays it in both of its processes), and before each decode a
  // collection, untimed, frees the last one's pixels, so that the allocator hands their memory
  // to the next decode instead of pages fresh from the system (11-15 us each here). Timed as one
  // loop, a 2 MB PNG's read and copy and the fresh pages of decodes that V8 had not yet freed
  // counted as its decode: 38-42 ms a 1344 x 768 PNG, 24 with the files read first, 18 from a
  // clean heap, and the large PNG kinds came out below 1.0x.
  const bytes = files.map((file) => new Uint8Array(readFileSync(file)));
  const decode = async (file: Uint8Array): Promise<number> => {
    gc();
    const start = performance.now();
    await decodePixels(file);
    const ms = performance.now() - start;
    releasePixels(file);
    return ms;
  };
  await decode(bytes[0]!);
  // All the files, and the first alone, as the check's side is timed.
  let all = 0;
  for (const file of bytes) all += await decode(file);
  process.stdout.write(`${all} ${await decode(bytes[0]!)}\n`);
}

/** Wall time of a command, ms; fails loudly when it fails. */
function timed([command, args]: [string, string[]]): number {
  const start = performance.now();
  execFileSync(command, args, { env, stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 28 });
  return performance.now() - start;
}

interface Kind {
  name: string;
  files: string[];
  list: string;
}

/** Groups `files` by media type and size (those the check decodes), each kind at most PER_KIND. */
async function kindsOf(label: string, files: string[]): Promise<Kind[]> {
  const { sniffMediaType } = await import('../src/media/sniff.js');
  const { pictureSize } = await import('../src/media/picture-size.js');
  const { MIN_WATERMARK_PIXELS, MAX_WATERMARK_PIXELS } = await import('../src/detectors/invisible-watermark.js');
  const groups = new Map<string, string[]>();
  for (const file of [...files].sort()) {
    const bytes = new Uint8Array(readFileSync(file));
    const type = await sniffMediaType(bytes);
    const size = pictureSize(bytes, type);
    if (!size || size.width * size.height < MIN_WATERMARK_PIXELS || size.width * size.height > MAX_WATERMARK_PIXELS) continue;
    const name = `${label}: ${type.replace('image/', '').toUpperCase()} ${size.width}x${size.height}`;
    groups.set(name, [...(groups.get(name) ?? []), file]);
  }
  return [...groups].filter(([, f]) => f.length >= MIN_KIND).map(([name, f]) => ({ name, files: f.slice(0, PER_KIND), list: '' }));
}

async function main(): Promise<void> {
  if (process.argv[2] === DECODE_FLAG) return decodeChild(process.argv[3]!);
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  if (!PIN) console.log('taskset not installed (util-linux): the runs are not held to one core');
  const scanDir = join(BENCH, 'scan');
  await buildScanFolder(scanDir, 1000, 100, join(BENCH, 'pki'));
  const kinds: Kind[] = await kindsOf('bench folder', listFiles(scanDir));
  const corpus = join(ROOT, '..', 'shared', 'corpus');
  if (existsSync(corpus)) {
    const { cameraSources, makeCameraFolder } = await import('../test/helpers/camera-folder.js');
    const cameraFiles = await makeCameraFolder(join(BENCH, 'camera-1000'), 1000, join(corpus, 'files'), cameraSources(join(corpus, 'files')));
    kinds.push(...(await kindsOf('camera folder', cameraFiles)));
    const aiPngs = listFiles(join(corpus, 'ai')).filter((f) => f.toLowerCase().endsWith('.png')).sort();
    kinds.push({ name: 'AI corpus PNGs (all sizes)', files: aiPngs, list: '' });
  } else {
    console.log(`NOTICE: ${corpus} is absent: the camera-folder kinds and the AI corpus PNGs are skipped`);
  }
  const listDir = join(BENCH, 'pixel-lists');
  mkdirSync(listDir, { recursive: true });
  kinds.forEach((kind, i) => {
    kind.list = join(listDir, `kind-${i}.txt`);
    writeFileSync(kind.list, `${kind.files.join('\n')}\n`);
  });
  // The decode child: this script again, through the runner that bundles it (argv[1] is
  // scripts/run-ts.mjs); it times itself from its first decode, so the bundling is not counted.
  const self = [process.argv[1]!, 'scripts/bench-pixels.ts'];
  // The gauge of every bench: SHA-256 of 1.9 MB (scripts/machine-speed.ts).
  const gauge = Buffer.alloc(1957448, 7);
  console.log(`machine speed before: SHA-256 of ${gauge.length} bytes in ${sha256Ms(gauge).toFixed(2)} ms`);
  console.log(`${kinds.length} kinds, ${kinds.reduce((n, k) => n + k.files.length, 0)} files, ${runs} rounds, one core each${PIN ? ' (taskset -c 0)' : ''}`);
  const rounds: { cost: number[]; decode: number[]; once: number[] }[] = [];
  for (let r = 0; r < runs; r++) {
    const round = { cost: [] as number[], decode: [] as number[], once: [] as number[] };
    for (const kind of kinds) {
      const check = (checks: string, files: string[]) => timed(pinned([BIN, 'check', '--json', '--concurrency', '1', '--checks', checks, ...files]));
      // Each side once on all the files and once on the first alone: the difference is what the
      // files after the first cost, without what a process pays once (its start, sharp's load,
      // the kernels' compile), which a scan of many files spreads over all of them.
      const first = kind.files.slice(0, 1);
      const fullFirst = check('invisible_watermark', first);
      const withoutFirst = check('camera_reference', first);
      const full = check('invisible_watermark', kind.files) - fullFirst;
      const without = check('camera_reference', kind.files) - withoutFirst;
      round.once.push(fullFirst - withoutFirst);
      const [command, args] = pinned(['--expose-gc', ...self, DECODE_FLAG, kind.list]);
      const [decode, decodeFirst] = execFileSync(command, args, { env, encoding: 'utf8' }).trim().split(' ').map(Number);
      round.cost.push(full - without);
      round.decode.push(decode! - decodeFirst!);
    }
    rounds.push(round);
  }
  console.log(`machine speed after: ${sha256Ms(gauge).toFixed(2)} ms\n`);
  console.log('| kind | files | check cost / file after the first | decode / file | cost / decode (rounds) |');
  console.log('|---|---|---|---|---|');
  kinds.forEach((kind, i) => {
    const ratios = rounds.map((round) => round.cost[i]! / round.decode[i]!);
    const cost = median(rounds.map((round) => round.cost[i]!)) / (kind.files.length - 1);
    const decode = median(rounds.map((round) => round.decode[i]!)) / (kind.files.length - 1);
    console.log(`| ${kind.name} | ${kind.files.length} | ${cost.toFixed(1)} ms | ${decode.toFixed(1)} ms | **${median(ratios).toFixed(2)}x** (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}) |`);
  });
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const overall = rounds.map((round) => sum(round.cost) / sum(round.decode));
  const once = median(rounds.flatMap((round) => round.once));
  console.log(`\nonce per process, not in the table (the first file's check less its camera_reference run, its decode included): median ${once.toFixed(0)} ms over the kinds and rounds`);
  console.log(`overall (sum of costs / sum of decodes): **${median(overall).toFixed(2)}x** (rounds ${Math.min(...overall).toFixed(2)}-${Math.max(...overall).toFixed(2)}; target <= 2.0x overall, <= 3.0x per kind)`);
}

await main();
