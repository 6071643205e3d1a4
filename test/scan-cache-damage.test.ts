// `check --incremental` on a scan cache damaged deep inside its LMDB file (issue 19): a real
// cache, copied and damaged at one place per case (the main tree's root and a leaf, the free
// tree, the header's records, pages nobody reads), then scanned by the built CLI in a subprocess.
// LMDB trusts its pages: before the whole-file check, several of these ended the process
// (SIGSEGV, SIGBUS, an assertion's SIGABRT) or a later one. Now each run exits 0 with right
// results; damage to what LMDB would read is reported once, moved aside and rebuilt.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg, tinyPng } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { layoutOf, type Layout } from './helpers/lmdb-layout.js';
import { parseLines, runBin, type CliRun } from './helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

const PAST = new Date('2026-01-01T00:00:00Z');
let dir: string;
let signed: SignedSet;
let folder: string;
let base: string;
let layout: Layout;
let reference: unknown[];
const FILES = 60;

function makeFolder(name: string, n: number, offset: number): string {
  const at = join(dir, name);
  mkdirSync(at);
  for (let i = offset; i < offset + n; i++) {
    const bytes = i % 5 === 0 ? signed.jpeg : i % 5 === 1 ? tinyPng({ seed: i }) : tinyJpeg({ seed: i, exif: i % 2 ? exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) : undefined });
    const file = join(at, `f${String(i).padStart(4, '0')}.${i % 5 === 1 ? 'png' : 'jpg'}`);
    writeFileSync(file, bytes);
    utimesSync(file, PAST, PAST);
  }
  return at;
}

const strip = (lines: any[]) => lines.map(({ id: _i, duration_ms: _d, ...rest }) => rest);
const warningsOf = (run: CliRun) => run.stderr.split('\n').filter((l) => l.startsWith('provenance: '));
const summaryOf = (run: CliRun) => JSON.parse(run.stderr.trim().split('\n').at(-1)!);
const scan = (cache: string, args: string[] = []) => runBin(['check', '--json', '--summary', '--incremental', ...args, folder], { env: { PROVENANCE_CACHE_DIR: cache } });

beforeAll(async () => {
  signed = await makeSignedSet();
  dir = mkdtempSync(join(tmpdir(), 'prov-cache-damage-'));
  folder = makeFolder('files', FILES, 0);
  const older = makeFolder('older', 40, 1000);
  reference = strip(parseLines((await runBin(['check', '--json', folder])).stdout));
  // A cache with a free tree: entries of another folder stored first, then pruned away.
  base = join(dir, 'base');
  const env = { PROVENANCE_CACHE_DIR: base };
  await runBin(['check', '--json', '--incremental', older], { env });
  await runBin(['check', '--json', '--incremental', folder], { env });
  const full = JSON.parse((await runBin(['cache', 'scan', 'stats', '--json'], { env })).stdout);
  await runBin(['check', '--json', '--incremental', '--cache-max', String(Math.floor(full.data_bytes * 0.72)), folder], { env });
  layout = layoutOf(join(base, 'scan', 'scan.mdb'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

/** Seeded bytes: the same garbage on every run. */
function garbage(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) out[i] = ((x = (x * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff;
  return out;
}

type Damage = (bytes: Buffer, l: Layout) => void;
const page = (l: Layout, p: number) => [p * l.pageSize, (p + 1) * l.pageSize] as const;
/** Where the node of a page's first pointer lies, for the page starting at `at` (a 24-byte header, then the pointers). */
const firstNodeAt = (b: Buffer, at: number) => at + 24 + b.readUInt16LE(at + 24);
const zeroed = (pick: (l: Layout) => number): Damage => (b, l) => b.fill(0, ...page(l, pick(l)));
const garbled = (pick: (l: Layout) => number): Damage => (b, l) => garbage(l.pageSize, pick(l)).copy(b, page(l, pick(l))[0]);
const pointers = (pick: (l: Layout) => number): Damage => (b, l) => garbage(40, pick(l) + 1).copy(b, page(l, pick(l))[0] + 24);
const firstNode = (pick: (l: Layout) => number): Damage => (b, l) => {
  const at = page(l, pick(l))[0];
  garbage(8, pick(l) + 2).copy(b, firstNodeAt(b, at));
};
const mainRoot = (l: Layout) => l.mainRoot;
const aLeaf = (l: Layout) => l.leaf[Math.floor(l.leaf.length / 2)]!;
/** A leaf whose first node holds its value in the page, from the middle leaf on: the cases that
 * change a value in place need one. A signed file's result (2.6 KB) lives on overflow pages, and
 * which leaves begin with one varies from run to run, as the cache file's layout does: there the
 * first node holds the value's size and first page only, a size 8 bytes short still fits the
 * pages, and what LMDB then reads fails the value's CRC, a miss, not damage (the middle leaf was
 * such a one in a CI run: `cache scan stats` exited 0). */
const inlineLeaf = (b: Buffer, l: Layout) => {
  const middle = Math.floor(l.leaf.length / 2);
  const found = [...l.leaf.slice(middle), ...l.leaf.slice(0, middle)].find((p) => {
    const at = page(l, p)[0];
    return b.readUInt16LE(firstNodeAt(b, at) + 4) === 0;
  });
  if (found === undefined) throw new Error('no leaf begins with a value held in its page');
  return found;
};
const freeRoot = (l: Layout) => l.freeRoot!;
const newestMeta = (l: Layout, b: Buffer) => (b.readBigUInt64LE(0x98) >= b.readBigUInt64LE(l.pageSize + 0x98) ? 0 : l.pageSize);

// 'damaged': reported once, moved aside, rebuilt. 'harmless': nothing LMDB reads (a free page's
// old copy) or a value whose CRC fails (a miss, checked again): no report, right results.
const cases: [string, Damage, 'damaged' | 'harmless'][] = [
  ['the main tree\'s root zeroed', zeroed(mainRoot), 'damaged'],
  ['the main tree\'s root garbled', garbled(mainRoot), 'damaged'],
  ['the root\'s node pointers garbled', pointers(mainRoot), 'damaged'],
  ['the root\'s first node header garbled', firstNode(mainRoot), 'damaged'],
  ['a leaf zeroed', zeroed(aLeaf), 'damaged'],
  ['a leaf\'s node pointers garbled', pointers(aLeaf), 'damaged'],
  ['a leaf\'s first node header garbled', firstNode(aLeaf), 'damaged'],
  ['a leaf\'s first value 8 bytes shorter, still inside the page', (b, l) => {
    // Passed the first whole-file check; the next write to that leaf moved its nodes by the
    // wrong size, and a later `cache scan stats` ended in SIGSEGV (the damage sweep).
    const at = page(l, inlineLeaf(b, l))[0];
    const node = firstNodeAt(b, at);
    b.writeUInt16LE(b.readUInt16LE(node) - 8, node);
  }, 'damaged'],
  ['the free tree\'s root garbled', garbled(freeRoot), 'damaged'],
  ['the free tree\'s first list pointing into the main tree', (b, l) => {
    const at = page(l, l.freeRoot!)[0];
    const node = firstNodeAt(b, at);
    const inNode = node + 8 + b.readUInt16LE(node + 6);
    const list = b.readUInt16LE(node + 4) === 0 ? inNode : Number(b.readBigUInt64LE(inNode)) * l.pageSize + 24;
    const entry = Number(b.readBigInt64LE(list + 8));
    b.writeBigInt64LE(BigInt(l.leaf[0]!), entry < 0 ? list + 16 : list + 8);
  }, 'damaged'],
  ['the header\'s main tree flagged as sorted duplicates', (b, l) => b.writeUInt16LE(0x04, newestMeta(l, b) + 0x64), 'damaged'],
  ['the header\'s leaf count off by one', (b, l) => b.writeBigUInt64LE(b.readBigUInt64LE(newestMeta(l, b) + 0x70) + 1n, newestMeta(l, b) + 0x70), 'damaged'],
  ['the header\'s main root set to a free page', (b, l) => b.writeBigUInt64LE(BigInt(l.free[0]!), newestMeta(l, b) + 0x88), 'damaged'],
  ['a free page garbled', garbled((l) => l.free.at(-1)!), 'harmless'],
  ['a byte of a stored result flipped', (b, l) => {
    const at = page(l, inlineLeaf(b, l))[0];
    const node = firstNodeAt(b, at);
    b[node + 8 + b.readUInt16LE(node + 6) + 200]! ^= 0x20; // inside the value, past its 52-byte head
  }, 'harmless'],
];

describe('a scan on a cache damaged inside its data file', () => {
  it('has the pages these cases damage', () => {
    expect(layout.head.main.depth).toBeGreaterThanOrEqual(2);
    expect(layout.leaf.length).toBeGreaterThan(4);
    expect(layout.freeRoot).toBeDefined();
    expect(layout.free.length).toBeGreaterThan(0);
    expect(layout.head.main.entries).toBeGreaterThanOrEqual(FILES); // and a few of the pruned folder's
  });

  for (const [what, damage, expected] of cases) {
    it(`${what}: ${expected === 'damaged' ? 'reported once, moved aside, rebuilt' : 'nothing to report'}; exit 0, right results`, async () => {
      const cache = join(dir, `case-${what.replace(/\W+/g, '-')}`);
      cpSync(base, cache, { recursive: true });
      const file = join(cache, 'scan', 'scan.mdb');
      const bytes = readFileSync(file);
      damage(bytes, layout);
      writeFileSync(file, bytes);

      // `cache scan stats` reads every entry: it says the cache is damaged, and never crashes.
      const stats = await runBin(['cache', 'scan', 'stats', '--json'], { env: { PROVENANCE_CACHE_DIR: cache } });
      expect(stats.signal, stats.stderr).toBeNull();
      if (expected === 'damaged') {
        expect(stats.code).toBe(1);
        expect(stats.stderr).toMatch(/^provenance: the scan cache in .+ is damaged \(.+\); `provenance cache scan clear` removes it\.\n$/);
      } else expect(stats.code, stats.stderr).toBe(0);

      const run = await scan(cache);
      expect(run.signal, run.stderr).toBeNull();
      expect(run.code, run.stderr).toBe(0);
      expect(strip(parseLines(run.stdout))).toEqual(reference);
      const warnings = warningsOf(run);
      if (expected === 'damaged') {
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/^provenance: the scan cache in .+ was damaged \(.+\); moved to .+\.damaged-.+ and started again\.$/);
        expect(summaryOf(run).from_cache).toBe(0);
        expect(readdirSync(cache).filter((n) => n.startsWith('scan.damaged-'))).toHaveLength(1);
      } else {
        expect(warnings).toEqual([]);
        expect(summaryOf(run).from_cache).toBeGreaterThanOrEqual(FILES - 1);
      }

      // The next scan: all from the cache, nothing to report, the same results.
      const next = await scan(cache);
      expect([next.code, next.signal, warningsOf(next)]).toEqual([0, null, []]);
      expect(summaryOf(next).from_cache).toBe(FILES);
      expect(strip(parseLines(next.stdout))).toEqual(reference);
      rmSync(cache, { recursive: true, force: true });
    });
  }

  it('`cache scan clear` removes a damaged cache without opening it', async () => {
    const cache = join(dir, 'clear-damaged');
    cpSync(base, cache, { recursive: true });
    const file = join(cache, 'scan', 'scan.mdb');
    const bytes = readFileSync(file);
    garbled(mainRoot)(bytes, layout);
    writeFileSync(file, bytes);
    const clear = await runBin(['cache', 'scan', 'clear'], { env: { PROVENANCE_CACHE_DIR: cache } });
    expect([clear.code, clear.signal, clear.stderr]).toEqual([0, null, '']);
    expect(clear.stdout).toBe(`Removed the scan cache (${layout.head.main.entries} entries) from ${join(cache, 'scan')}.\n`);
    expect(readdirSync(cache)).toEqual([]);
  });
});

describe('damage at pages spread over the file', () => {
  it('every run exits 0 with right results, reporting at most once', async () => {
    // Twelve pages evenly spread from the first after the header to the last, each garbled in
    // its own copy: tree pages (reported, rebuilt) and free ones (nothing to report) alike.
    const pages = layout.head.lastPage - 1;
    const outcomes: string[] = [];
    for (let k = 0; k < 12; k++) {
      const pgno = 2 + Math.floor((k * (pages - 1)) / 11);
      const cache = join(dir, `spread-${pgno}`);
      cpSync(base, cache, { recursive: true });
      const file = join(cache, 'scan', 'scan.mdb');
      const bytes = readFileSync(file);
      garbled(() => pgno)(bytes, layout);
      writeFileSync(file, bytes);
      const run = await scan(cache);
      const warnings = warningsOf(run);
      const kind = layout.branch.includes(pgno) ? 'branch' : layout.leaf.includes(pgno) ? 'leaf' : layout.free.includes(pgno) ? 'free' : 'other';
      outcomes.push(`page ${pgno} (${kind}): exit ${run.code}${run.signal ? ` ${run.signal}` : ''}, ${warnings.length ? 'reported' : 'not reported'}, ${summaryOf(run).from_cache} from cache`);
      expect(run.signal, outcomes.join('\n')).toBeNull();
      expect(run.code, run.stderr).toBe(0);
      expect(strip(parseLines(run.stdout))).toEqual(reference);
      expect(warnings.length).toBeLessThanOrEqual(1);
      // A page of a tree is always found; a free page is nobody's.
      if (kind === 'branch' || kind === 'leaf') expect(warnings[0]).toMatch(/was damaged \(.+\); moved to/);
      if (kind === 'free') expect(warnings).toEqual([]);
      rmSync(cache, { recursive: true, force: true });
    }
    console.log(`garbled pages of a ${pages + 1}-page cache:\n${outcomes.join('\n')}`);
  });
});

/** Writes the seal a clean close would have left on the cache's (damaged) data file. */
function forgeSeal(cache: string): void {
  const file = join(cache, 'scan', 'scan.mdb');
  const st = statSync(file, { bigint: true });
  writeFileSync(join(cache, 'scan', 'scan.sealed'), `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${layout.head.txnid}`);
}

describe('damage the file system does not show', () => {
  it('ends one run at most; the next finds no seal, checks the file whole and rebuilds it', async () => {
    // A bad sector under a sealed cache: simulated by damaging the leaves (a value's size made 2 GB)
    // and writing the seal of the damaged file, as though its identity had not changed. The
    // first run trusts the seal and LMDB reads past the file's end; it took the seal, so the
    // next run does not trust the file again.
    const cache = join(dir, 'unseen');
    cpSync(base, cache, { recursive: true });
    const file = join(cache, 'scan', 'scan.mdb');
    const bytes = readFileSync(file);
    for (const leaf of layout.leaf) {
      const at = page(layout, leaf)[0];
      const node = at + 24 + bytes.readUInt16LE(at + 24);
      bytes.writeUInt16LE(0xffff, node);
      bytes.writeUInt16LE(0x7fff, node + 2);
    }
    writeFileSync(file, bytes);
    forgeSeal(cache);
    const first = await scan(cache);
    expect(['SIGBUS', 'SIGSEGV', 'SIGABRT'], first.stderr).toContain(first.signal);
    const next = await scan(cache);
    expect([next.code, next.signal]).toEqual([0, null]);
    expect(warningsOf(next)).toHaveLength(1);
    // The first node of a leaf holds its value in the page or (a result larger than a page can
    // give, such as a signed file's with its C2PA signals) on pages of its own: either way the
    // size written over it is found.
    expect(warningsOf(next)[0]).toMatch(/was damaged \(main tree page \d+ is damaged \(a (value outside the page|big value's pages)\)\); moved to/);
    expect(strip(parseLines(next.stdout))).toEqual(reference);
    expect(summaryOf(await scan(cache)).from_cache).toBe(FILES);
  });
});

describe('a write that fails', () => {
  it('is reported once, the scan exits 0 with right results, and the next scan checks the file whole', async () => {
    // Damage only a write meets, under a sealed cache: the free tree's first list said to be on
    // pages past the file's end (LMDB: "page not found"). The scan's lookups all hit; storing
    // the 20 new files' results fails. lmdb-js then also rejects a promise of its own that
    // nothing handles, which ended the process (exit 1) before.
    expect(layout.head.free.depth).toBe(1);
    const cache = join(dir, 'write-fails');
    cpSync(base, cache, { recursive: true });
    const file = join(cache, 'scan', 'scan.mdb');
    const bytes = readFileSync(file);
    const at = page(layout, layout.freeRoot!)[0];
    const node = at + 24 + bytes.readUInt16LE(at + 24);
    bytes.writeUInt16LE(1, node + 4); // F_BIGDATA: the list is on overflow pages ...
    bytes.writeBigUInt64LE(0xfffffffn, node + 8 + bytes.readUInt16LE(node + 6)); // ... starting here
    writeFileSync(file, bytes);
    forgeSeal(cache);
    const more = makeFolder('write-fails-files', 20, 3000);
    const moreReference = strip(parseLines((await runBin(['check', '--json', more])).stdout));
    const run = await scan(cache, [more]);
    expect([run.code, run.signal]).toEqual([0, null]);
    expect(warningsOf(run)).toEqual([`provenance: the scan cache in ${join(cache, 'scan')} could not be written (Commit failed (see commitError for details)); this scan's results are not stored.`]);
    expect(summaryOf(run).from_cache).toBe(FILES);
    expect(strip(parseLines(run.stdout))).toEqual([...moreReference, ...reference]);
    // No seal after a failed write: the next scan reads the file whole and finds the damage.
    const next = await scan(cache, [more]);
    expect([next.code, next.signal]).toEqual([0, null]);
    expect(warningsOf(next)).toHaveLength(1);
    expect(warningsOf(next)[0]).toMatch(/was damaged \(free tree page \d+ is damaged .+\); moved to/);
    expect(strip(parseLines(next.stdout))).toEqual([...moreReference, ...reference]);
    expect(summaryOf(await scan(cache, [more])).from_cache).toBe(FILES + 20);
  });
});

describe('a cache another scan is writing', () => {
  it('is checked whole by a scan that starts meanwhile, and found sound', async () => {
    // The writer's commits leave a state no clean close sealed, so each scan started meanwhile
    // reads the file whole, under a read transaction that keeps the writer off its pages.
    const cache = join(dir, 'busy');
    const big = makeFolder('busy-files', 1500, 2000);
    const writer = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), 'check', '--json', '--incremental', '--concurrency', '1', big], {
      env: { ...process.env, PROVENANCE_CACHE_DIR: cache },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    let writerErr = '';
    writer.stderr.on('data', (c: Buffer) => (writerErr += c.toString()));
    const started = new Promise<void>((resolve, reject) => {
      writer.stdout.on('data', (c: Buffer) => {
        lines += c.toString().split('\n').length - 1;
        if (lines >= 40) resolve();
      });
      writer.on('close', () => reject(new Error(`the writer ended before 40 lines (${lines}): ${writerErr}`)));
    });
    const ended = new Promise<number | null>((resolve) => writer.on('close', (code) => resolve(code)));
    await started;
    const runs: CliRun[] = [];
    const writerRan: boolean[] = [];
    for (let i = 0; i < 3 && writer.exitCode === null; i++) {
      runs.push(await runBin(['check', '--json', '--summary', '--incremental', join(big, 'f2000.jpg'), folder], { env: { PROVENANCE_CACHE_DIR: cache } }));
      writerRan.push(writer.exitCode === null);
    }
    expect(await ended).toBe(0);
    expect(writerErr).toBe('');
    // The first scan ended while the writer was still at work (one thread: slow enough).
    expect(writerRan[0]).toBe(true);
    for (const run of runs) {
      expect([run.code, run.signal, warningsOf(run)]).toEqual([0, null, []]);
      expect(strip(parseLines(run.stdout)).slice(1)).toEqual(reference);
    }
    expect(readdirSync(cache).filter((n) => n.includes('damaged'))).toEqual([]);
  });
});
