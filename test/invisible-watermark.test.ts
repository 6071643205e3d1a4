// invisible_watermark on pictures made here: marked by the test-side embedder
// (helpers/dwt-dct-encoder.ts) with each payload, in the correct and the two faulty encoder
// variants; unmarked, flat, too small, too large and damaged pictures; and the media modules'
// arithmetic against values computed by OpenCV 4.6 and pywt 1.1.1.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { grouped, invisibleWatermark, MAX_WATERMARK_PIXELS } from '../src/detectors/invisible-watermark.js';
import { llBeforeUpsampling } from '../src/media/chroma-upsampling.js';
import { blockBits, blockGrid, matchingBits, readBlockBits, voteBits } from '../src/media/dwt-dct.js';
import { opencvUPlane } from '../src/media/opencv-yuv.js';
import { orientPixels } from '../src/media/orientation.js';
import { decodePixels, type RawPixels } from '../src/media/pixels.js';
import { WATERMARK_PAYLOADS, type DetectorOutcome } from '../src/types.js';
import { croppedPng, embedDwtDct, flatPicture, invert, resizedPng, syntheticPicture, toJpeg, toPng, type Picture } from './helpers/dwt-dct-encoder.js';

function check(bytes: Uint8Array, type = 'image/png'): Promise<DetectorOutcome> {
  return invisibleWatermark.run({ bytes, type, sha256: '0'.repeat(64) }, {});
}

const DAMAGED_PREFIX = 'The file is damaged in a way the invisible_watermark check cannot read: ';

describe('invisible_watermark on marked pictures', () => {
  const picture = syntheticPicture(512, 512, 3);

  it.each([...WATERMARK_PAYLOADS])('finds %s with every bit, at 0.9', async (payload) => {
    const bits = PAYLOAD_BITS[payload];
    const outcome = await check(await toPng(embedDwtDct(picture, bits)));
    expect(outcome).toEqual({
      result: 'found',
      confidence: 0.9,
      watermark: { method: 'dwtDct', payload, bits_matched: bits.length, bits_total: bits.length },
    });
  });

  it('reads a mark written with red and blue swapped (diffusers 2023-07..2024-04), with a note', async () => {
    const outcome = await check(await toPng(embedDwtDct(picture, PAYLOAD_BITS.sdxl48, { order: 'rgb' })));
    expect(outcome).toMatchObject({ result: 'found', confidence: 0.85, watermark: { payload: 'sdxl48', bits_matched: 48 } });
    expect(outcome.note).toMatch(/red and blue channels swapped/);
  });

  it('reads an SDXL mark whose bits all came out inverted (float32 path), with a note', async () => {
    const outcome = await check(await toPng(embedDwtDct(picture, invert(PAYLOAD_BITS.sdxl48))));
    expect(outcome).toMatchObject({ result: 'found', confidence: 0.85, watermark: { payload: 'sdxl48', bits_matched: 48 } });
    expect(outcome.note).toMatch(/every bit inverted/);
  });

  it('never reads the swapped or inverted byte payloads (their encoders hand cv2 BGR uint8)', async () => {
    const swapped = await check(await toPng(embedDwtDct(picture, PAYLOAD_BITS.InvokeAI, { order: 'rgb' })));
    const inverted = await check(await toPng(embedDwtDct(picture, invert(PAYLOAD_BITS.StableDiffusionV1))));
    expect(swapped).toEqual({ result: 'not_found', confidence: 0.8 });
    expect(inverted).toEqual({ result: 'not_found', confidence: 0.8 });
  });

  it('finds a byte payload a few bits short at 0.8 (90 % of the bits); below, only the soft statistic reads it, with its figure', async () => {
    const bits = PAYLOAD_BITS.InvokeAI;
    const flip = (n: number) => Uint8Array.from(bits, (b, i) => (i < n ? 1 - b : b));
    const short = await check(await toPng(embedDwtDct(picture, flip(6))));
    expect(short).toMatchObject({ result: 'found', confidence: 0.8, watermark: { payload: 'InvokeAI', bits_matched: 58 } });
    // 57 of 64 bits: under the hard bar, but the blocks still lean to InvokeAI's bits as a whole,
    // which is what a damaged mark looks like.
    const tooShort = await check(await toPng(embedDwtDct(picture, flip(7))));
    expect(tooShort).toMatchObject({ result: 'found', watermark: { payload: 'InvokeAI', bits_matched: 57 } });
    expect(tooShort.note).toMatch(/^Read on the soft statistic/);
  });

  it('turns JPEG and PNG pictures upright by EXIF orientation before reading, as cv2.imread does', async () => {
    const marked = embedDwtDct(picture, PAYLOAD_BITS.SDV2);
    // Stored turned 90 degrees anticlockwise with orientation 6 ("turn clockwise to view").
    const stored = await sharp(marked.data, { raw: { width: 512, height: 512, channels: 3 } }).rotate(-90).png().withMetadata({ orientation: 6 }).toBuffer();
    expect(await check(new Uint8Array(stored))).toMatchObject({ result: 'found', watermark: { payload: 'SDV2', bits_matched: 32 } });
  });

  it('reads a lossy WebP through the chroma before upsampling, where the reference reading fails', async () => {
    const marked = embedDwtDct(picture, PAYLOAD_BITS.StableDiffusionV1);
    const webp = new Uint8Array(await sharp(marked.data, { raw: { width: 512, height: 512, channels: 3 } }).webp({ quality: 90 }).toBuffer());
    const reference = voteBits(readBlockBits(await decodePixels(webp)), 136);
    expect(matchingBits(reference, PAYLOAD_BITS.StableDiffusionV1)).toBeLessThan(123);
    const outcome = await check(webp, 'image/webp');
    expect(outcome).toMatchObject({ result: 'found', confidence: 0.9, watermark: { payload: 'StableDiffusionV1', bits_matched: 136 } });
    expect(outcome.note).toMatch(/before the decoder's upsampling/);
  });

  it('reads a crop of a marked PNG on its shifted grid, and nothing on an unmarked crop', async () => {
    const crop = async (source: Picture) =>
      new Uint8Array(await sharp(source.data, { raw: { width: 512, height: 512, channels: 3 } }).extract({ left: 25, top: 13, width: 461, height: 470 }).png().toBuffer());
    const marked = await check(await crop(embedDwtDct(picture, PAYLOAD_BITS.InvokeAI)));
    expect(marked).toMatchObject({ result: 'found', confidence: 0.85, watermark: { payload: 'InvokeAI', bits_total: 64 } });
    expect(marked.watermark!.bits_matched).toBeGreaterThanOrEqual(58);
    expect(marked.note).toMatch(/shifted block grid/);
    const sdxl = await check(await crop(embedDwtDct(picture, PAYLOAD_BITS.sdxl48)));
    expect(sdxl).toMatchObject({ result: 'found', watermark: { payload: 'sdxl48' } });
    expect(await check(await crop(picture))).toEqual({ result: 'not_found', confidence: 0.8 });
  });

  it('reads a 4:4:4 JPEG at quality 95 (a lossy file: not_found only at 0.5)', async () => {
    const marked = embedDwtDct(picture, PAYLOAD_BITS.sdxl48);
    expect(await check(await toJpeg(marked, 95), 'image/jpeg')).toMatchObject({ result: 'found', watermark: { payload: 'sdxl48' } });
    expect(await check(await toJpeg(picture, 95), 'image/jpeg')).toEqual({ result: 'not_found', confidence: 0.5 });
  });
});

describe('invisible_watermark: the soft reading (issue 39)', () => {
  const picture = syntheticPicture(512, 512, 3);

  it.each([...WATERMARK_PAYLOADS])(
    'reads %s on a picture halved in size (its own chroma read as the band the mark was written in)',
    async (payload) => {
      const outcome = await check(await resizedPng(embedDwtDct(picture, PAYLOAD_BITS[payload]), 256, 256));
      expect(outcome).toMatchObject({ result: 'found', watermark: { payload, bits_total: PAYLOAD_BITS[payload].length } });
      expect(outcome.confidence).toBeGreaterThanOrEqual(0.8);
      expect(outcome.note).toMatch(/halved in size/);
      expect(outcome.note).toMatch(/soft statistic.*an unmarked picture reaches it at most 1 time in [\d,]+ \(26 payloads and readings tried\)/);
    },
  );

  it('reads SDXL after a JPEG q75 4:2:0 save on the soft statistic, where every hard reading fails', async () => {
    const outcome = await check(await toJpeg(embedDwtDct(picture, PAYLOAD_BITS.sdxl48), 75, '4:2:0'), 'image/jpeg');
    expect(outcome).toMatchObject({ result: 'found', watermark: { payload: 'sdxl48', bits_total: 48 } });
    expect(outcome.note).toMatch(/^Read on the soft statistic .*: \d+\.\d against at most \d+\.\d for the payload's 47 cyclic shifts; an unmarked picture reaches it at most 1 time in [\d,]+ \(18 payloads and readings tried\)\./);
  });

  it("writes the false-alarm figures' counts as toLocaleString('en-GB') does, without Intl", () => {
    // Every whole number to 100,000, and the rounded figures of oneIn (two significant digits)
    // from a thousand past 1e21, where JavaScript's own digits turn to an exponent.
    const counts = Array.from({ length: 100_001 }, (_, n) => n);
    for (let e = 3; e < 40; e++) for (let m = 10; m < 100; m += 7) counts.push(Number(`${m / 10}e${e}`));
    for (const n of counts) expect(grouped(n)).toBe(n.toLocaleString('en-GB'));
    expect(grouped(1.1e21)).toBe('1,100,000,000,000,000,000,000');
  });

  it.each([3, 9, 21])('finds nothing on unmarked pictures (seed %i) halved, cropped or saved as JPEG 4:2:0', async (seed) => {
    const unmarked = syntheticPicture(1024, 768, seed);
    for (const [bytes, type] of [
      [await resizedPng(unmarked, 512, 384), 'image/png'],
      [await croppedPng(unmarked, 25, 13, 973, 726), 'image/png'],
      [await toJpeg(unmarked, 95, '4:2:0'), 'image/jpeg'],
      [await toJpeg(unmarked, 75, '4:2:0'), 'image/jpeg'],
    ] as const) {
      expect((await check(bytes, type)).result).toBe('not_found');
    }
  });
});

describe('invisible_watermark on unmarked pictures', () => {
  it('gives not_found on an unmarked colourful picture', async () => {
    expect(await check(await toPng(syntheticPicture(512, 384, 9)))).toEqual({ result: 'not_found', confidence: 0.8 });
  });

  it.each([
    ['grey', [128, 128, 128]],
    ['warm', [200, 180, 160]],
    ['blue', [40, 90, 200]],
  ] as const)('never counts the constant decode of a flat %s picture', async (_name, rgb) => {
    const flat = flatPicture(512, 512, [...rgb]);
    const pixels = await decodePixels(await toPng(flat));
    const blocks = readBlockBits(pixels);
    // Every block gives the same bit: the all-zero (or all-one) decode that must never count.
    expect(new Set(blocks).size).toBe(1);
    expect(await check(await toPng(flat))).toEqual({ result: 'not_found', confidence: 0.8 });
  });
});

describe('invisible_watermark on pictures it does not read', () => {
  it('gives not_found with a note under 256 x 256 pixels, by area as the reference refuses', async () => {
    const small = await check(await toPng(syntheticPicture(255, 256)));
    expect(small).toEqual({
      result: 'not_found',
      confidence: 0.9,
      note: 'The picture (255 x 256) has fewer pixels than 256 x 256, too few for an invisible watermark to be embedded or read.',
    });
  });

  it('reads a 128 x 512 picture (65,536 pixels: the reference reads it too)', async () => {
    const thin = embedDwtDct(syntheticPicture(128, 512, 4), PAYLOAD_BITS.SDV2);
    expect(await check(await toPng(thin))).toMatchObject({ result: 'found', watermark: { payload: 'SDV2', bits_matched: 32 } });
  });

  it('gives not_found with a note past 2048 x 2048 pixels, without decoding it', async () => {
    expect(MAX_WATERMARK_PIXELS).toBe(2048 * 2048);
    const big = await sharp({ create: { width: 2049, height: 2048, channels: 3, background: { r: 90, g: 120, b: 200 } } }).png({ compressionLevel: 1 }).toBuffer();
    const outcome = await check(new Uint8Array(big));
    expect(outcome).toEqual({
      result: 'not_found',
      confidence: 0.5,
      note: 'The picture (2049 x 2048) has more pixels than 2048 x 2048, larger than generators that embed this watermark write, so it was not read.',
    });
    // The largest picture still read: 2048 x 2048, marked, is found.
    const largest = embedDwtDct(syntheticPicture(2048, 2048, 9), PAYLOAD_BITS.sdxl48);
    expect(await check(await toPng(largest))).toMatchObject({ result: 'found', watermark: { payload: 'sdxl48', bits_matched: 48 } });
  });

  it('gives unavailable, with a reason, on a PNG cut off before its end', async () => {
    const png = await toPng(syntheticPicture(300, 300));
    const outcome = await check(png.slice(0, Math.floor(png.length * 0.6)));
    expect(outcome).toEqual({ result: 'unavailable', confidence: 0, reason: `${DAMAGED_PREFIX}the PNG ends before its last chunk (IEND).` });
  });

  it('gives unavailable, with a reason, on a PNG whose header is broken', async () => {
    const png = await toPng(syntheticPicture(300, 300));
    png[16] = 0xff; // IHDR width: 4 billion-odd pixels wide, and its CRC no longer matches
    const outcome = await check(png);
    expect(outcome.result).toBe('unavailable');
    expect(outcome.confidence).toBe(0);
    expect(outcome.reason!.startsWith(DAMAGED_PREFIX)).toBe(true);
  });
});

describe('dwtDct arithmetic, as the reference computes it', () => {
  it('U plane equals cv2.cvtColor(COLOR_BGR2YUV) on 8-bit samples (values from OpenCV 4.6)', () => {
    // Pixels in RGB order; cv2 was given the same colours in BGR.
    const rgb = [[0, 0, 0], [255, 255, 255], [0, 0, 255], [255, 0, 0], [0, 255, 0], [77, 200, 12], [250, 13, 200], [128, 128, 128], [3, 2, 1], [255, 0, 255]];
    const pixels: RawPixels = { width: rgb.length, height: 1, channels: 3, data: Uint8Array.from(rgb.flat()) };
    expect([...opencvUPlane(pixels, rgb.length, 1)]).toEqual([128, 128, 239, 91, 54, 64, 175, 128, 128, 202]);
  });

  it('U plane ignores alpha and can take red as the encoder’s blue', () => {
    const pixels: RawPixels = { width: 1, height: 1, channels: 4, data: Uint8Array.from([0, 0, 255, 7]) };
    expect([...opencvUPlane(pixels, 1, 1, 'bgr')]).toEqual([239]);
    expect([...opencvUPlane(pixels, 1, 1, 'rgb')]).toEqual([91]);
  });

  it('a block reads bit 1 when its largest coefficient (top-left excluded) is past 18 mod 36', () => {
    // An 8x8 plane is one block. pywt.dwt2 of uint8 (3 * i) % 251 gives LL whose largest
    // coefficient (bottom-right) is 351.0: 351 mod 36 = 27 > 18, so bit 1.
    const plane = Uint8Array.from({ length: 64 }, (_, i) => (3 * i) % 251);
    expect([...blockBits(plane, 8, 1, 1)]).toEqual([1]);
    // Every coefficient 2 * 137 = 274 (mod 36 = 22): bit 1; 2 * 128 = 256 (mod 36 = 4): bit 0,
    // the flat picture's all-zero decode.
    expect([...blockBits(new Uint8Array(64).fill(137), 8, 1, 1)]).toEqual([1]);
    expect([...blockBits(new Uint8Array(64).fill(128), 8, 1, 1)]).toEqual([0]);
  });

  it('the top-left coefficient is never read', () => {
    const plane = new Uint8Array(64).fill(128); // LL 256 everywhere: bit 0
    // Top-left LL cell at 2 * 137 = 274 (bit 1 if it were read): ignored.
    for (const [x, y] of [[0, 0], [1, 0], [0, 1], [1, 1]]) plane[y * 8 + x] = 137;
    expect([...blockBits(plane, 8, 1, 1)]).toEqual([0]);
    // The same cell one to the right is read.
    const next = new Uint8Array(64).fill(128);
    for (const [x, y] of [[2, 0], [3, 0], [2, 1], [3, 1]]) next[y * 8 + x] = 137;
    expect([...blockBits(next, 8, 1, 1)]).toEqual([1]);
  });

  it('undoes the decoders\' fancy 4:2:0 upsampling: the stored samples come back from the 2x2 means', () => {
    const cw = 12;
    const ch = 10;
    const stored = Float64Array.from({ length: cw * ch }, (_, i) => 100 + ((i * 37) % 53));
    // The triangle filter of libjpeg-turbo's and libwebp's upsamplers, edge samples repeated.
    const at = (x: number, y: number) => stored[Math.min(ch - 1, Math.max(0, y)) * cw + Math.min(cw - 1, Math.max(0, x))]!;
    const plane = new Float64Array(4 * cw * ch);
    for (let y = 0; y < 2 * ch; y++) {
      for (let x = 0; x < 2 * cw; x++) {
        const kx = x >> 1;
        const ky = y >> 1;
        const nx = x & 1 ? kx + 1 : kx - 1;
        const ny = y & 1 ? ky + 1 : ky - 1;
        plane[y * 2 * cw + x] = (9 * at(kx, ky) + 3 * at(nx, ky) + 3 * at(kx, ny) + at(nx, ny)) / 16;
      }
    }
    const ll = llBeforeUpsampling(plane, cw, ch);
    for (let i = 0; i < stored.length; i++) expect(ll[i]).toBeCloseTo(2 * stored[i]!, 9);
  });

  it('block grid: the reference reads col//8 x row//8 blocks', () => {
    expect(blockGrid(517, 389)).toEqual({ wide: 64, high: 48 });
    expect(blockGrid(7, 4096)).toEqual({ wide: 0, high: 512 });
  });

  it('votes: block n for bit n mod L; a half-and-half bit is 1 (0.5 * 255 > 127); a bit without votes is 0', () => {
    expect([...voteBits(Uint8Array.from([1, 0, 0, 1, 1, 0]), 3)]).toEqual([1, 1, 0]);
    expect([...voteBits(Uint8Array.from([1, 0]), 4)]).toEqual([1, 0, 0, 0]);
  });

  it('EXIF orientation turns pixels as sharp (and cv2.imread) do, for all eight values', async () => {
    const picture: Picture = syntheticPicture(6, 4, 2);
    const stored: RawPixels = { width: 6, height: 4, channels: 3, data: picture.data };
    for (let orientation = 1; orientation <= 8; orientation++) {
      const png = await sharp(picture.data, { raw: { width: 6, height: 4, channels: 3 } }).png().withMetadata({ orientation }).toBuffer();
      const upright = await sharp(png).rotate().raw().toBuffer({ resolveWithObject: true });
      const ours = orientPixels(stored, orientation);
      expect([ours.width, ours.height]).toEqual([upright.info.width, upright.info.height]);
      expect(Buffer.from(ours.data).equals(upright.data), `orientation ${orientation}`).toBe(true);
    }
  });
});

describe('payload bits', () => {
  let sdxlHex = '';
  beforeAll(() => {
    sdxlHex = BigInt('0b' + [...PAYLOAD_BITS.sdxl48].join('')).toString(16);
  });

  it('sdxl48 is generative-models’ WATERMARK_MESSAGE 0xB3EC907BB19E', () => {
    expect(sdxlHex).toBe('b3ec907bb19e');
  });

  it('byte payloads are the UTF-8 bytes, most significant bit first (numpy.unpackbits)', () => {
    expect([...PAYLOAD_BITS.SDV2.slice(0, 8)]).toEqual([0, 1, 0, 1, 0, 0, 1, 1]); // 'S' = 0x53
    expect(PAYLOAD_BITS.StableDiffusionV1.length).toBe(136);
    expect(PAYLOAD_BITS['StableDiffusionV1-Inpainting'].length).toBe(224);
    expect(PAYLOAD_BITS.InvokeAI.length).toBe(64);
  });
});
