// Damage sweep of the scan cache (docs/CACHE.md): builds a real cache of a
// folder (with a free tree: another folder's entries stored, then pruned), then for every page
// of its data file and each kind of damage, damages a copy, and runs in subprocesses a scan of
// the folder (plus 20 files not in the cache, so that it writes), the same scan again, and
// `cache scan stats`. Prints how each run ended: exit code or signal, reported or not, results
// right or not. test/scan-cache-damage.test.ts holds the cache to a bounded set of these.
//
// Usage: node scripts/run-ts.mjs scripts/damage-sweep.ts [--cli bin/provenance.js] [--files 200]
//          [--kinds zero,garbage,header,flip,pointers,node,flips] [--meta] [--out sweep.json]
// A run of every page takes a while (about 1.3 s a case on two cores).
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg, tinyPng } from '../test/fixtures/make.js';
import { layoutOf } from '../test/helpers/lmdb-layout.js';
import { makeSignedSet } from '../test/helpers/signed.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const CLI = resolve(option('cli', 'bin/provenance.js'));
const FILES = Number(option('files', '200'));
const KINDS = option('kinds', 'zero,garbage,header,flip,pointers,node,flips').split(',');
const META = args.includes('--meta');
const OUT = option('out', '');
/** `--only PAGE:KIND`: that one case, its damaged copy kept (its folder is printed). */
const ONLY = option('only', '');
const PAST = new Date('2026-01-01T00:00:00Z');

/** Seeded bytes: the same damage on every run. */
function garbage(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) out[i] = ((x = (x * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff;
  return out;
}

/** Damage to one page (its bytes, a copy), by kind. */
function damagePage(page: Buffer, kind: string, seed: number): void {
  if (kind === 'zero') page.fill(0);
  else if (kind === 'garbage') garbage(page.length, seed).copy(page);
  else if (kind === 'header') garbage(24, seed).copy(page); // number, transaction, flags, bounds
  else if (kind === 'flip') page[page.length >> 1]! ^= 0xff;
  else if (kind === 'pointers') garbage(40, seed).copy(page, 24); // the node pointers
  else if (kind === 'node') garbage(8, seed).copy(page, Math.min(24 + page.readUInt16LE(24), page.length - 8)); // the first node's header
  else if (kind === 'flips') {
    const at = garbage(16, seed);
    for (let n = 0; n < 8; n++) page[at.readUInt16LE(2 * n) % page.length]! ^= 1 << (n % 8); // eight bits anywhere
  } else throw new Error(`unknown kind ${kind}`);
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  reported: number;
  right?: boolean;
}

async function main(): Promise<void> {
  const signed = await makeSignedSet();
  const dir = mkdtempSync(join(tmpdir(), 'prov-damage-sweep-'));
  const make = (name: string, n: number, offset: number) => {
    const folder = join(dir, name);
    mkdirSync(folder);
    for (let i = offset; i < offset + n; i++) {
      const bytes = i % 5 === 0 ? signed.jpeg : i % 5 === 1 ? tinyPng({ seed: i }) : tinyJpeg({ seed: i, exif: i % 2 ? exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) : undefined });
      const file = join(folder, `f${String(i).padStart(6, '0')}.${i % 5 === 1 ? 'png' : 'jpg'}`);
      writeFileSync(file, bytes);
      utimesSync(file, PAST, PAST);
    }
    return folder;
  };
  const folder = make('files', FILES, 0);
  const extra = make('extra', 20, 100_000);
  const older = make('older', Math.ceil(FILES / 3), 200_000);
  const run = (cache: string, command: string[]) =>
    spawnSync(process.execPath, [CLI, ...command], { env: { ...process.env, PROVENANCE_CACHE_DIR: cache }, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
  const normal = (stdout: string) =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/"id":"chk_[^"]+"/, '').replace(/"duration_ms":\d+/, ''))
      .join('\n');
  const reference = normal(run(join(dir, 'none'), ['check', '--json', folder, extra]).stdout);
  const base = join(dir, 'base');
  run(base, ['check', '--json', '--incremental', older]);
  run(base, ['check', '--json', '--incremental', folder]);
  const full = JSON.parse(run(base, ['cache', 'scan', 'stats', '--json']).stdout) as { data_bytes: number };
  run(base, ['check', '--json', '--incremental', '--cache-max', String(Math.floor(full.data_bytes * 0.8)), folder]);
  const data = readFileSync(join(base, 'scan', 'scan.mdb'));
  const layout = layoutOf(join(base, 'scan', 'scan.mdb'));
  /** What a page is in the newest snapshot: the main tree's, listed free, or else the free tree's. */
  const pageKind = (pgno: number) =>
    pgno < 2 ? 'meta' : layout.branch.includes(pgno) ? 'branch' : layout.leaf.includes(pgno) ? 'leaf' : layout.overflow.includes(pgno) ? 'overflow' : layout.free.includes(pgno) ? 'free' : 'free tree';
  const pageSize = data.readUInt32LE(0x30);
  const pages = data.length / pageSize;
  console.log(`cache: ${pages} pages of ${pageSize} bytes; CLI ${CLI}`);

  const cases: { pgno: number; kind: string }[] = [];
  for (let pgno = 2; pgno < pages; pgno++) for (const kind of KINDS) cases.push({ pgno, kind });
  if (META) for (const pgno of [0, 1]) for (let at = 0x20; at < 0xa8; at += 2) cases.push({ pgno, kind: `meta+0x${at.toString(16)}` });
  if (ONLY) cases.splice(0, cases.length, ...cases.filter(({ pgno, kind }) => `${pgno}:${kind}` === ONLY));

  const outcome = (r: ReturnType<typeof run>, scan = true): Outcome => ({
    code: r.status,
    signal: r.signal,
    reported: r.stderr.split('\n').filter((l) => l.startsWith('provenance: ')).length,
    right: scan && r.status === 0 ? normal(r.stdout) === reference : undefined,
  });
  const results: { pgno: number; page: string; kind: string; first: Outcome; again: Outcome; stats: Outcome }[] = [];
  for (const [n, { pgno, kind }] of cases.entries()) {
    const cache = join(dir, `case-${n}`);
    cpSync(base, cache, { recursive: true });
    const page = Buffer.from(data.subarray(pgno * pageSize, (pgno + 1) * pageSize));
    if (kind.startsWith('meta+')) {
      const at = Number(kind.slice(5));
      page[at]! ^= 0x01;
      page[at + 1]! ^= 0x10;
    } else damagePage(page, kind, pgno * 31 + kind.length);
    const fd = openSync(join(cache, 'scan', 'scan.mdb'), 'r+');
    writeSync(fd, page, 0, pageSize, pgno * pageSize);
    closeSync(fd);
    const first = outcome(run(cache, ['check', '--json', '--incremental', folder, extra]));
    const again = outcome(run(cache, ['check', '--json', '--incremental', folder, extra]));
    const stats = outcome(run(cache, ['cache', 'scan', 'stats', '--json']), false);
    results.push({ pgno, page: pageKind(pgno), kind, first, again, stats });
    if (ONLY) {
      const kept = join(tmpdir(), `prov-damage-case-${process.pid}`);
      cpSync(cache, kept, { recursive: true });
      const copy = Buffer.from(data.subarray(pgno * pageSize, (pgno + 1) * pageSize));
      const fd = openSync(join(kept, 'scan', 'scan.mdb'), 'r+');
      writeSync(fd, page, 0, pageSize, pgno * pageSize);
      closeSync(fd);
      writeFileSync(join(kept, 'page-before.bin'), copy);
      writeFileSync(join(kept, 'page-after.bin'), page);
      console.log(`kept: ${kept} (the cache after the runs, the damaged page written back; the page before and after)`);
    }
    rmSync(cache, { recursive: true, force: true });
  }

  // How runs ended, by kind of page damaged.
  // (`cache scan stats` on a damaged cache says so, exit 1: "reported".)
  const ended = (o: Outcome) => (o.signal ? o.signal : o.right === false ? 'WRONG RESULTS' : o.reported ? (o.code === 0 ? 'reported' : `reported, exit ${o.code}`) : o.code !== 0 ? `exit ${o.code}` : 'ok');
  const table = new Map<string, number>();
  for (const r of results) {
    const key = `${r.page.padEnd(9)} ${r.kind.startsWith('meta') ? 'fields' : r.kind}: scan ${ended(r.first)}, again ${ended(r.again)}, stats ${ended(r.stats)}`;
    table.set(key, (table.get(key) ?? 0) + 1);
  }
  for (const [key, count] of [...table].sort()) console.log(`${String(count).padStart(5)}  ${key}`);
  const bad = results.filter((r) => [r.first, r.again].some((o) => o.signal || o.code !== 0 || o.right === false) || r.stats.signal);
  console.log(`${results.length} cases; ${bad.length} with a scan that crashed, failed or gave wrong results, or stats that crashed`);
  if (OUT) writeFileSync(OUT, JSON.stringify(results, null, 1));
  rmSync(dir, { recursive: true, force: true });
  signed.cleanup();
}

await main();
