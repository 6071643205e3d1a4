// Batch scans (issue 6): the worker pool keeps input order, inputs from lists, glob filters,
// --fail-on gates, --summary counts, and their usage errors.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLE_MAKER_NOTE, NOT_MEDIA, exifApp1, tinyJpeg, tinyPng } from './fixtures/make.js';
import { parseLines, runBin, runCli } from './helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

let dir: string;
let signed: SignedSet;
const files: string[] = [];

beforeAll(async () => {
  signed = await makeSignedSet();
  dir = mkdtempSync(join(tmpdir(), 'prov-scan-'));
  // A mix whose check times differ a lot (signed files take longer), so a pool that wrote
  // results as they finish, not in order, would be caught.
  for (let i = 0; i < 60; i++) {
    const sub = join(dir, 'tree', `d${i % 3}`);
    mkdirSync(sub, { recursive: true });
    const name = join(sub, `f${String(i).padStart(3, '0')}.${i % 5 === 0 ? 'jpg' : i % 5 === 1 ? 'png' : 'jpg'}`);
    const bytes =
      i % 5 === 0 ? signed.jpeg : i % 5 === 1 ? tinyPng({ seed: i }) : tinyJpeg({ seed: i, exif: i % 2 ? exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) : undefined });
    writeFileSync(name, bytes);
    files.push(name);
  }
  mkdirSync(join(dir, 'tree', 'skip-me'), { recursive: true });
  writeFileSync(join(dir, 'tree', 'skip-me', 'x.jpg'), tinyJpeg({ seed: 999 }));
  writeFileSync(join(dir, 'tree', 'notes.txt'), NOT_MEDIA);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

const strip = (lines: any[]) => lines.map(({ id: _i, duration_ms: _d, ...rest }) => rest);

describe('worker pool', () => {
  it('writes results in input order, identical to a one-thread run', async () => {
    const pooled = await runCli(['check', '--json', '--concurrency', '3', join(dir, 'tree')]);
    const single = await runCli(['check', '--json', '--concurrency', '1', join(dir, 'tree')]);
    expect(pooled.code).toBe(0);
    const lines = parseLines(pooled.stdout);
    expect(lines).toHaveLength(62);
    expect(lines.map((l) => l.source)).toEqual(parseLines(single.stdout).map((l) => l.source));
    expect(strip(lines)).toEqual(strip(parseLines(single.stdout)));
  });

  it('keeps the card details of c2pa results that crossed the thread boundary', async () => {
    const run = await runCli(['check', '--concurrency', '2', files[0]!, files[5]!]);
    // The card's signed-by row names the certificate: a detail only the engine's own read has.
    expect(run.stdout.match(/signed by {6}Provenance Test Signer \(certificate: provenance fixtures\)/g)!.length).toBeGreaterThanOrEqual(2);
  });
});

describe('--files-from', () => {
  it('reads a newline list from a file (CRLF too), skipping blank lines', async () => {
    const list = join(dir, 'list.txt');
    writeFileSync(list, `${files[1]}\r\n\n${files[0]}\n${join(dir, 'missing.jpg')}`);
    const run = await runCli(['check', '--json', '--files-from', list]);
    expect(run.code).toBe(1);
    const lines = parseLines(run.stdout);
    expect(lines.map((l) => l.source)).toEqual([files[1], files[0], join(dir, 'missing.jpg')]);
    expect(lines[2].error.type).toBe('not_found');
  });

  it('reads a NUL-separated list from standard input with -0', async () => {
    const input = Buffer.from(`${files[2]}\0${files[3]}\0`);
    const run = await runCli(['check', '--json', '-0', '--files-from', '-'], input);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout).map((l) => l.source)).toEqual([files[2], files[3]]);
  });

  it('adds to the inputs named on the command line', async () => {
    const list = join(dir, 'one.txt');
    writeFileSync(list, `${files[4]}\n`);
    const run = await runCli(['check', '--json', files[0]!, '--files-from', list]);
    expect(parseLines(run.stdout).map((l) => l.source)).toEqual([files[0], files[4]]);
  });

  it('a missing list is a usage error', async () => {
    const run = await runCli(['check', '--files-from', join(dir, 'nope.txt')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--files-from: cannot read/);
  });
});

describe('--include / --exclude', () => {
  it('--include *.png matches names anywhere in the tree', async () => {
    const lines = parseLines((await runCli(['check', '--json', '--include', '*.png', join(dir, 'tree')])).stdout);
    expect(lines).toHaveLength(12);
    expect(lines.every((l) => l.source.endsWith('.png'))).toBe(true);
  });

  it('--exclude prunes a folder and files; patterns with a slash match paths below the folder', async () => {
    const lines = parseLines(
      (await runCli(['check', '--json', '--exclude', 'skip-me', '--exclude', 'd1/**', '--exclude', '*.txt', join(dir, 'tree')])).stdout,
    );
    expect(lines.some((l) => l.source.includes('skip-me') || l.source.includes('/d1/') || l.source.endsWith('.txt'))).toBe(false);
    expect(lines).toHaveLength(40);
  });

  it('never filters a file named explicitly', async () => {
    const lines = parseLines((await runCli(['check', '--json', '--include', '*.png', files[0]!])).stdout);
    expect(lines.map((l) => l.source)).toEqual([files[0]]);
  });

  it('loads the glob matcher (picomatch) only for a run that gives a pattern', async () => {
    // A preloaded hook sees every module the built CLI's process loads, bundled chunk or package,
    // and reports as the process ends whether one held picomatch's code: without a pattern its
    // 50 KB stay unread (engine/path-filter.ts loads it on first use).
    const hook = join(dir, 'report-picomatch.mjs');
    writeFileSync(
      hook,
      `import { registerHooks } from 'node:module';
import { readFileSync, writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
const files = new Set();
registerHooks({ load(url, context, next) { if (url.startsWith('file:')) files.add(url); return next(url, context); } });
if (isMainThread) process.on('exit', () => writeSync(2, 'picomatch loaded: ' + [...files].some((u) => readFileSync(new URL(u), 'utf8').includes('POSIX_REGEX_SOURCE')) + '\\n'));
`,
    );
    const env = { NODE_OPTIONS: `--import ${pathToFileURL(hook).href}` };
    const plain = await runBin(['check', '--json', join(dir, 'tree')], { env });
    expect(plain.stderr).toContain('picomatch loaded: false');
    expect(parseLines(plain.stdout)).toHaveLength(62);
    const filtered = await runBin(['check', '--json', '--exclude', 'skip-me', join(dir, 'tree')], { env });
    expect(filtered.stderr).toContain('picomatch loaded: true');
    expect(parseLines(filtered.stdout)).toHaveLength(61);
  });
});

describe('--fail-on', () => {
  it('exits 4 when any file matches, after checking every input', async () => {
    const run = await runCli(['check', '--json', '--fail-on', 'c2pa=found', join(dir, 'tree')]);
    expect(run.code).toBe(4);
    expect(parseLines(run.stdout)).toHaveLength(62);
  });

  it('exits 0 when nothing matches; conditions are repeatable', async () => {
    const run = await runCli(['check', '--json', '--fail-on', 'c2pa=unavailable', '--fail-on', 'camera_reference=unavailable', files[0]!]);
    expect(run.code).toBe(0);
  });

  it('beats exit 1: an unreadable input and a match give 4', async () => {
    const run = await runCli(['check', '--json', '--fail-on', 'c2pa=not_found', files[1]!, join(dir, 'missing.jpg')]);
    expect(run.code).toBe(4);
  });

  it.each([
    ['c2pa', /takes CHECK=RESULT/],
    ['c2pa=maybe', /unknown result "maybe"\. Valid results: found, not_found, unavailable/],
    ['nope=found', /unknown check "nope"/],
    ['c2pa=found=x', /takes CHECK=RESULT/],
  ])('--fail-on %s is a usage error', async (value, message) => {
    const run = await runCli(['check', '--fail-on', value, files[0]!]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('--summary and --concurrency', () => {
  it('--summary writes the counts as JSON on stderr', async () => {
    const run = await runCli(['check', '--json', '--summary', join(dir, 'tree'), join(dir, 'missing.jpg')]);
    const summary = JSON.parse(run.stderr.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ inputs: 63, checked: 62, unreadable: 1, failed_on: 0 });
    expect(summary.checks.c2pa).toEqual({ found: 12, not_found: 49, unavailable: 1 });
    expect(summary.checks.camera_reference.found).toBe(18); // i % 10 in {3, 7, 9}
    expect(Number.isInteger(summary.elapsed_ms)).toBe(true);
  });

  it.each(['0', '-1', '1.5', 'many', '257'])('--concurrency %s is a usage error', async (value) => {
    const run = await runCli(['check', '--concurrency', value, files[0]!]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/whole number from 1 to 256/);
  });

  it('-0 without --files-from is a usage error', async () => {
    const run = await runCli(['check', '-0', files[0]!]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/-0\/--null goes with --files-from/);
  });
});

describe('as a real process', () => {
  it('draws no progress when stderr is not a terminal', async () => {
    const run = await runBin(['check', '--json', join(dir, 'tree')], { env: { CI: '' } });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(parseLines(run.stdout)).toHaveLength(62);
  });
});
