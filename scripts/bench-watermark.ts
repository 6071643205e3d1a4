// `node scripts/run-ts.mjs scripts/bench-watermark.ts`: the invisible_watermark check against
// the reference decoder on the corpus PNGs (../shared/corpus/ai, every PNG under it), one core
// each. Ours: read the file, run the detector (header, decode, every reading it needs), in this
// process with libvips held to one thread (VIPS_CONCURRENCY=1, set before sharp loads: the
// script re-runs itself so, from the repository root). The reference: cv2.imread + imwatermark's WatermarkDecoder
// (dwtDct) for each of the five payloads, in python3 with OpenCV held to one thread, timed
// inside python (interpreter start and imports excluded). Both under `taskset -c 0` when
// available. The reference checkout comes from PROVENANCE_BENCH_IMWATERMARK (a directory holding
// imwatermark/); the interpreter from PROVENANCE_BENCH_PYTHON, else python3, else
// /usr/bin/python3, the first that imports cv2, pywt and numpy. Without them the reference row
// is skipped with a notice. BENCH_RUNS rounds (default 3), each timing both once, so ratios
// compare runs of the same minute. Target: ours <= 0.3x the reference. The whole-process row
// also times its floor (FLOOR_JS: node and sharp decoding the files, nothing else) and the
// least CLI of the chosen libraries (CLI_FLOOR_JS: commander, read, SHA-256, decode, a line), and
// that CLI with our detector alone run on each file (DETECTOR_FLOOR_TS: the readings' cost in a
// fresh process, without the rest of ours). Last, our detector's time split in fresh processes:
// the first pass over the files against later passes, decodes apart from readings (no reference
// needed for this table).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Ms } from './machine-speed.js';

const CORPUS = resolve('..', 'shared', 'corpus', 'ai');
const OURS_FLAG = '--ours-child';
const PASSES_FLAG = '--passes-child';
/** Passes over the files in bench-watermark's passes child (the first, and the later ones). */
const PASSES = 3;

function pngsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.png'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The least and the most of `values`, as "min-max". */
const range = (values: number[], digits = 0) => `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

const pin = (command: string, args: string[]): [string, string[]] => (has('taskset') ? ['taskset', ['-c', '0', command, ...args]] : [command, args]);

/** The child: times our detector on the files, prints {ms, bits} as JSON. */
async function oursChild(files: string[]): Promise<void> {
  const { invisibleWatermark, uprightPixels } = await import('../src/detectors/invisible-watermark.js');
  const { sniffMediaType } = await import('../src/media/sniff.js');
  const { readBlockBits, voteBits, matchingBits } = await import('../src/media/dwt-dct.js');
  const { PAYLOAD_BITS } = await import('../src/detectors/invisible-watermark-payloads.js');
  // Warm-up: sharp's native module and the JIT, on one file.
  const warm = new Uint8Array(readFileSync(files[0]!));
  await invisibleWatermark.run({ bytes: warm, type: await sniffMediaType(warm), sha256: '' }, {});
  const start = performance.now();
  for (const file of files) {
    // A fresh array per file and run: decodePixels memoises per array, and must not here.
    const bytes = new Uint8Array(readFileSync(file));
    await invisibleWatermark.run({ bytes, type: 'image/png', sha256: '' }, {});
  }
  const ms = performance.now() - start;
  // Outside the timing: the reference-equivalent counts, to check both sides read the same.
  const bits: Record<string, Record<string, number> | null> = {};
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file));
    const pixels = await uprightPixels({ bytes, type: 'image/png', sha256: '' });
    if (pixels.width * pixels.height < 256 * 256) {
      bits[file] = null;
      continue;
    }
    const blocks = readBlockBits(pixels);
    bits[file] = Object.fromEntries(Object.entries(PAYLOAD_BITS).map(([p, want]) => [p, matchingBits(voteBits(blocks, want.length), want)]));
  }
  console.log(JSON.stringify({ ms, bits }));
}

/** One pass of the passes child: the decodes' and the readings' wall time and page faults. */
interface Pass {
  decodeMs: number;
  decodeFaults: number;
  readingsMs: number;
  readingsFaults: number;
}

/** The child that splits our detector's time in a fresh process: the files read PASSES times over,
 * each file's pixels decoded first (decodePixels memoises them per byte array), then the detector
 * run on it, so that its time is the readings'. The first pass is what a CLI process pays (V8
 * compiling the code, the kernels' memory touched for the first time); the later ones what a
 * long-lived process does. Prints the passes as JSON. */
async function passesChild(files: string[]): Promise<void> {
  const { invisibleWatermark } = await import('../src/detectors/invisible-watermark.js');
  const { decodePixels, PixelDecodeError } = await import('../src/media/pixels.js');
  const { sniffMediaType } = await import('../src/media/sniff.js');
  const faults = () => process.resourceUsage().minorPageFault;
  const passes: Pass[] = [];
  for (let n = 0; n < PASSES; n++) {
    const pass: Pass = { decodeMs: 0, decodeFaults: 0, readingsMs: 0, readingsFaults: 0 };
    for (const file of files) {
      const bytes = new Uint8Array(readFileSync(file));
      const type = await sniffMediaType(bytes);
      let start = performance.now();
      let before = faults();
      // A file the decoder refuses is refused by the detector too, which is then timed as such.
      await decodePixels(bytes).catch((err: unknown) => {
        if (!(err instanceof PixelDecodeError)) throw err;
      });
      pass.decodeMs += performance.now() - start;
      pass.decodeFaults += faults() - before;
      start = performance.now();
      before = faults();
      await invisibleWatermark.run({ bytes, type, sha256: '' }, {});
      pass.readingsMs += performance.now() - start;
      pass.readingsFaults += faults() - before;
    }
    passes.push(pass);
  }
  console.log(JSON.stringify(passes));
}

// Both reference scripts start so: the checkout on the path (argv[1]), and imwatermark/__init__'s
// rivaGan method, which needs torch and onnxruntime, stubbed where they are absent (dwtDct needs
// neither; the code timed is untouched); OpenCV on one thread.
const REFERENCE_PREAMBLE = String.raw`
import json, sys, time, types
sys.path.insert(0, sys.argv[1])
for name in ('torch', 'onnxruntime'):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name)
import cv2, numpy as np
cv2.setNumThreads(1)
from imwatermark import WatermarkDecoder
`;

const REFERENCE_PY = REFERENCE_PREAMBLE + String.raw`
SDXL = [int(b) for b in bin(0b101100111110110010010000011110111011000110011110)[2:]]
PAYLOADS = [('sdxl48', SDXL)] + [(t, list(np.unpackbits(np.frombuffer(t.encode(), dtype=np.uint8)))) for t in ('StableDiffusionV1', 'StableDiffusionV1-Inpainting', 'SDV2', 'InvokeAI')]
files = sys.argv[2:]
def check(path):
    img = cv2.imread(path)
    out = {}
    for name, want in PAYLOADS:
        try:
            got = WatermarkDecoder('bits', len(want)).decode(img, 'dwtDct')
        except RuntimeError:
            return None
        out[name] = int(np.sum(np.array(got) == np.array(want)))
    return out
check(files[0])
start = time.perf_counter()
bits = {f: check(f) for f in files}
print(json.dumps({'ms': (time.perf_counter() - start) * 1000, 'bits': bits}))
`;

// The reference as a user runs it on the files (issue 32's whole-process row): one process, the
// interpreter's start and imports included, cv2.imread and the 48-bit SDXL message per file.
const REFERENCE_WHOLE_PY = REFERENCE_PREAMBLE + String.raw`
for path in sys.argv[2:]:
    img = cv2.imread(path)
    try:
        WatermarkDecoder('bits', 48).decode(img, 'dwtDct')
    except RuntimeError:
        pass
`;

// Each floor frees a file's pixels before the next decode, as ours does (engine/detect.ts): a
// young-generation collection after each file, so that the next decode writes into their memory
// rather than into pages fresh from the system (some 33 ms over the 32 files for the CLI floor).
const YOUNG_GC_JS = String.raw`
require('node:v8').setFlagsFromString('--expose-gc');
const youngGc = ((gc) => () => gc({ type: 'minor' }))(require('node:vm').runInNewContext('gc'));
`;

// The floor of the whole-process row: a bare node process that loads sharp and decodes the same
// files to raw 8-bit sRGB with the options media/pixels.ts uses, and does nothing else (no CLI,
// no reading of the mark). No reading of these pixels in a node process can cost less.
const FLOOR_JS = String.raw`
const sharp = require('sharp');
const { readFileSync } = require('node:fs');
${YOUNG_GC_JS}
sharp.cache(false);
sharp.concurrency(1);
(async () => {
  for (const file of process.argv.slice(1)) {
    await sharp(readFileSync(file), { failOn: 'none', sequentialRead: true }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    youngGc();
  }
})();
`;

// The least a CLI made of the chosen libraries can do with these files and still answer as the
// contract asks (a line per file with its size and SHA-256): commander parses the same
// arguments, and each file is read, hashed, decoded as FLOOR_JS does it and its line written. What
// our whole-process row spends over this row is our own (the start-up of our code, the engine's
// per-file work, the mark's readings), not a library's.
const CLI_FLOOR_JS = String.raw`
const { Command } = require('commander');
const sharp = require('sharp');
const { readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
${YOUNG_GC_JS}
sharp.cache(false);
sharp.concurrency(1);
const program = new Command('provenance');
program.command('check').argument('<inputs...>').option('--json').option('--concurrency <n>').option('--checks <list>').action(async (inputs) => {
  for (const file of inputs) {
    const bytes = readFileSync(file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { info } = await sharp(bytes, { failOn: 'none', sequentialRead: true }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    process.stdout.write(JSON.stringify({ source: file, media: { bytes: bytes.length, sha256 }, width: info.width, height: info.height }) + '\n');
    youngGc();
  }
});
program.parseAsync(process.argv.slice(1), { from: 'user' });
`;

// The least process that does what the issue asks of the check: CLI_FLOOR_JS with our
// invisible_watermark detector run on each file (its decode and every reading it needs), then
// the engine's collection of its pixels, and nothing else of ours (no engine, no other check, no
// report). Bundled by esbuild as scripts/run-ts.mjs bundles this script. Between the CLI floor and this row lies the cost of the
// readings in a fresh process; between this row and ours, the rest of our CLI's start and work.
const DETECTOR_FLOOR_TS = String.raw`
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
// sharp is loaded by the detector, on its first decode, as in ours (media/pixels.ts: require, one
// libvips thread, no operation cache).
import { invisibleWatermark } from './src/detectors/invisible-watermark.js';
import { collectYoungNow } from './src/engine/idle-collect.js';
const typeOf = (b: Uint8Array) => (b[0] === 0x89 ? 'image/png' : b[0] === 0xff ? 'image/jpeg' : 'image/webp');
const program = new Command('provenance');
program.command('check').argument('<inputs...>').option('--json').option('--concurrency <n>').option('--checks <list>').action(async (inputs: string[]) => {
  for (const file of inputs) {
    const bytes = new Uint8Array(readFileSync(file));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const outcome = await invisibleWatermark.run({ bytes, type: typeOf(bytes), sha256 }, {});
    process.stdout.write(JSON.stringify({ source: file, media: { bytes: bytes.length, sha256 }, outcome }) + '\n');
    collectYoungNow();
  }
});
program.parseAsync(process.argv.slice(2), { from: 'user' });
`;

/** DETECTOR_FLOOR_TS bundled into node_modules/.cache (so that it finds the project's packages). */
async function buildDetectorFloor(): Promise<string> {
  const { build } = await import('esbuild');
  mkdirSync(join('node_modules', '.cache'), { recursive: true });
  const outfile = resolve('node_modules', '.cache', 'bench-watermark-detector-floor.mjs');
  await build({ stdin: { contents: DETECTOR_FLOOR_TS, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'detector-floor.ts' }, outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'warning' });
  return outfile;
}

/** Wall time of a whole process, held to core 0 when taskset is there. */
function wholeMs(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const [cmd, argv] = pin(command, args);
  const start = performance.now();
  execFileSync(cmd, argv, { env, stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  return performance.now() - start;
}

/** The python that can run the reference, or why none can. */
function findReference(): { python: string; checkout: string } | string {
  const checkout = process.env.PROVENANCE_BENCH_IMWATERMARK;
  if (!checkout) return 'PROVENANCE_BENCH_IMWATERMARK is not set (a directory holding imwatermark/, e.g. a ShieldMnt/invisible-watermark checkout)';
  if (!existsSync(join(checkout, 'imwatermark', 'maxDct.py'))) return `${checkout} holds no imwatermark/maxDct.py`;
  const candidates = [process.env.PROVENANCE_BENCH_PYTHON, 'python3', '/usr/bin/python3'].filter((c): c is string => Boolean(c));
  const tried: string[] = [];
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', 'import cv2, pywt, numpy'], { encoding: 'utf8' });
    if (probe.status === 0) return { python, checkout };
    tried.push(`${python}: ${probe.error ? 'not found' : (probe.stderr.trim().split('\n').pop() ?? 'fails')}`);
  }
  return `no python3 with cv2, pywt and numpy (${tried.join('; ')}; Debian: apt-get install python3-opencv python3-pywt)`;
}

interface Timed {
  ms: number;
  bits: Record<string, Record<string, number> | null>;
}

/** The last line of a child's output, as JSON (the child held to core 0 when taskset is there). */
function runJson<T = Timed>(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): T {
  const [cmd, argv] = pin(command, args);
  return JSON.parse(execFileSync(cmd, argv, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!);
}

async function main(): Promise<void> {
  if (process.argv[2] === OURS_FLAG) return oursChild(process.argv.slice(3));
  if (process.argv[2] === PASSES_FLAG) return passesChild(process.argv.slice(3));
  if (!existsSync(CORPUS)) {
    console.log(`NOTICE: ${CORPUS} is absent: nothing to bench.`);
    return;
  }
  const files = pngsUnder(CORPUS);
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const reference = findReference();
  if (typeof reference === 'string') console.log(`NOTICE: the reference row is skipped: ${reference}.`);
  // This script again, through the runner that bundles it (argv[1] is scripts/run-ts.mjs).
  const self = [process.argv[1]!, 'scripts/bench-watermark.ts'];
  const oursEnv = { ...process.env, VIPS_CONCURRENCY: '1' };
  console.log(`${files.length} PNGs under ${CORPUS}; ${runs} rounds${has('taskset') ? ', each side held to core 0 (taskset)' : ''}.`);

  // Whole processes: the CLI as a user runs it on the files (one thread: --concurrency 1), and
  // the reference's script; start-up and imports included on both sides.
  const cliEnv: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
  if (!process.env.BENCH_KEEP_ENV) delete cliEnv.NODE_EXTRA_CA_CERTS;
  const cli = [join('bin', 'provenance.js'), 'check', '--json', '--concurrency', '1', '--checks', 'invisible_watermark', ...files];
  const detectorFloor = await buildDetectorFloor();
  const rounds: Array<{ ours: Timed; reference?: Timed; oursWhole: number; referenceWhole?: number; floorWhole: number; cliFloorWhole: number; detectorFloorWhole: number }> = [];
  for (let i = 0; i < runs; i++) {
    const ours = runJson(process.execPath, [...self, OURS_FLAG, ...files], oursEnv);
    const ref = typeof reference === 'string' ? undefined : runJson(reference.python, ['-c', REFERENCE_PY, reference.checkout, ...files]);
    const oursWhole = wholeMs(process.execPath, cli, cliEnv);
    const referenceWhole = typeof reference === 'string' ? undefined : wholeMs(reference.python, ['-c', REFERENCE_WHOLE_PY, reference.checkout, ...files], process.env);
    const floorWhole = wholeMs(process.execPath, ['-e', FLOOR_JS, ...files], oursEnv);
    const cliFloorWhole = wholeMs(process.execPath, ['-e', CLI_FLOOR_JS, 'check', '--json', '--concurrency', '1', '--checks', 'invisible_watermark', ...files], oursEnv);
    const detectorFloorWhole = wholeMs(process.execPath, [detectorFloor, 'check', '--json', '--concurrency', '1', '--checks', 'invisible_watermark', ...files], oursEnv);
    rounds.push({ ours, reference: ref, oursWhole, referenceWhole, floorWhole, cliFloorWhole, detectorFloorWhole });
  }

  const ours = median(rounds.map((r) => r.ours.ms));
  console.log('\n| run | wall time | per file |');
  console.log('|---|---|---|');
  console.log(`| ours: invisible_watermark check (decode + all payloads and readings), one core | ${ours.toFixed(0)} ms | ${(ours / files.length).toFixed(1)} ms |`);
  if (typeof reference !== 'string') {
    const ref = median(rounds.map((r) => r.reference!.ms));
    console.log(`| reference: cv2.imread + WatermarkDecoder x 5 payloads (${reference.python}), one core | ${ref.toFixed(0)} ms | ${(ref / files.length).toFixed(1)} ms |`);
    const ratios = rounds.map((r) => r.ours.ms / r.reference!.ms);
    console.log(`\nours / reference: ${median(ratios).toFixed(3)}x (rounds: ${range(ratios, 3)}; target <= 0.3x)`);
    // Both sides read the same bits on every file (PNG: exact).
    const a = rounds[0]!.ours.bits;
    const b = rounds[0]!.reference!.bits;
    const same = files.filter((f) => JSON.stringify(a[f]) === JSON.stringify(b[f])).length;
    const oursWhole = median(rounds.map((r) => r.oursWhole));
    const refWhole = median(rounds.map((r) => r.referenceWhole!));
    console.log('\nWhole processes, one core (start-up and imports included):\n');
    console.log('| run | wall time | per file |');
    console.log('|---|---|---|');
    console.log(`| ours: provenance check --json --concurrency 1 --checks invisible_watermark FILES | ${oursWhole.toFixed(0)} ms | ${(oursWhole / files.length).toFixed(1)} ms |`);
    console.log(`| reference: python3, cv2.imread + WatermarkDecoder (48-bit message) per file | ${refWhole.toFixed(0)} ms | ${(refWhole / files.length).toFixed(1)} ms |`);
    const floorWhole = median(rounds.map((r) => r.floorWhole));
    console.log(`| floor: node loading sharp and decoding the files, nothing else | ${floorWhole.toFixed(0)} ms | ${(floorWhole / files.length).toFixed(1)} ms |`);
    const cliFloorWhole = median(rounds.map((r) => r.cliFloorWhole));
    console.log(`| CLI floor: commander, and each file read, hashed, decoded, a JSON line written | ${cliFloorWhole.toFixed(0)} ms | ${(cliFloorWhole / files.length).toFixed(1)} ms |`);
    const detectorFloorWhole = median(rounds.map((r) => r.detectorFloorWhole));
    console.log(`| detector floor: the CLI floor with our invisible_watermark detector run on each file, nothing else of ours | ${detectorFloorWhole.toFixed(0)} ms | ${(detectorFloorWhole / files.length).toFixed(1)} ms |`);
    // A row's whole-process time over the reference's, per round: the median and the rounds' range.
    const ratio = (whole: (r: (typeof rounds)[number]) => number) => {
      const ratios = rounds.map((r) => whole(r) / r.referenceWhole!);
      return `${median(ratios).toFixed(3)}x (rounds: ${range(ratios, 3)}`;
    };
    console.log(`\nours / reference, whole processes: ${ratio((r) => r.oursWhole)}; issue 32 target <= 0.3x)`);
    console.log(`floor / reference, whole processes: ${ratio((r) => r.floorWhole)})`);
    console.log(`CLI floor / reference, whole processes: ${ratio((r) => r.cliFloorWhole)})`);
    console.log(`detector floor / reference, whole processes: ${ratio((r) => r.detectorFloorWhole)})`);
    console.log(`files where our reference reading equals the reference's bits_matched on all five payloads: ${same}/${files.length}`);
  }
  // Our detector's time in a fresh process, split (no reference needed): one child a round.
  const split: Pass[][] = [];
  for (let i = 0; i < runs; i++) split.push(runJson<Pass[]>(process.execPath, [...self, PASSES_FLAG, ...files], oursEnv));
  const first = split.map((passes) => passes[0]!);
  const later = split.flatMap((passes) => passes.slice(1));
  console.log(`\nOur detector in a fresh process (${runs} processes, ${PASSES} passes over the files; each file decoded first, then the detector run on its pixels), ms (page faults):\n`);
  console.log('| pass | decode | readings |');
  console.log('|---|---|---|');
  console.log(`| first | ${range(first.map((p) => p.decodeMs))} (${range(first.map((p) => p.decodeFaults))}) | ${range(first.map((p) => p.readingsMs))} (${range(first.map((p) => p.readingsFaults))}) |`);
  console.log(`| later | ${range(later.map((p) => p.decodeMs))} (${range(later.map((p) => p.decodeFaults))}) | ${range(later.map((p) => p.readingsMs))} (${range(later.map((p) => p.readingsFaults))}) |`);
  console.log(`machine speed at the end: SHA-256 of 1.9 MB in ${sha256Ms(Buffer.alloc(1957448, 7)).toFixed(2)} ms, one thread`);
}

await main();
