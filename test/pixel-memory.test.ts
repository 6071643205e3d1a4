// Decoded pixels are bounded and counted (issue 34, item 4; src/media/pixel-memory.ts): a few KB
// of WebP that says 8,192 x 8,192 used to decode to 256 MB (and a folder of four took `check` to
// 1.5 GB); now a picture over MAX_DECODED_PIXELS is refused from its header, every decode holds
// its cost in the process's gate until its file is done, and the cost figures hold as measured
// (peak RSS of the built CLI, read by the process itself at exit).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../src/engine/detect.js';
import { pixelReservation } from '../src/engine/pixel-reservation.js';
import { decodeCost, MAX_DECODED_PIXELS, PixelGate } from '../src/media/pixel-memory.js';
import { decodeGate, decodePixels, PixelDecodeError, releasePixels, trackPixels } from '../src/media/pixels.js';
import { tEXt } from './helpers/generator-fixtures.js';
import { runBin } from './helpers/run-cli.js';

const MB = 1_048_576;
const dir = mkdtempSync(join(tmpdir(), 'prov-pixel-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A flat RGBA lossless WebP: a few hundred bytes whatever its size (a decode bomb when large). */
const flatWebp = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } }).webp({ lossless: true }).toBuffer();

/** RGB noise (a picture no encoder shrinks), as `format`. */
async function noise(side: number, format: 'webp' | 'jpeg' | 'png'): Promise<Buffer> {
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i * 2654435761) >>> 24) & 0xff;
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })[format]().toBuffer();
}

/**
 * Peak RSS of `provenance check <paths>` (built CLI), in bytes: its VmHWM, read by the process
 * itself at exit. Not `process.resourceUsage().maxRSS`: Linux carries that over from the parent
 * the child was forked from (the test runner, 160 MB and more late in a whole suite), so a
 * 2,048 px JPEG whose own peak is 46 MB over the baseline read as 114-117 MB over it in CI.
 */
async function peakRss(...paths: string[]): Promise<number> {
  const probe = join(dir, 'peak-rss.cjs');
  writeFileSync(
    probe,
    "process.on('exit', () => { const fs = require('fs'); const hwm = /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8')); fs.writeSync(2, `\\nhwm_kb=${hwm ? hwm[1] : ''}\\n`); });\n",
  );
  const run = await runBin(['check', ...paths, '--json'], { env: { NODE_OPTIONS: `--require ${probe}` } });
  const kb = /hwm_kb=(\d+)/.exec(run.stderr);
  if (!kb) throw new Error(`no VmHWM in: ${run.stderr}`);
  return Number(kb[1]) * 1024;
}

let bomb: Buffer;
beforeAll(async () => {
  bomb = await flatWebp(8192);
});

describe('a picture over the bound', () => {
  it('a 8,192 x 8,192 WebP of a few KB is refused from its header: no pixels decoded, nothing held', async () => {
    expect(bomb.length).toBeLessThan(4096);
    const before = process.memoryUsage().rss;
    await expect(decodePixels(bomb)).rejects.toThrow(PixelDecodeError);
    await expect(decodePixels(new Uint8Array(bomb))).rejects.toThrow(`more than ${MAX_DECODED_PIXELS.toLocaleString('en-US')} pixels`);
    expect(decodeGate().inUse).toBe(0);
    // 256 MB of RGBA would have shown; the header read costs nothing like it.
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MB);
  });

  it('the checks still answer for it, and hold nothing after', async () => {
    const result = await detect(new Uint8Array(bomb), { checks: ['generator_metadata', 'invisible_watermark'] });
    expect(result.matches.map((m) => m.result)).toEqual(['not_found', 'not_found']);
    expect(decodeGate().inUse).toBe(0);
  });
});

describe('generator_metadata on a picture over the bound', () => {
  it('a NovelAI record with a signature says the signature could not be checked, and why', async () => {
    const side = 3073; // one more than the bound on each side
    const plain = Buffer.from(await sharp({ create: { width: side, height: side, channels: 3, background: '#abc' } }).png().toBuffer());
    const comment = JSON.stringify({ prompt: 'a lighthouse', steps: 28, signed_hash: Buffer.alloc(64, 1).toString('base64') });
    // The text chunks right after IHDR (8 bytes of signature, 25 of IHDR), as NovelAI writes them.
    const png = Buffer.concat([plain.subarray(0, 33), tEXt('Software', 'NovelAI'), tEXt('Comment', comment), plain.subarray(33)]);
    const [match] = (await detect(new Uint8Array(png), { checks: ['generator_metadata'] })).matches;
    expect(match).toMatchObject({ result: 'found', generator: { tool: 'novelai' } });
    expect(match!.note).toContain(`The NovelAI signature could not be checked: the picture has more than ${MAX_DECODED_PIXELS.toLocaleString('en-US')} pixels.`);
    expect(decodeGate().inUse).toBe(0);
  });
});

describe('the gate', () => {
  it("a decode of a tracked file holds its cost until its file's checks are done; an untracked one only while it decodes", async () => {
    const file = new Uint8Array(await flatWebp(512));
    trackPixels(file); // as detect() does
    const pixels = await decodePixels(file);
    expect(pixels.width * pixels.height).toBe(512 * 512);
    expect(decodeGate().inUse).toBeGreaterThanOrEqual(decodeCost(512, 512, true) - 1024);
    releasePixels(file);
    expect(decodeGate().inUse).toBe(0);
    // detect() tracks and releases on its own.
    await detect(file, { checks: ['generator_metadata'] });
    expect(decodeGate().inUse).toBe(0);
    // A direct caller (a script) keeps its pixels without keeping the gate shut.
    await decodePixels(new Uint8Array(file));
    expect(decodeGate().inUse).toBe(0);
  });

  it('holds past the capacity wait for room; one larger than the gate runs alone; reclaim gives back a lost thread', async () => {
    const gate = new PixelGate(PixelGate.memoryFor(10 * MB));
    const first = await gate.acquire(6 * MB);
    let second: (() => void) | undefined;
    const waiting = gate.acquire(6 * MB).then((r) => (second = r));
    await new Promise((r) => setTimeout(r, 30));
    expect(second).toBeUndefined();
    first();
    first(); // a second call gives nothing back twice
    await waiting;
    expect(gate.inUse).toBe(6 * MB);
    second!();
    const whole = await gate.acquire(50 * MB); // capped at the capacity: alone, but it runs
    expect(gate.inUse).toBe(10 * MB);
    whole();

    // A worker's view of the same gate, with its ledger; the worker is lost holding 3 MB.
    const ledger = PixelGate.ledger();
    const worker = new PixelGate(gate.memory, ledger);
    await worker.acquire(3 * MB);
    expect(gate.inUse).toBe(3 * MB);
    gate.reclaim(ledger);
    expect(gate.inUse).toBe(0);
    gate.reclaim(ledger); // nothing left to give back
    expect(gate.inUse).toBe(0);
  });
});

// The built CLI as users run it: worker threads, one gate over them.
describe('peak memory of `check` (built CLI)', () => {
  let baseline: number;
  beforeAll(async () => {
    const tiny = join(dir, 'tiny.webp');
    writeFileSync(tiny, await flatWebp(64));
    // The smaller of two runs: the machine is shared, and a peak only grows with noise.
    baseline = Math.min(await peakRss(tiny), await peakRss(tiny));
  }, 60_000);

  it('a folder of four 8,192 x 8,192 decode bombs costs no more than a tiny file, within 64 MB', async () => {
    const files = [0, 1, 2, 3].map((i) => join(dir, `bomb-${i}.webp`));
    for (const f of files) writeFileSync(f, bomb);
    const peak = await peakRss(...files);
    expect(peak - baseline).toBeLessThan(64 * MB);
  }, 60_000);

  it('four pictures at the bound decode one at a time: the peak stays within one decode of the baseline', async () => {
    const files = [0, 1, 2, 3].map((i) => join(dir, `at-bound-${i}.webp`));
    const side = Math.floor(Math.sqrt(MAX_DECODED_PIXELS));
    const atBound = await flatWebp(side);
    for (const f of files) writeFileSync(f, atBound);
    const peak = await peakRss(...files);
    // One such decode measured 118 MB over the baseline (pixel-memory.ts), and these four 172 MB
    // (one decode, and the two worker threads' engines); two workers decoding one each at
    // once, as before the gate, 322 MB.
    expect(peak - baseline).toBeLessThan(2 * 112 * MB);
  }, 60_000);

  it('what one decode costs through the checks that read it stays within its figure', async () => {
    const cases: [string, Buffer, number][] = [
      ['3072-rgba.webp (generator_metadata)', await flatWebp(3072), decodeCost(3072, 3072, true)],
      ['2048.webp (invisible_watermark)', await noise(2048, 'webp'), decodeCost(2048, 2048, true)],
      ['2048.jpg (invisible_watermark)', await noise(2048, 'jpeg'), decodeCost(2048, 2048, false)],
      ['2048.png (invisible_watermark)', await noise(2048, 'png'), decodeCost(2048, 2048, false)],
    ];
    for (const [name, bytes, cost] of cases) {
      const path = join(dir, name.split(' ')[0]!);
      writeFileSync(path, bytes);
      const over = (await peakRss(path)) - baseline;
      expect(over, `${name}: ${(over / MB).toFixed(0)} MB over the baseline, its figure ${(cost / MB).toFixed(0)} MB`).toBeLessThan(cost);
    }
  }, 120_000);
});

describe('pixelReservation: what the daemon takes from its budget for a file, from its header', () => {
  const all = ['c2pa', 'generator_metadata', 'invisible_watermark'];
  it('the cost of the picture when a pixel check may decode it, else nothing', async () => {
    const png = await flatWebp(300).then((b) => sharp(b).png().toBuffer());
    const webp = await flatWebp(300);
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#123' } }).jpeg().toBuffer();
    expect(pixelReservation(png, all)).toBe(decodeCost(300, 300, false));
    expect(pixelReservation(webp, all)).toBe(decodeCost(300, 300, true));
    expect(pixelReservation(jpeg, ['invisible_watermark'])).toBe(decodeCost(300, 200, false));
    // generator_metadata decodes no JPEG; no pixel check asked for; not a picture.
    expect(pixelReservation(jpeg, ['c2pa', 'generator_metadata'])).toBe(0);
    expect(pixelReservation(png, ['c2pa', 'camera_reference'])).toBe(0);
    expect(pixelReservation(new TextEncoder().encode('ID3 not a picture at all'), all)).toBe(0);
  });

  it('over every bound: nothing (no check decodes it); a header not read here: the most a bound allows', async () => {
    expect(pixelReservation(bomb, all)).toBe(0);
    // A JPEG of 3,000 x 2,000 is over invisible_watermark's 2,048 x 2,048 and read by nothing else.
    const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#321' } }).jpeg().toBuffer();
    expect(pixelReservation(photo, all)).toBe(0);
    // A PNG whose IHDR CRC is wrong: picture-size.ts leaves it to sharp, so the bound is taken.
    const png = Buffer.from(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } }).png().toBuffer());
    png[29] ^= 0xff;
    expect(pixelReservation(png, all)).toBe(decodeCost(MAX_DECODED_PIXELS, 1, false));
    expect(pixelReservation(png, ['invisible_watermark'])).toBe(decodeCost(2048 * 2048, 1, false));
  });
});
