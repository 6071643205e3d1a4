// Small files whose records are megabytes of hostile text (compressed, so the files are a few KB)
// checked by the built CLI as users run it: each answers in well under a second more than a plain
// PNG does. Before the readers were made linear each of these kept `check` busy for hours (the
// Midjourney `\s*Job ID` pattern, the trailing-NUL and UserComment trims, the XMP element lookup),
// and a busy main thread does not even act on SIGTERM: the run here is ended with SIGKILL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IPTC_EXT_NAMESPACE } from '../src/media/xmp-hints.js';
import { iTXt, makePng, patternPixels, pngChunk, tiffBlock, userComment, zTXt } from './helpers/generator-fixtures.js';
import { ROOT } from './helpers/corpus.js';

const MB = 1024 * 1024;
/** The extra time a probe may take over the plain PNG (the bound: under 1 s). */
const BOUND_MS = 1000;
/** A run still going after this is killed and fails the test. */
const KILL_MS = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'prov-redos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const pixels = () => patternPixels(8, 8, 3);

const PROBES: [string, () => Uint8Array][] = [
  ['zTXt Description: "x", 4 MB of spaces, "y"', () => makePng(pixels(), { before: [zTXt('Description', `x${' '.repeat(4 * MB - 2)}y`)] })],
  ['compressed iTXt parameters: 4 MB of NULs, then "x"', () => makePng(pixels(), { before: [iTXt('parameters', `${'\0'.repeat(4 * MB - 1)}x`, true)] })],
  ['compressed iTXt parameters: "Steps: 1", 4 MB of ", "', () => makePng(pixels(), { before: [iTXt('parameters', `Steps: 1${', '.repeat(2 * MB - 8)}`, true)] })],
  [
    'compressed XMP: an open <Iptc4xmpExt:DigitalSourceType tag, then 2 MB of spaces',
    () => makePng(pixels(), { before: [iTXt('XML:com.adobe.xmp', `<x:xmpmeta xmlns:I="${IPTC_EXT_NAMESPACE}"><I:DigitalSourceType ${' '.repeat(2 * MB - 200)}x`, true)] }),
  ],
  [
    'eXIf UserComment: "x", 1 MB of spaces, "y"',
    () => makePng(pixels(), { before: [pngChunk('eXIf', tiffBlock({ ifd0: [{ tag: 0x9286, type: 7, value: userComment(`x${' '.repeat(MB)}y`, 'ascii') }] }))] }),
  ],
];

interface Run {
  code: number | null;
  ms: number;
  stdout: string;
}

function check(path: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), 'check', '--json', path], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: performance.now() - t0, stdout: Buffer.concat(out).toString() });
    });
  });
}

describe('hostile record text: `check` on the built CLI answers at once', () => {
  it('each probe takes under a second more than a plain PNG', { timeout: 6 * KILL_MS }, async () => {
    const plain = file('plain.png', makePng(pixels()));
    // The least of two runs: the first may pay for a cold disk cache.
    const base = Math.min((await check(plain)).ms, (await check(plain)).ms);
    for (const [name, make] of PROBES) {
      const bytes = make();
      expect(bytes.length, name).toBeLessThan(1.1 * MB + 4096);
      const run = await check(file('probe.png', bytes));
      expect(run.code, `${name}: exit code (null when killed after ${KILL_MS} ms)`).toBe(0);
      const line = JSON.parse(run.stdout.trim().split('\n')[0]!);
      expect(line.matches.find((m: { check: string }) => m.check === 'generator_metadata'), name).toMatchObject({ result: 'not_found' });
      expect(run.ms - base, `${name}: ${run.ms.toFixed(0)} ms, against ${base.toFixed(0)} ms for a plain PNG`).toBeLessThan(BOUND_MS);
    }
  });
});
