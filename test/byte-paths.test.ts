// Files whose names are not valid UTF-8 (issue 24): found in a walk, named on the command line,
// listed with --files-from -0 and answered from the scan cache, checked like any other, and
// shown in the escaped form of docs/CLI.md (`bad\xffname.jpg`). Real files with byte names in a
// temporary folder; the command-line case as a real subprocess through sh, whose printf puts
// the raw byte in argv (a Node parent could only pass UTF-8).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapePath, utf8Name } from '../src/engine/byte-paths.js';
import { tinyJpeg } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines, runCli } from './helpers/run-cli.js';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('escapePath: the form a name that is not valid UTF-8 is shown in', () => {
  it('writes each byte outside a valid UTF-8 sequence as \\xHH, keeps valid text, and doubles backslashes', () => {
    expect(escapePath(bytes('bad', [0xff], 'name.png'))).toBe('bad\\xffname.png');
    expect(escapePath(bytes('é', [0xfe, 0xff], '📷.jpg'))).toBe('é\\xfe\\xff📷.jpg');
    expect(escapePath(bytes('a\\b', [0x80]))).toBe('a\\\\b\\x80');
    // Overlong, surrogate, past U+10FFFF, and a sequence cut short: each byte on its own.
    expect(escapePath(bytes([0xc0, 0x80]))).toBe('\\xc0\\x80');
    expect(escapePath(bytes([0xed, 0xa0, 0x80]))).toBe('\\xed\\xa0\\x80');
    expect(escapePath(bytes([0xf4, 0x90, 0x80, 0x80]))).toBe('\\xf4\\x90\\x80\\x80');
    expect(escapePath(bytes('x', [0xe2, 0x82]))).toBe('x\\xe2\\x82');
    expect(escapePath(bytes([0xe2, 0x82], 'y'))).toBe('\\xe2\\x82y');
  });

  it('utf8Name: a string when the bytes are valid UTF-8 (even holding U+FFFD itself), else undefined', () => {
    expect(utf8Name(bytes('plain.jpg'))).toBe('plain.jpg');
    expect(utf8Name(bytes('lit\uFFFDeral.jpg'))).toBe('lit\uFFFDeral.jpg');
    expect(utf8Name(bytes('bad', [0xff], '.jpg'))).toBeUndefined();
    expect(utf8Name(bytes([0xed, 0xa0, 0x80]))).toBeUndefined();
  });
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-byte-paths-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder holding ok.jpg, bad\xffname.jpg (signed-free tiny JPEGs) and bad\xfedir/inner.jpg. */
function oddFolder(name: string): string {
  const odd = join(dir, name);
  mkdirSync(odd);
  writeFileSync(join(odd, 'ok.jpg'), tinyJpeg({ seed: 1 }));
  writeFileSync(bytes(odd, '/bad', [0xff], 'name.jpg'), tinyJpeg({ seed: 2 }));
  mkdirSync(bytes(odd, '/bad', [0xfe], 'dir'));
  writeFileSync(bytes(odd, '/bad', [0xfe], 'dir/inner.jpg'), tinyJpeg({ seed: 3 }));
  return odd;
}

/** `node ARGS` as a subprocess through sh, so `printf` can put raw bytes (octal escapes) in argv. */
function shNode(cwd: string, args: string, env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync('/bin/sh', ['-c', `exec "${process.execPath}" ${args}`], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The built CLI (bin/provenance.js) as a subprocess through sh. */
const shCli = (cwd: string, args: string, env: NodeJS.ProcessEnv = {}) => shNode(cwd, `"${join(ROOT, 'bin', 'provenance.js')}" ${args}`, env);

describe.skipIf(process.platform === 'win32')('a file whose name is not valid UTF-8', () => {
  it('is found in a walk and checked, its source the escaped name, in name order', async () => {
    const odd = oddFolder('walk');
    // --concurrency 1: checked in this thread; the default: by the worker pool (the path crosses to it as bytes).
    for (const extra of [['--concurrency', '1'], []]) {
      const run = await runCli(['check', '--json', ...extra, odd]);
      expect(run.code, run.stderr).toBe(0);
      const lines = parseLines(run.stdout);
      expect(lines.map((l) => [l.source, l.error?.type ?? l.media.type])).toEqual([
        [`${odd}/bad\\xfedir/inner.jpg`, 'image/jpeg'],
        [`${odd}/bad\\xffname.jpg`, 'image/jpeg'],
        [`${odd}/ok.jpg`, 'image/jpeg'],
      ]);
      expect(lines[1].media.sha256).toBe(createHash('sha256').update(tinyJpeg({ seed: 2 })).digest('hex'));
    }
  });

  it('shows the escaped name in the readable report', async () => {
    const odd = oddFolder('readable');
    const run = await runCli(['check', odd]);
    expect(run.code, run.stderr).toBe(0);
    // The heading, then the card's verdict line (issue 31), then the media line.
    expect(run.stdout).toContain(`\n${odd}/bad\\xffname.jpg\n  No AI marker found (that proves nothing)\n  image/jpeg · `);
    expect(run.stdout).toContain(`${odd}/bad\\xfedir/inner.jpg\n  No AI marker found (that proves nothing)\n  image/jpeg · `);
    expect(run.stdout).toContain('3 files checked');
    expect(run.stdout).not.toContain('\uFFFD');
  });

  it('--include matches it by its decoded name', async () => {
    const odd = oddFolder('include');
    const lines = parseLines((await runCli(['check', '--json', '--include', 'bad*name.jpg', odd])).stdout);
    expect(lines.map((l) => l.source)).toEqual([`${odd}/bad\\xffname.jpg`]);
  });

  it('named on the command line (Node gives U+FFFD for the byte): the one file whose name fits is checked', () => {
    const odd = oddFolder('argv');
    const echoed = shNode(odd, "-e 'process.stdout.write(JSON.stringify(process.argv[1]))' \"$(printf 'bad\\377name.jpg')\"");
    expect(JSON.parse(echoed.stdout)).toBe('bad\uFFFDname.jpg'); // what Node makes of the byte
    const run = shCli(odd, "check --json \"$(printf 'bad\\377name.jpg')\" \"$(printf 'bad\\376dir')\"");
    expect(run.code, run.stderr).toBe(0);
    expect(parseLines(run.stdout).map((l) => [l.source, l.media?.type])).toEqual([
      ['bad\\xffname.jpg', 'image/jpeg'],
      ['bad\\xfedir/inner.jpg', 'image/jpeg'],
    ]);
    const readable = shCli(odd, "check \"$(printf 'bad\\377name.jpg')\"");
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stdout).toMatch(/^bad\\xffname\.jpg\n {2}No AI marker found \(that proves nothing\)\n {2}image\/jpeg · /);
  });

  it('named on the command line: several names that fit are ambiguous, none is not_found, both said plainly', () => {
    const odd = oddFolder('argv-ambiguous');
    writeFileSync(bytes(odd, '/bad', [0xfd], 'name.jpg'), tinyJpeg({ seed: 4 }));
    const run = shCli(odd, "check --json \"$(printf 'bad\\377name.jpg')\" \"$(printf 'gone\\377.jpg')\"");
    expect(run.code).toBe(1);
    const [ambiguous, none] = parseLines(run.stdout);
    expect(ambiguous).toEqual({
      source: 'bad\uFFFDname.jpg',
      error: {
        type: 'read_error',
        message:
          'bad\uFFFDname.jpg: its name is not valid UTF-8 (each \uFFFD stands for bytes that are not), and 2 files fit it: bad\\xfdname.jpg, bad\\xffname.jpg; name their folder instead, or list the one meant with --files-from and -0.',
      },
    });
    expect(none).toEqual({
      source: 'gone\uFFFD.jpg',
      error: { type: 'not_found', message: 'gone\uFFFD.jpg: no such file or folder (each \uFFFD stands for bytes that are not valid UTF-8, and no name in its folder fits).' },
    });
  });

  it('an ambiguous argument names five of the files that fit, and counts the rest', async () => {
    const many = join(dir, 'many');
    mkdirSync(many);
    for (const b of [0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe]) writeFileSync(bytes(many, '/x', [b], '.jpg'), tinyJpeg({ seed: b }));
    const [line] = parseLines((await runCli(['check', '--json', join(many, 'x\uFFFD.jpg')])).stdout);
    expect(line.error.type).toBe('read_error');
    expect(line.error.message).toContain(`7 files fit it: ${[0xf8, 0xf9, 0xfa, 0xfb, 0xfc].map((b) => `${many}/x\\x${b.toString(16)}.jpg`).join(', ')} and 2 more;`);
  });

  it('listed in --files-from -0 (find -print0): its bytes name it exactly', async () => {
    const odd = oddFolder('files-from');
    const list = bytes(odd, '/bad', [0xff], 'name.jpg\0', odd, '/ok.jpg\0');
    const run = await runCli(['check', '--json', '-0', '--files-from', '-'], list);
    expect(run.code, run.stderr).toBe(0);
    expect(parseLines(run.stdout).map((l) => [l.source, l.media?.type])).toEqual([
      [`${odd}/bad\\xffname.jpg`, 'image/jpeg'],
      [`${odd}/ok.jpg`, 'image/jpeg'],
    ]);
  });

  it('is answered from the scan cache on a rescan (--incremental keys by identity, not by path)', () => {
    const odd = oddFolder('incremental');
    const old = new Date(Date.now() - 60_000); // past the racy-timestamp window
    for (const p of [bytes(odd, '/bad', [0xff], 'name.jpg'), bytes(odd, '/bad', [0xfe], 'dir/inner.jpg'), join(odd, 'ok.jpg')]) utimesSync(p, old, old);
    const env = { PROVENANCE_CACHE_DIR: join(dir, 'cache') };
    const first = shCli(odd, 'check --json --summary --incremental .', env);
    const again = shCli(odd, 'check --json --summary --incremental .', env);
    expect(first.code, first.stderr).toBe(0);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(first.stderr.trim().split('\n').at(-1)!).from_cache).toBe(0);
    expect(JSON.parse(again.stderr.trim().split('\n').at(-1)!).from_cache).toBe(3);
    const strip = (out: string) => parseLines(out).map(({ id: _i, duration_ms: _d, ...rest }) => rest);
    expect(strip(again.stdout)).toEqual(strip(first.stdout));
    expect(strip(again.stdout).map((l) => l.source)).toEqual(['bad\\xfedir/inner.jpg', 'bad\\xffname.jpg', 'ok.jpg']);
  });
});
