// `provenance check` and `provenance detectors` through the CLI entry with injected streams,
// plus the subprocess behaviours (pipes, exit codes) that only a real process shows.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectorsBody } from '../src/detectors/catalogue.js';
import { APPLE_MAKER_NOTE, NOT_MEDIA, exifApp1, sha256Hex, tinyJpeg, tinyPng } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines, runBin, runCli } from './helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

let dir: string;
let signed: SignedSet;
const camera = tinyJpeg({ seed: 11, exif: exifApp1({ make: 'Apple', model: 'iPhone 14', software: '17.2', makerNote: APPLE_MAKER_NOTE }) });

beforeAll(async () => {
  signed = await makeSignedSet();
  dir = mkdtempSync(join(tmpdir(), 'prov-cli-'));
  mkdirSync(join(dir, 'tree', 'b', 'deeper'), { recursive: true });
  mkdirSync(join(dir, 'tree', 'a'), { recursive: true });
  writeFileSync(join(dir, 'tree', 'b', 'deeper', 'z.png'), tinyPng());
  writeFileSync(join(dir, 'tree', 'b', 'camera.jpg'), camera);
  writeFileSync(join(dir, 'tree', 'a', 'signed.jpg'), signed.jpeg);
  writeFileSync(join(dir, 'tree', 'notes.txt'), NOT_MEDIA);
  writeFileSync(join(dir, 'tree', 'C.jpg'), tinyJpeg({ seed: 3 }));
  mkdirSync(join(dir, 'loop', 'inner'), { recursive: true });
  writeFileSync(join(dir, 'loop', 'inner', 'x.png'), tinyPng({ seed: 9 }));
  symlinkSync('..', join(dir, 'loop', 'inner', 'back'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'loop', 'broken.jpg'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

describe('check --json', () => {
  it('walks a folder recursively in sorted order, one NDJSON line per file with its source', async () => {
    const run = await runCli(['check', '--json', join(dir, 'tree')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = parseLines(run.stdout);
    expect(lines.map((l) => l.source)).toEqual(
      ['C.jpg', 'a/signed.jpg', 'b/camera.jpg', 'b/deeper/z.png', 'notes.txt'].map((p) => join(dir, 'tree', p)),
    );
    const bySource = (p: string) => lines.find((l) => l.source === join(dir, 'tree', p));
    expect(bySource('a/signed.jpg').matches[0]).toMatchObject({ check: 'c2pa', result: 'found', issuer: 'Provenance Test Signer' });
    expect(bySource('b/camera.jpg').matches[4]).toEqual({ check: 'camera_reference', result: 'found', confidence: 0.9 });
    expect(bySource('b/camera.jpg').media.sha256).toBe(sha256Hex(camera));
    expect(bySource('notes.txt').media.type).toBe('application/octet-stream');
    for (const l of lines) {
      // A file with a C2PA manifest carries its signals (issue 38) before the verdict.
      const signals = l.matches[0].result === 'found' ? ['signals'] : [];
      expect(Object.keys(l)).toEqual(['source', 'id', 'media', 'matches', 'checks_run', 'duration_ms', ...signals, 'verdict']);
    }
  });

  it('keeps the input as given in source, in the order given', async () => {
    const a = join(dir, 'tree', 'notes.txt');
    const b = join(dir, 'tree', 'C.jpg');
    const lines = parseLines((await runCli(['check', '--json', a, b])).stdout);
    expect(lines.map((l) => l.source)).toEqual([a, b]);
  });

  it('reports unreadable inputs on their own line and goes on, exit 1', async () => {
    const missing = join(dir, 'missing.jpg');
    const run = await runCli(['check', '--json', missing, join(dir, 'loop')]);
    expect(run.code).toBe(1);
    const lines = parseLines(run.stdout);
    expect(lines[0]).toEqual({ source: missing, error: { type: 'not_found', message: `${missing}: no such file or folder.` } });
    const loop = lines.find((l) => l.source === join(dir, 'loop', 'inner', 'back'));
    expect(loop.error.type).toBe('directory_loop');
    const broken = lines.find((l) => l.source === join(dir, 'loop', 'broken.jpg'));
    expect(broken.error.type).toBe('not_found');
    const ok = lines.find((l) => l.source === join(dir, 'loop', 'inner', 'x.png'));
    expect(ok.media.type).toBe('image/png');
    expect(lines).toHaveLength(3 + 1);
  });

  it.skipIf(process.getuid?.() === 0)('reports a file without read permission as permission_denied', async () => {
    const locked = join(dir, 'locked.jpg');
    writeFileSync(locked, tinyJpeg(), { mode: 0o000 });
    const lines = parseLines((await runCli(['check', '--json', locked])).stdout);
    expect(lines[0].error.type).toBe('permission_denied');
  });

  it('reads standard input for -', async () => {
    const run = await runCli(['check', '--json', '--checks', 'c2pa', '-'], signed.png);
    expect(run.code).toBe(0);
    const [line] = parseLines(run.stdout);
    expect(line.source).toBe('-');
    expect(line.checks_run).toEqual(['c2pa']);
    expect(line.media).toMatchObject({ type: 'image/png', bytes: signed.png.length });
    expect(line.matches[0].result).toBe('found');
  });

  it('an empty file is checked, not an error', async () => {
    const empty = join(dir, 'empty.bin');
    writeFileSync(empty, '');
    const run = await runCli(['check', '--json', empty]);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)[0].media).toMatchObject({ bytes: 0, type: 'application/octet-stream' });
  });
});

describe('usage errors exit 2 and name the problem', () => {
  it.each([
    [['check', '--checks', 'nope', 'x'], /Unknown check id "nope"\. Valid check ids: c2pa, watermark_a/],
    [['check', '--checks', 'c2pa,c2pa', 'x'], /named twice/],
    [['check', '--checks', '', 'x'], /Unknown check id ""/],
    [['check', '-', '-'], /standard input \(-\) can be used only once/],
    [['check', '--files-from', '-', '-'], /standard input \(-\) can be used only once/],
    [['check'], /name at least one file, folder or -, or use --files-from/],
    [['check', '--bogus', 'x'], /unknown option '--bogus'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('%j', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});

describe('readable report', () => {
  it('says what was found per file and ends with a summary and the caveat', async () => {
    const run = await runCli(['check', join(dir, 'tree'), join(dir, 'missing.jpg')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0');
    expect(run.stdout).toContain('credential intact');
    expect(run.stdout).toContain('EXIF of an Apple iPhone/iPad camera');
    expect(run.stdout).toContain('The media type application/octet-stream is not read by the c2pa check.');
    expect(run.stdout).toContain('could not be read');
    expect(run.stdout).toMatch(/5 files checked, 1 could not be read; c2pa found in 1, camera_reference found in 1\./);
    expect(run.stdout).toContain('A missing marker proves nothing');
    expect(run.stdout).not.toContain('\u001b['); // no colour when not a terminal
  });
});

describe('detectors', () => {
  it('--json prints the body of GET /v1/detectors', async () => {
    const run = await runCli(['detectors', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(detectorsBody());
  });
  it('lists each detector readably', async () => {
    const run = await runCli(['detectors']);
    expect(run.stdout).toMatch(/^c2pa {2}available/m);
    expect(run.stdout).toMatch(/^watermark_a {2}planned/m);
  });
});

describe('as a real process', () => {
  it('--help documents the exit codes', async () => {
    const run = await runBin(['check', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Exit codes:\n\s+0 {2}every input was checked/);
    expect(run.stdout).toMatch(/2 {2}usage error/);
  });

  it('stops quietly when the reader of a pipe goes away', () => {
    const out = execFileSync('sh', ['-c', `"${process.execPath}" bin/provenance.js check --json "${join(dir, 'tree')}" | head -n 1; echo "status:$?"`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [first, status] = out.trim().split('\n');
    expect(JSON.parse(first!).source).toMatch(/C\.jpg$/);
    expect(status).toBe('status:0');
  });

  it('reads standard input from a pipe', async () => {
    const run = await runBin(['check', '--json', '-'], { stdin: signed.jpeg });
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)[0]).toMatchObject({ source: '-', media: { type: 'image/jpeg', bytes: signed.jpeg.length } });
  });
});
