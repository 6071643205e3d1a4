// `check --incremental` (issue 19): the scan cache answers unchanged files with the result a
// fresh check gives, misses on any change of the file's identity or of the run's scope, never
// stores racy files or standard input, survives damage, two scans at once and kill -9. Every
// run here is the built CLI in a real subprocess, with its own cache folder.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../src/engine/engine-version.js';
import { validateDataFile } from '../src/engine/scan-cache.js';
import { ScanStats } from '../src/ui/scan-stats.js';
import { formatScanTable } from '../src/ui/scan-table.js';
import { makeStyle } from '../src/ui/style.js';
import { APPLE_MAKER_NOTE, NOT_MEDIA, exifApp1, tinyJpeg, tinyPng } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines, runBin, type CliRun } from './helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

let dir: string;
let signed: SignedSet;
/** Long ago: files older than the racy-timestamp window, so scans store them. */
const PAST = new Date('2026-01-01T00:00:00Z');

function writeOld(path: string, bytes: Uint8Array): void {
  writeFileSync(path, bytes);
  utimesSync(path, PAST, PAST);
}

/** A folder of `n` files, one in five signed, the others camera JPEGs and PNGs; all old. */
function makeFolder(name: string, n: number): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < n; i++) {
    const bytes =
      i % 5 === 0 ? signed.jpeg : i % 5 === 1 ? tinyPng({ seed: i }) : tinyJpeg({ seed: i, exif: i % 2 ? exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) : undefined });
    writeOld(join(folder, `f${String(i).padStart(4, '0')}.${i % 5 === 1 ? 'png' : 'jpg'}`), bytes);
  }
  return folder;
}

let small: string;
beforeAll(async () => {
  signed = await makeSignedSet();
  dir = mkdtempSync(join(tmpdir(), 'prov-incremental-'));
  small = join(dir, 'small');
  mkdirSync(small);
  writeOld(join(small, 'camera.jpg'), tinyJpeg({ seed: 11, exif: exifApp1({ make: 'Apple', model: 'iPhone 14', makerNote: APPLE_MAKER_NOTE }) }));
  writeOld(join(small, 'notes.txt'), NOT_MEDIA);
  writeOld(join(small, 'plain.png'), tinyPng({ seed: 1 }));
  writeOld(join(small, 'signed.jpg'), signed.jpeg);
  writeOld(join(small, 'signed.png'), signed.png);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

let caches = 0;
/** A new, empty cache folder. */
function newCache(): string {
  return join(dir, `cache-${++caches}`);
}

interface Scan extends CliRun {
  lines: any[];
  summary: any;
}

async function scan(cache: string, args: string[], options: { stdin?: Uint8Array; env?: NodeJS.ProcessEnv } = {}): Promise<Scan> {
  const run = await runBin(['check', '--json', '--summary', ...args], { stdin: options.stdin, env: { PROVENANCE_CACHE_DIR: cache, ...options.env } });
  const stderrLines = run.stderr.trim().split('\n');
  return { ...run, lines: parseLines(run.stdout), summary: JSON.parse(stderrLines.at(-1)!) };
}

const strip = (lines: any[]) => lines.map(({ id: _i, duration_ms: _d, ...rest }) => rest);
const bySource = (s: Scan, name: string) => s.lines.find((l) => l.source.endsWith(`/${name}`));

describe('a rescan', () => {
  it('prints the lines of a fresh check, apart from id and duration_ms, all from the cache', async () => {
    const cache = newCache();
    const plain = await scan(cache, [small]);
    const first = await scan(cache, ['--incremental', small]);
    const second = await scan(cache, ['--incremental', small]);
    expect([plain.code, first.code, second.code]).toEqual([0, 0, 0]);
    expect(plain.summary.from_cache).toBeUndefined();
    expect(first.summary).toMatchObject({ checked: 5, from_cache: 0 });
    expect(second.summary).toMatchObject({ checked: 5, from_cache: 5 });
    expect(strip(second.lines)).toEqual(strip(plain.lines));
    expect(strip(first.lines)).toEqual(strip(plain.lines));
    // The same key order as a fresh line, a new id per run, and no time spent checking.
    for (const [i, l] of second.lines.entries()) {
      expect(Object.keys(l)).toEqual(Object.keys(plain.lines[i]));
      expect(l.id).toMatch(/^chk_[A-Za-z0-9_-]{24}$/);
      expect(l.id).not.toBe(first.lines[i].id);
      expect(l.duration_ms).toBe(0);
    }
    expect(second.summary.checks).toEqual(plain.summary.checks);
    // Byte for byte, too: hits' lines are spliced from stored JSON text (scan-cache ndjsonLine).
    const normal = (stdout: string) => stdout.replace(/"id":"chk_[^"]+"/g, '"id":"x"').replace(/"duration_ms":\d+/g, '"duration_ms":0');
    expect(normal(second.stdout)).toBe(normal(plain.stdout));
  });

  it('prints the same readable report from the cache, the c2pa card included', async () => {
    const cache = newCache();
    const env = { PROVENANCE_CACHE_DIR: cache };
    const plain = await runBin(['check', small], { env });
    await runBin(['check', '--incremental', small], { env });
    const again = await runBin(['check', '--incremental', '--explain', small], { env });
    const plainExplained = await runBin(['check', '--explain', small], { env });
    expect(plain.stdout).toContain('signed by');
    expect((await runBin(['check', '--incremental', small], { env })).stdout).toBe(plain.stdout);
    expect(again.stdout).toBe(plainExplained.stdout);
    // One file named alone is checked in-process: its entry serves a run through the pool, too.
    const one = await runBin(['check', '--incremental', join(small, 'signed.png')], { env });
    expect(one.stdout).toBe((await runBin(['check', join(small, 'signed.png')], { env })).stdout);
  });

  it('sees bytes changed under the same size and modification time, through the change time', async () => {
    const cache = newCache();
    const folder = join(dir, 'ctime');
    mkdirSync(folder);
    const before = tinyPng({ seed: 21 });
    const after = tinyPng({ seed: 22 });
    expect(after.length).toBe(before.length);
    const file = join(folder, 'image.png');
    writeOld(file, before);
    writeOld(join(folder, 'other.png'), tinyPng({ seed: 23 }));
    const first = await scan(cache, ['--incremental', folder]);
    expect(first.summary.from_cache).toBe(0);
    const mtimeBefore = statSync(file, { bigint: true }).mtimeNs;
    writeFileSync(file, after);
    utimesSync(file, PAST, PAST);
    const st = statSync(file, { bigint: true });
    expect(st.mtimeNs).toBe(mtimeBefore);
    expect(st.size).toBe(BigInt(before.length));
    const second = await scan(cache, ['--incremental', folder]);
    expect(second.summary.from_cache).toBe(1); // other.png only
    expect(bySource(second, 'image.png').media.sha256).toBe(bySource(await scan(newCache(), [folder]), 'image.png').media.sha256);
    expect(bySource(second, 'image.png').media.sha256).not.toBe(bySource(first, 'image.png').media.sha256);
  });

  it('misses a file replaced by a copy of itself (same bytes, size and times; another inode and change time)', async () => {
    const cache = newCache();
    const folder = join(dir, 'replaced');
    mkdirSync(folder);
    const file = join(folder, 'image.png');
    writeOld(file, tinyPng({ seed: 24 }));
    writeOld(join(folder, 'other.png'), tinyPng({ seed: 25 }));
    const before = statSync(file, { bigint: true }); // what the scan stores (its read moves only the access time)
    const first = await scan(cache, ['--incremental', folder]);
    expect(first.summary).toMatchObject({ checked: 2, from_cache: 0 });
    // What a backup restore or `cp -p` + `mv` does: a new file with the old bytes and times.
    const copy = join(folder, '.image.png.tmp');
    writeFileSync(copy, readFileSync(file));
    utimesSync(copy, PAST, PAST);
    renameSync(copy, file);
    const after = statSync(file, { bigint: true });
    expect([after.size, after.mtimeNs, after.atimeNs]).toEqual([before.size, before.mtimeNs, before.atimeNs]);
    expect(after.ino).not.toBe(before.ino);
    const second = await scan(cache, ['--incremental', folder]);
    expect(second.summary).toMatchObject({ checked: 2, from_cache: 1 }); // other.png only
    expect(strip(second.lines)).toEqual(strip(first.lines));
    // The new file's entry is stored: the next scan answers both.
    expect((await scan(cache, ['--incremental', folder])).summary.from_cache).toBe(2);
  });

  it('misses a file that differs from a stored one in its inode only', async (ctx) => {
    // Two copies made in one tick of the file system's clock have the same size, bytes,
    // modification and change times; a folder renamed over the other puts the second copy at
    // the first one's path without touching either file's times. Bounded tries for that tick.
    const cache = newCache();
    let made: { a: string; b: string } | undefined;
    for (let attempt = 0; attempt < 20 && !made; attempt++) {
      const a = join(dir, `inode-a-${attempt}`);
      const b = join(dir, `inode-b-${attempt}`);
      mkdirSync(a);
      mkdirSync(b);
      const bytes = tinyPng({ seed: 26 });
      writeFileSync(join(a, 'image.png'), bytes);
      writeFileSync(join(b, 'image.png'), bytes);
      utimesSync(join(a, 'image.png'), PAST, PAST);
      utimesSync(join(b, 'image.png'), PAST, PAST);
      const [sa, sb] = [statSync(join(a, 'image.png'), { bigint: true }), statSync(join(b, 'image.png'), { bigint: true })];
      if (sa.ctimeNs === sb.ctimeNs && sa.mtimeNs === sb.mtimeNs) made = { a, b };
    }
    if (!made) return ctx.skip('no two files with one change time in 20 tries (a file system with fine-grained timestamps)');
    const file = join(made.a, 'image.png');
    const before = statSync(file, { bigint: true });
    const first = await scan(cache, ['--incremental', made.a]);
    expect(first.summary).toMatchObject({ checked: 1, from_cache: 0 });
    renameSync(made.a, `${made.a}.old`);
    renameSync(made.b, made.a);
    const after = statSync(file, { bigint: true });
    expect([after.dev, after.size, after.mtimeNs, after.ctimeNs]).toEqual([before.dev, before.size, before.mtimeNs, before.ctimeNs]);
    expect(after.ino).not.toBe(before.ino);
    const second = await scan(cache, ['--incremental', made.a]);
    expect(second.summary).toMatchObject({ checked: 1, from_cache: 0 });
    expect(strip(second.lines)).toEqual(strip(first.lines));
    expect((await scan(cache, ['--incremental', made.a])).summary.from_cache).toBe(1);
  });

  it('checks but never stores a file modified within 2 s of the scan start (racy timestamps)', async () => {
    const cache = newCache();
    const folder = join(dir, 'racy');
    mkdirSync(folder);
    writeFileSync(join(folder, 'fresh.png'), tinyPng({ seed: 31 }));
    // Modified "now" as the scans will see it, however late the CLI starts on a loaded machine:
    // a minute ahead (a time at or after the scan's start minus 2 s is racy, the future included).
    const soon = new Date(Date.now() + 60_000);
    utimesSync(join(folder, 'fresh.png'), soon, soon);
    writeOld(join(folder, 'old.png'), tinyPng({ seed: 32 }));
    await scan(cache, ['--incremental', folder]);
    const again = await scan(cache, ['--incremental', folder]);
    expect(again.summary).toMatchObject({ checked: 2, from_cache: 1 });
    expect(bySource(again, 'fresh.png').duration_ms).toBeGreaterThanOrEqual(0);
    // Once it is old, it is stored like any other.
    utimesSync(join(folder, 'fresh.png'), PAST, PAST);
    await scan(cache, ['--incremental', folder]);
    expect((await scan(cache, ['--incremental', folder])).summary.from_cache).toBe(2);
  });
});

describe('the scope of an entry', () => {
  it('recomputes c2pa results when the trust anchors change, and keeps both sets apart', async () => {
    const cache = newCache();
    const anchors = join(dir, 'root.pem');
    writeFileSync(anchors, signed.pki.rootPem);
    const file = join(small, 'signed.jpg');
    const c2pa = (s: Scan) => s.lines[0].matches.find((m: any) => m.check === 'c2pa').claims;
    const untrusted = await scan(cache, ['--incremental', file]);
    expect(c2pa(untrusted).signature_verified).toBe(false);
    const trusted = await scan(cache, ['--incremental', '--trust-anchors', anchors, file]);
    expect(trusted.summary.from_cache).toBe(0);
    expect(c2pa(trusted).signature_verified).toBe(true);
    expect(c2pa(trusted).validation.state).toBe('trusted');
    const trustedAgain = await scan(cache, ['--incremental', '--trust-anchors', anchors, file]);
    expect(trustedAgain.summary.from_cache).toBe(1);
    expect(c2pa(trustedAgain)).toEqual(c2pa(trusted));
    const untrustedAgain = await scan(cache, ['--incremental', file]);
    expect(untrustedAgain.summary.from_cache).toBe(1);
    expect(c2pa(untrustedAgain)).toEqual(c2pa(untrusted));
    // Anchors added with `provenance trust add` count the same as --trust-anchors.
    const config = join(dir, 'config-trust');
    const env = { PROVENANCE_CONFIG_DIR: config };
    expect((await runBin(['trust', 'add', anchors], { env })).code).toBe(0);
    const stored = await scan(cache, ['--incremental', file], { env });
    expect(c2pa(stored).signature_verified).toBe(true);
    expect(c2pa(stored)).toEqual(c2pa(trusted));
    // A C2PA Trust List replaced by `trust update` (here one that holds the test root) is a new
    // scope: the file is checked again against it, never answered from the bundled list's entry.
    const updatedEnv = { PROVENANCE_CONFIG_DIR: join(dir, 'config-updated-list') };
    expect((await runBin(['trust', 'update', '--from', anchors], { env: updatedEnv })).code).toBe(0);
    const updated = await scan(cache, ['--incremental', file], { env: updatedEnv });
    expect(updated.summary.from_cache).toBe(0);
    expect(c2pa(updated).signature_verified).toBe(true);
    expect((await scan(cache, ['--incremental', file], { env: updatedEnv })).summary.from_cache).toBe(1);
  });

  it('never answers one --checks list with the entries of another', async () => {
    const cache = newCache();
    const c2paOnly = await scan(cache, ['--incremental', '--checks', 'c2pa', small]);
    expect(c2paOnly.summary.from_cache).toBe(0);
    const camera = await scan(cache, ['--incremental', '--checks', 'camera_reference', small]);
    expect(camera.summary.from_cache).toBe(0);
    for (const l of camera.lines) expect(l.checks_run).toEqual(['camera_reference']);
    const all = await scan(cache, ['--incremental', small]);
    expect(all.summary.from_cache).toBe(0);
    expect(all.lines[0].checks_run).toHaveLength(7);
    // The hosted catalogue runs another set of checks: its own entries, never the full run's.
    const hosted = await scan(cache, ['--incremental', '--catalogue', 'hosted', small]);
    expect(hosted.summary.from_cache).toBe(0);
    expect(hosted.lines[0].checks_run).toHaveLength(5);
    const c2paAgain = await scan(cache, ['--incremental', '--checks', 'c2pa', small]);
    expect(c2paAgain.summary.from_cache).toBe(5);
    expect(strip(c2paAgain.lines)).toEqual(strip(c2paOnly.lines));
  });
});

describe('inputs', () => {
  it('never caches standard input, and caches the paths of --files-from like any other', async () => {
    const cache = newCache();
    const bytes = readFileSync(join(small, 'plain.png'));
    for (let i = 0; i < 2; i++) {
      const piped = await scan(cache, ['--incremental', '-'], { stdin: bytes });
      expect(piped.summary).toMatchObject({ checked: 1, from_cache: 0 });
    }
    const list = readdirSync(small).map((n) => join(small, n)).join('\0');
    const first = await scan(cache, ['--incremental', '-0', '--files-from', '-'], { stdin: Buffer.from(list) });
    const second = await scan(cache, ['--incremental', '-0', '--files-from', '-'], { stdin: Buffer.from(list) });
    expect(first.summary.from_cache).toBe(0);
    expect(second.summary).toMatchObject({ checked: 5, from_cache: 5 });
    expect(strip(second.lines)).toEqual(strip(first.lines));
  });

  it('caches the paths of a --files-from list file like any other', async () => {
    const cache = newCache();
    const listFile = join(dir, 'list.txt');
    writeFileSync(listFile, `${readdirSync(small).map((n) => join(small, n)).join('\n')}\n`);
    const plain = await scan(cache, ['--files-from', listFile]);
    const first = await scan(cache, ['--incremental', '--files-from', listFile]);
    const second = await scan(cache, ['--incremental', '--files-from', listFile]);
    expect([plain.code, first.code, second.code]).toEqual([0, 0, 0]);
    expect(first.summary).toMatchObject({ checked: 5, from_cache: 0 });
    expect(second.summary).toMatchObject({ checked: 5, from_cache: 5 });
    expect(strip(first.lines)).toEqual(strip(plain.lines));
    expect(strip(second.lines)).toEqual(strip(plain.lines));
    // The same entries serve the folder named on the command line: the key is the file, not how it was named.
    expect((await scan(cache, ['--incremental', small])).summary.from_cache).toBe(5);
  });

  it('reports a path under a file, from a list, as without the cache', async () => {
    const list = Buffer.from(`${join(small, 'plain.png', 'x.jpg')}\n${join(small, 'plain.png')}\n`);
    const plain = await scan(newCache(), ['--files-from', '-'], { stdin: list });
    const cached = await scan(newCache(), ['--incremental', '--files-from', '-'], { stdin: list });
    expect(plain.code).toBe(1);
    expect(cached.code).toBe(1);
    expect(strip(cached.lines)).toEqual(strip(plain.lines));
    expect(cached.lines[0].error.type).toBeDefined();
  });

  it('reports unreadable inputs as before, and does not store them', async () => {
    const cache = newCache();
    const missing = join(dir, 'missing.jpg');
    const run = await scan(cache, ['--incremental', missing, join(small, 'plain.png')]);
    expect(run.code).toBe(1);
    expect(run.lines[0]).toEqual({ source: missing, error: { type: 'not_found', message: `${missing}: no such file or folder.` } });
    expect((await scan(cache, ['--incremental', missing, join(small, 'plain.png')])).summary).toMatchObject({ unreadable: 1, from_cache: 1 });
  });
});

describe('the setting and the flags', () => {
  it('`config set incremental true` turns it on; --no-incremental turns it off for one run', async () => {
    const cache = newCache();
    const env = { PROVENANCE_CONFIG_DIR: join(dir, 'config-incremental') };
    expect((await runBin(['config', 'set', 'incremental', 'true'], { env })).code).toBe(0);
    expect((await runBin(['config', 'get', 'incremental'], { env })).stdout).toBe('true\n');
    await scan(cache, [small], { env });
    expect((await scan(cache, [small], { env })).summary.from_cache).toBe(5);
    expect((await scan(cache, ['--no-incremental', small], { env })).summary.from_cache).toBeUndefined();
    expect((await runBin(['config', 'set', 'incremental', 'maybe'], { env })).stderr).toContain('incremental is true or false');
  });

  it.skipIf(process.platform !== 'linux')('keeps the cache in $XDG_CACHE_HOME/provenance, else ~/.cache/provenance; PROVENANCE_CACHE_DIR moves it', async () => {
    // A made-up home and XDG folders: the user's own are never touched. The config folder is
    // in the made-up home too (PROVENANCE_CONFIG_DIR would take the cache along with it).
    const home = join(dir, 'home');
    const xdg = join(dir, 'xdg-cache');
    mkdirSync(home);
    const env = (extra: NodeJS.ProcessEnv) => ({ HOME: home, PROVENANCE_CACHE_DIR: undefined, PROVENANCE_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined, ...extra });
    const run = async (extra: NodeJS.ProcessEnv) => {
      const r = await runBin(['check', '--json', '--summary', '--incremental', small], { env: env(extra) });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    };
    const stats = async (extra: NodeJS.ProcessEnv) => JSON.parse((await runBin(['cache', 'scan', 'stats', '--json'], { env: env(extra) })).stdout);

    expect(await run({ XDG_CACHE_HOME: xdg })).toMatchObject({ checked: 5, from_cache: 0 });
    expect(existsSync(join(xdg, 'provenance', 'scan', 'scan.mdb'))).toBe(true);
    expect(existsSync(join(home, '.cache'))).toBe(false);
    expect(await stats({ XDG_CACHE_HOME: xdg })).toMatchObject({ dir: join(xdg, 'provenance', 'scan'), entries: 5 });
    expect((await run({ XDG_CACHE_HOME: xdg })).from_cache).toBe(5);

    // Without XDG_CACHE_HOME: ~/.cache/provenance, a cache of its own.
    expect(await run({})).toMatchObject({ checked: 5, from_cache: 0 });
    expect(existsSync(join(home, '.cache', 'provenance', 'scan', 'scan.mdb'))).toBe(true);
    expect(await stats({})).toMatchObject({ dir: join(home, '.cache', 'provenance', 'scan'), entries: 5 });
    expect((await run({})).from_cache).toBe(5);

    // PROVENANCE_CACHE_DIR wins over both.
    const moved = join(dir, 'moved-cache');
    expect(await run({ XDG_CACHE_HOME: xdg, PROVENANCE_CACHE_DIR: moved })).toMatchObject({ from_cache: 0 });
    expect(existsSync(join(moved, 'scan', 'scan.mdb'))).toBe(true);
    expect(readdirSync(join(xdg, 'provenance'))).toEqual(['scan']);
    expect(readdirSync(join(home, '.cache', 'provenance'))).toEqual(['scan']);
  });

  it('refuses a bad --cache-max, and --cache-max without --incremental (exit 2)', async () => {
    const cache = newCache();
    const bad = await runBin(['check', '--incremental', '--cache-max', 'lots', small], { env: { PROVENANCE_CACHE_DIR: cache } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('provenance: --cache-max: "lots" is not a size; give bytes or a size such as 500MB or 2GB.\n');
    const alone = await runBin(['check', '--cache-max', '1GB', small], { env: { PROVENANCE_CACHE_DIR: cache } });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe('provenance: --cache-max goes with --incremental (or the incremental setting).\n');
  });

  it('prunes the entries used longest ago when over --cache-max', async () => {
    const cache = newCache();
    const older = makeFolder('prune-old', 30);
    const newer = makeFolder('prune-new', 30);
    await scan(cache, ['--incremental', older]);
    await scan(cache, ['--incremental', newer]);
    const full = JSON.parse((await runBin(['cache', 'scan', 'stats', '--json'], { env: { PROVENANCE_CACHE_DIR: cache } })).stdout);
    expect(full.entries).toBe(60);
    // Pruning takes the data to 90 % of the bound: a bound of 58 % of it leaves room for a bit
    // more than half the entries. The older folder's entries go first; the newer folder's stay.
    const bound = String(Math.floor(full.data_bytes * 0.58));
    expect((await scan(cache, ['--incremental', '--cache-max', bound, newer])).summary.from_cache).toBe(30);
    const pruned = JSON.parse((await runBin(['cache', 'scan', 'stats', '--json'], { env: { PROVENANCE_CACHE_DIR: cache } })).stdout);
    expect(pruned.entries).toBeLessThan(60);
    expect(pruned.entries).toBeGreaterThanOrEqual(30);
    expect((await scan(cache, ['--incremental', newer])).summary.from_cache).toBe(30);
    expect((await scan(cache, ['--incremental', older])).summary.from_cache).toBe(pruned.entries - 30);
  });

  it('`cache scan stats` and `cache scan clear`', async () => {
    const cache = newCache();
    const env = { PROVENANCE_CACHE_DIR: cache };
    const none = await runBin(['cache', 'scan', 'stats'], { env });
    expect(none.stdout).toContain('no scan cache yet');
    await scan(cache, ['--incremental', small]);
    const stats = await runBin(['cache', 'scan', 'stats'], { env });
    expect(stats.stdout).toContain(`folder         ${join(cache, 'scan')}\nentries        5\n`);
    expect(stats.stdout).toContain('of the 1.0 GB bound');
    const clear = await runBin(['cache', 'scan', 'clear'], { env });
    expect(clear.stdout).toBe(`Removed the scan cache (5 entries) from ${join(cache, 'scan')}.\n`);
    expect(existsSync(join(cache, 'scan'))).toBe(false);
    expect((await scan(cache, ['--incremental', small])).summary.from_cache).toBe(0);
  });
});

describe('damage, two scans at once, kill -9', () => {
  const damages: [string, (file: string) => void][] = [
    ['garbage in the data file', (file) => writeFileSync(file, Buffer.alloc(64 * 1024, 0x5a))],
    ['a data file cut short', (file) => truncateSync(file, 4096 * 3)],
    ['garbage in the header only', (file) => {
      const bytes = readFileSync(file);
      bytes.fill(0x33, 0, 200);
      writeFileSync(file, bytes);
    }],
  ];
  for (const [what, damage] of damages) {
    it(`reports ${what} once, moves it aside, rebuilds it, and the results stay right`, async () => {
      const cache = newCache();
      const folder = makeFolder(`damage-${what.replace(/\W+/g, '-')}`, 40);
      const reference = await scan(cache, ['--incremental', folder]);
      const data = join(cache, 'scan', 'scan.mdb');
      expect(validateDataFile(data)).toBeUndefined();
      damage(data);
      expect(validateDataFile(data)).toMatch(/damaged|cut short/);
      const run = await scan(cache, ['--incremental', folder]);
      expect(run.code).toBe(0);
      const warnings = run.stderr.split('\n').filter((l) => l.startsWith('provenance: '));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^provenance: the scan cache in ${join(cache, 'scan')} was damaged \\(.+\\); moved to ${join(cache, 'scan')}\\.damaged-.+ and started again\\.$`));
      expect(run.summary.from_cache).toBe(0);
      expect(strip(run.lines)).toEqual(strip(reference.lines));
      expect(readdirSync(cache).filter((n) => n.startsWith('scan.damaged-'))).toHaveLength(1);
      const rebuilt = await scan(cache, ['--incremental', folder]);
      expect(rebuilt.stderr.split('\n').filter((l) => l.startsWith('provenance: '))).toEqual([]);
      expect(rebuilt.summary.from_cache).toBe(40);
      expect(strip(rebuilt.lines)).toEqual(strip(reference.lines));
      // `cache scan clear` takes the damaged copy too.
      expect((await runBin(['cache', 'scan', 'clear'], { env: { PROVENANCE_CACHE_DIR: cache } })).stdout).toContain('1 damaged cache moved aside earlier');
      expect(readdirSync(cache)).toEqual([]);
    });
  }

  it('a cache folder that cannot be made is reported once and the scan runs without it', async () => {
    const cache = join(dir, 'not-a-folder');
    writeFileSync(cache, 'a file where the cache folder should be');
    const run = await scan(cache, ['--incremental', small]);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n').filter((l) => l.startsWith('provenance: '))).toHaveLength(1);
    expect(run.stderr).toContain('this scan runs without it');
    expect(run.summary).toMatchObject({ checked: 5, from_cache: 0 });
  });

  it('without a loadable lmdb package, the scan is told once and runs without the cache', () => {
    // The built CLI away from node_modules: what these two files need is bundled (with the
    // package's data: the C2PA lists); lmdb is not.
    const copy = join(dir, 'no-lmdb');
    for (const part of ['bin', 'dist', 'data', 'package.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    const run = spawnSync(process.execPath, [join(copy, 'bin', 'provenance.js'), 'check', '--json', '--summary', '--incremental', '--checks', 'camera_reference', join(small, 'camera.jpg'), join(small, 'plain.png')], {
      env: { ...process.env, PROVENANCE_CACHE_DIR: newCache() },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('provenance: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^provenance: the scan cache cannot be used: the lmdb package did not load \(.+\); this scan runs without it\.$/);
    expect(parseLines(run.stdout).map((l) => l.matches[0].result)).toEqual(['found', 'unavailable']);
  });

  it('two scans of one folder at once on one cache: both right, the cache readable after', async () => {
    const cache = newCache();
    const folder = makeFolder('concurrent', 120);
    const reference = strip((await scan(newCache(), [folder])).lines);
    const [a, b] = await Promise.all([scan(cache, ['--incremental', folder]), scan(cache, ['--incremental', folder])]);
    expect([a.code, b.code], `signals ${a.signal} ${b.signal}\n${a.stderr}\n---\n${b.stderr}`).toEqual([0, 0]);
    expect(strip(a.lines)).toEqual(reference);
    expect(strip(b.lines)).toEqual(reference);
    const stats = await runBin(['cache', 'scan', 'stats', '--json'], { env: { PROVENANCE_CACHE_DIR: cache } });
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout).entries).toBe(120);
    // And again, both at once, now from the cache.
    const [c, d] = await Promise.all([scan(cache, ['--incremental', folder]), scan(cache, ['--incremental', folder])]);
    expect([c.summary.from_cache, d.summary.from_cache]).toEqual([120, 120]);
    expect(strip(c.lines)).toEqual(reference);
    expect(strip(d.lines)).toEqual(reference);
  });

  it('kill -9 during a scan that is writing the cache: the next scan runs and is right', async () => {
    const cache = newCache();
    const folder = makeFolder('killed', 600);
    const reference = strip((await scan(newCache(), [folder])).lines);
    // Killed once a good part of its results are out (and so being stored).
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), 'check', '--json', '--incremental', folder], {
      env: { ...process.env, PROVENANCE_CACHE_DIR: cache },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    const killedAt = await new Promise<number>((resolveKill, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        lines += chunk.toString().split('\n').length - 1;
        if (lines >= 150 && child.exitCode === null && !child.killed) {
          child.kill('SIGKILL');
          resolveKill(lines);
        }
      });
      child.on('close', (code, signal) => (signal === 'SIGKILL' ? undefined : reject(new Error(`the scan ended (${code}) before it was killed`))));
    });
    await new Promise((r) => child.on('close', r));
    expect(killedAt).toBeLessThan(600);
    const next = await scan(cache, ['--incremental', folder]);
    expect(next.code).toBe(0);
    expect(next.stderr.split('\n').filter((l) => l.startsWith('provenance: '))).toEqual([]);
    expect(strip(next.lines)).toEqual(reference);
    const after = await scan(cache, ['--incremental', folder]);
    expect(after.summary.from_cache).toBe(600);
    expect(strip(after.lines)).toEqual(reference);
  });
});

describe('pieces', () => {
  it('the terminal closing table says how many came from the cache', () => {
    const stats = new ScanStats(true);
    const result = { id: 'chk_x', media: { type: 'image/png', bytes: 1, sha256: '' }, matches: [], checks_run: [], duration_ms: 0 } as any;
    for (let i = 0; i < 1087; i++) stats.add(result, true);
    stats.add(result, false);
    expect(formatScanTable(stats, makeStyle(false), stats.startedAt + 1000).split('\n')[0]).toBe('1,088 checked · 0 unreadable · 1,087 from cache · 1.0 s · 1,088 files/s');
    expect(formatScanTable(new ScanStats(false), makeStyle(false), Date.now()).split('\n')[0]).not.toContain('from cache');
  });

  it("the engine version's package version is package.json's", () => {
    expect(PACKAGE_VERSION).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });
});
