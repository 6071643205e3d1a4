// The invisible_watermark check's fast kernels (issue 32) against the plain forms the reference
// arithmetic was first pinned on (test/invisible-watermark.test.ts holds those forms to OpenCV's
// and pywt's values): the cell sums and integer block rule (dwt-dct-cells.ts, blockBitsFromSums)
// against blockBits(opencvUPlane(...)) in pywt's doubles; the unsmoothed reading from the sums
// against the float pipeline (opencvUPlane, llBeforeUpsampling); the crop search's row counts
// against a block-by-block count; the header's EXIF orientation against sharp's; the
// displacement reading's kernels against displacementSoft, double for double.
import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import type { WatermarkPayload } from '../src/types.js';
import { bestAlignment, readAllPhases, type PhaseReading } from '../src/media/dwt-dct-crop.js';
import { cellSums } from '../src/media/dwt-dct-cells.js';
import { blockBits, blockBitsFromSums, blockGrid, readBlockBits, readBlockBitsBeforeUpsampling, unsmoothedBitsFromSums } from '../src/media/dwt-dct.js';
import { WasmReadings, wasmDisplacementSoft, wasmRemainder36 } from '../src/media/dwt-dct-wasm.js';
import { displacementSoft } from '../src/media/dwt-dct-displacement.js';
import { llFromSums } from '../src/media/chroma-upsampling.js';
import { chromaSubsampled } from '../src/media/chroma-sampling.js';
import { exifOrientation } from '../src/media/exif-orientation.js';
import { opencvUPlane } from '../src/media/opencv-yuv.js';
import { readPixelHeader, type RawPixels } from '../src/media/pixels.js';

/** Pictures wide enough that a phase's rows are longer than SDXL's 48-bit message (the
 * alignment's per-row counts). */
const widePictures = fc.record({ width: fc.integer({ min: 400, max: 600 }), height: fc.integer({ min: 16, max: 48 }), seed: fc.integer() }).map(({ width, height, seed }): RawPixels => {
  const data = new Uint8Array(width * height * 3);
  let state = seed >>> 0;
  for (let i = 0; i < data.length; i++) data[i] = (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24;
  return { width, height, channels: 3, data };
});

/** Pictures of many block rows (the alignment kernel sums rows a period of the widths apart once):
 * SDXL's 48 bits over the check's widths repeat every 6 rows, the byte payloads' every 4 to 17. */
const tallPictures = fc.record({ width: fc.integer({ min: 200, max: 600 }), height: fc.integer({ min: 80, max: 320 }), seed: fc.integer() }).map(({ width, height, seed }): RawPixels => {
  const data = new Uint8Array(width * height * 3);
  let state = seed >>> 0;
  for (let i = 0; i < data.length; i++) data[i] = (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24;
  return { width, height, channels: 3, data };
});

/** Pictures of random size and channels, their samples either free or from a palette of a few
 * colours: flat regions give 2x2 sums that are multiples of 36 (the blocks exactBit decides). */
const pictures = fc
  .record({
    width: fc.integer({ min: 8, max: 72 }),
    height: fc.integer({ min: 8, max: 72 }),
    channels: fc.constantFrom(3 as const, 4 as const),
    palette: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 3, maxLength: 12 }),
    free: fc.boolean(),
    seed: fc.integer(),
  })
  .map(({ width, height, channels, palette, free, seed }): RawPixels => {
    const data = new Uint8Array(width * height * channels);
    let state = seed >>> 0;
    const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 8);
    for (let p = 0; p < width * height; p++) {
      const colour = (next() % Math.floor(palette.length / 3)) * 3;
      for (let c = 0; c < channels; c++) data[p * channels + c] = free ? next() & 255 : palette[(colour + c) % palette.length]!;
    }
    return { width, height, channels, data };
  });

describe('the fast dwtDct kernels read what the plain forms read', () => {
  it('block bits from the cell sums equal blockBits on the U plane, for both channel orders', () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const { wide, high } = blockGrid(pixels.width, pixels.height);
        const sums = cellSums(pixels);
        for (const order of ['bgr', 'rgb'] as const) {
          const plain = blockBits(opencvUPlane(pixels, wide * 8, high * 8, order), wide * 8, wide, high);
          expect([...blockBitsFromSums(pixels, order, sums[order], sums.cellsWide)]).toEqual([...plain]);
          expect([...readBlockBits(pixels, order)]).toEqual([...plain]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the blocks whose largest sum is a multiple of 36 follow pywt’s doubles, not the integer rule', () => {
    // A picture of one colour, its U = u: every 2x2 sum is 4u, a multiple of 36 for these u,
    // where the doubles (a few ulps off sum / 2) decide.
    for (const u of [63, 72, 117, 126, 135, 144, 189, 198]) {
      let found: number[] | undefined;
      for (let b = 0; b < 256 && !found; b++) {
        for (let r = 0; r < 256 && !found; r++) {
          const pixels = { width: 1, height: 1, channels: 3 as const, data: Uint8Array.of(r, 128, b) };
          if (opencvUPlane(pixels, 1, 1)[0] === u) found = [r, 128, b];
        }
      }
      expect(found, `a colour with U = ${u}`).toBeDefined();
      const data = new Uint8Array(16 * 16 * 3);
      for (let p = 0; p < 256; p++) data.set(found!, p * 3);
      const pixels: RawPixels = { width: 16, height: 16, channels: 3, data };
      expect([...readBlockBits(pixels)]).toEqual([...blockBits(opencvUPlane(pixels, 16, 16), 16, 2, 2)]);
    }
  });

  it('the unsmoothed reading from the cell sums equals the float pipeline’s', () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        expect([...unsmoothedBitsFromSums(pixels, cellSums(pixels).bgr)]).toEqual([...readBlockBitsBeforeUpsampling(pixels)]);
      }),
      { numRuns: 200 },
    );
  });
});

/** bestAlignment's first form: every block counted for every original width. */
function alignmentByBlocks(reading: PhaseReading, message: Uint8Array, wides: readonly number[], minMatched: number) {
  const L = message.length;
  let best: { matched: number; originalWide: number; firstBit: number } | undefined;
  const seen = new Set<number>();
  for (const originalWide of wides) {
    if (originalWide < reading.wide || seen.has(originalWide % L)) continue;
    seen.add(originalWide % L);
    const ones = new Array<number>(L).fill(0);
    const votes = new Array<number>(L).fill(0);
    for (let by = 0, n = 0; by < reading.high; by++) {
      for (let bx = 0; bx < reading.wide; bx++, n++) {
        const k = (by * originalWide + bx) % L;
        ones[k] += reading.bits[n]!;
        votes[k]++;
      }
    }
    const decided = ones.map((o, k) => (votes[k]! > 0 && (o / votes[k]!) * 255 > 127 ? 1 : 0));
    for (let first = 0; first < L; first++) {
      let missed = 0;
      for (let k = 0; k < L; k++) if (decided[k] !== message[(k + first) % L]) missed++;
      if (missed <= L - minMatched && (!best || L - missed > best.matched)) best = { matched: L - missed, originalWide, firstBit: first };
    }
  }
  return best;
}

describe('the crop search counts votes as block by block', () => {
  it('bestAlignment equals the block-by-block count, for rows wider and narrower than the message', () => {
    const readings = fc.record({
      wide: fc.integer({ min: 1, max: 90 }),
      high: fc.integer({ min: 1, max: 30 }),
      seed: fc.integer(),
      bias: fc.double({ min: 0.2, max: 0.8, noNaN: true }),
    });
    fc.assert(
      fc.property(readings, fc.constantFrom('sdxl48', 'SDV2', 'InvokeAI') as fc.Arbitrary<'sdxl48' | 'SDV2' | 'InvokeAI'>, ({ wide, high, seed, bias }, payload) => {
        const message = PAYLOAD_BITS[payload];
        let state = seed >>> 0;
        const bits = new Uint8Array(wide * high);
        // Half the pictures carry the message (so that alignments pass), half are noise.
        const marked = (seed & 1) === 0;
        const originalWide = wide + (seed >>> 3) % 40;
        for (let by = 0, n = 0; by < high; by++) {
          for (let bx = 0; bx < wide; bx++, n++) {
            state = (Math.imul(state, 1103515245) + 12345) >>> 0;
            const noise = (state >>> 8) / 16777216 < bias ? 1 : 0;
            bits[n] = marked && (state & 7) !== 0 ? message[(by * originalWide + bx + 5) % message.length]! : noise;
          }
        }
        const reading: PhaseReading = { phaseX: 0, phaseY: 0, wide, high, bits, lattice: 0 };
        const wides = [originalWide, originalWide + 8, 64, 96, 128];
        const threshold = Math.ceil(message.length * 0.7);
        expect(bestAlignment(reading, message, wides, threshold)).toEqual(alignmentByBlocks(reading, message, wides, threshold));
      }),
      { numRuns: 300 },
    );
  });
});

describe('EXIF orientation from the header bytes', () => {
  const base = () => sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 200, g: 40, b: 90 } } });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('a JPEG with orientation %i reads as sharp reads it', async (orientation) => {
    const bytes = new Uint8Array(await base().jpeg().withMetadata({ orientation }).toBuffer());
    expect(exifOrientation(bytes, 'image/jpeg')).toBe(orientation);
    expect((await readPixelHeader(bytes)).orientation).toBe(orientation);
  });

  it('a JPEG without EXIF is upright; a PNG without EXIF too', async () => {
    expect(exifOrientation(new Uint8Array(await base().jpeg().toBuffer()), 'image/jpeg')).toBe(1);
    expect(exifOrientation(new Uint8Array(await base().png().toBuffer()), 'image/png')).toBe(1);
  });

  it('leaves to libvips what it cannot read beyond doubt: two Exif segments, damaged EXIF, a PNG with EXIF', async () => {
    const jpeg = new Uint8Array(await base().jpeg().withMetadata({ orientation: 6 }).toBuffer());
    // The Exif APP1 twice: which one libvips keeps is its business.
    const app1Start = 2;
    const app1Length = ((jpeg[4]! << 8) | jpeg[5]!) + 2;
    expect(jpeg[3]).toBe(0xe1);
    const twice = new Uint8Array([...jpeg.subarray(0, app1Start + app1Length), ...jpeg.subarray(app1Start, app1Start + app1Length), ...jpeg.subarray(app1Start + app1Length)]);
    expect(exifOrientation(twice, 'image/jpeg')).toBeUndefined();
    // The TIFF byte-order mark broken.
    const damaged = jpeg.slice();
    damaged[12] = 0x00;
    expect(exifOrientation(damaged, 'image/jpeg')).toBeUndefined();
    const png = new Uint8Array(await base().png().withMetadata({ orientation: 6 }).toBuffer());
    expect(exifOrientation(png, 'image/png')).toBeUndefined();
    expect((await readPixelHeader(png)).orientation).toBe(6);
    expect(exifOrientation(new Uint8Array(8), 'image/webp')).toBeUndefined();
  });
});

describe('the WebAssembly kernels read what the plain forms read', () => {
  it('reference, swapped and unsmoothed block bits equal the JavaScript forms, bit for bit', () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const sums = cellSums(pixels);
        const wasm = new WasmReadings(pixels);
        expect([...wasm.reference()]).toEqual([...blockBitsFromSums(pixels, 'bgr', sums.bgr, sums.cellsWide)]);
        expect([...wasm.swapped()]).toEqual([...blockBitsFromSums(pixels, 'rgb', sums.rgb, sums.cellsWide)]);
        expect([...wasm.unsmoothed()]).toEqual([...unsmoothedBitsFromSums(pixels, sums.bgr)]);
      }),
      { numRuns: 300 },
    );
  });

  it('the unsmoothed coefficients are the same doubles as llFromSums’ (not merely the same bits)', () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const sums = cellSums(pixels);
        const wasm = new WasmReadings(pixels);
        wasm.unsmoothed();
        const ll = llFromSums(sums.bgr, sums.cellsWide, sums.cellsHigh);
        expect([...wasm.coefficientsForTest()]).toEqual([...ll]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('the kernels’ remainder mod 36', () => {
  it('equals JavaScript’s % on multiples of 36 and their neighbours a few ulps away, and on any double', () => {
    const near: number[] = [];
    for (let k = 0; k < 3000; k += 7) {
      let x = 36 * k;
      near.push(x);
      for (let i = 0; i < 4; i++) {
        x = nextDown(x);
        near.push(x);
      }
      x = 36 * k;
      for (let i = 0; i < 4; i++) {
        x = nextUp(x);
        near.push(x);
      }
      near.push(36 * k + 18, nextDown(36 * k + 18), nextUp(36 * k + 18));
    }
    for (const x of near) expect(wasmRemainder36(x), String(x)).toBe(x % 36);
    fc.assert(fc.property(fc.double({ min: 0, max: 2 ** 20, noNaN: true }), (x) => wasmRemainder36(x) === x % 36), { numRuns: 5000 });
  });
});

/** The next double above / below a positive `x`. */
function nextUp(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}
function nextDown(x: number): number {
  if (x === 0) return 0;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

describe('the WebAssembly crop search reads what the JavaScript one reads', () => {
  const wides = Array.from({ length: 17 }, (_, i) => 64 + 8 * i);
  const payloads = fc.constantFrom(...(['sdxl48', 'SDV2', 'InvokeAI', 'StableDiffusionV1'] as const));
  /** Every grid phase's bits and lattice equal, in the same order, and the same best alignments
   * (every seventh phase) at a threshold of `share` % of the message's bits. */
  const sameCropSearch = (pixels: RawPixels, payload: WatermarkPayload, share: number) => {
    const wasm = new WasmReadings(pixels);
    const ours = wasm.phases();
    const theirs = readAllPhases(pixels);
    expect(ours.map(({ phaseX, phaseY, wide, high, bits, lattice }) => ({ phaseX, phaseY, wide, high, bits: [...bits], lattice }))).toEqual(
      theirs.map(({ phaseX, phaseY, wide, high, bits, lattice }) => ({ phaseX, phaseY, wide, high, bits: [...bits], lattice })),
    );
    const message = PAYLOAD_BITS[payload];
    // Thresholds from none to all of the bits, so that alignments are found and refused.
    const threshold = Math.round((message.length * share) / 100);
    for (let i = 0; i < ours.length; i += 7) {
      expect(wasm.alignment(ours[i]!, message, wides, threshold)).toEqual(bestAlignment(theirs[i]!, message, wides, threshold));
      expect(wasm.alignment(ours[i]!, message, [1, 2, 3, 5, 8], threshold)).toEqual(bestAlignment(theirs[i]!, message, [1, 2, 3, 5, 8], threshold));
    }
  };

  it('every grid phase’s bits and lattice, in the same order, and the same best alignments', () => {
    fc.assert(fc.property(fc.oneof(pictures, widePictures), payloads, fc.integer({ min: 0, max: 100 }), sameCropSearch), { numRuns: 150 });
  });

  it('on pictures taller than the widths’ period of rows (rows that far apart summed once), the same best alignments', () => {
    fc.assert(fc.property(tallPictures, payloads, fc.integer({ min: 0, max: 100 }), sameCropSearch), { numRuns: 40 });
  });
});

describe('chroma subsampling from the header (the unsmoothed reading only where a decoder upsampled)', () => {
  const base = () => sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 30, g: 140, b: 200 } } });

  it('a 4:2:0 JPEG and a lossy WebP were subsampled; a 4:4:4 JPEG and a lossless WebP were not', async () => {
    expect(chromaSubsampled(new Uint8Array(await base().jpeg({ chromaSubsampling: '4:2:0' }).toBuffer()), 'image/jpeg')).toBe(true);
    expect(chromaSubsampled(new Uint8Array(await base().jpeg({ chromaSubsampling: '4:4:4' }).toBuffer()), 'image/jpeg')).toBe(false);
    expect(chromaSubsampled(new Uint8Array(await base().webp({ quality: 80 }).toBuffer()), 'image/webp')).toBe(true);
    expect(chromaSubsampled(new Uint8Array(await base().webp({ lossless: true }).toBuffer()), 'image/webp')).toBe(false);
  });

  it('says nothing where the header does not: a grey JPEG, a cut-off one, a PNG', async () => {
    expect(chromaSubsampled(new Uint8Array(await base().toColourspace('b-w').jpeg().toBuffer()), 'image/jpeg')).toBeUndefined();
    const jpeg = new Uint8Array(await base().jpeg().toBuffer());
    expect(chromaSubsampled(jpeg.subarray(0, 20), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(new Uint8Array(await base().png().toBuffer()), 'image/png')).toBeUndefined();
  });
});

/** Whether two arrays hold the same doubles, bit for bit but NaN's payload (Object.is: +0 is not -0). */
function sameDoubles(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

describe('the WebAssembly displacement reading gives the JavaScript form’s doubles (dwt-dct-displacement.ts)', () => {
  it('on the 2x2 sums (scale 0.5) of both channel orders, flat palettes (ties) and free samples, any size', () => {
    fc.assert(
      fc.property(fc.oneof(pictures, widePictures), (pixels) => {
        const { wide, high } = blockGrid(pixels.width, pixels.height);
        const sums = cellSums(pixels);
        const wasm = new WasmReadings(pixels);
        for (const order of ['bgr', 'rgb'] as const) {
          const ours = wasm.sumDisplacement(order);
          const theirs = displacementSoft(sums[order], sums.cellsWide, wide, high, 0.5);
          expect(sameDoubles(ours.uint8, theirs.uint8) && sameDoubles(ours.float32, theirs.float32)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('on the unsmoothed coefficients of both channel orders', () => {
    fc.assert(
      fc.property(fc.oneof(pictures, widePictures), (pixels) => {
        const { wide, high } = blockGrid(pixels.width, pixels.height);
        const sums = cellSums(pixels);
        const wasm = new WasmReadings(pixels);
        for (const order of ['bgr', 'rgb'] as const) {
          wasm.unsmoothed(order);
          const ours = wasm.unsmoothedDisplacement();
          const theirs = displacementSoft(llFromSums(sums[order], sums.cellsWide, sums.cellsHigh), sums.cellsWide, wide, high);
          expect(sameDoubles(ours.uint8, theirs.uint8) && sameDoubles(ours.float32, theirs.float32)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('on any coefficients: negative ones (JavaScript’s % keeps the sign), means across FLOAT_CENTRE, ties, bands wider than the blocks', () => {
    const bands = fc
      .record({
        wide: fc.integer({ min: 1, max: 12 }),
        high: fc.integer({ min: 1, max: 6 }),
        extraX: fc.integer({ min: 0, max: 5 }),
        extraY: fc.integer({ min: 0, max: 5 }),
        values: fc.constantFrom('free', 'few', 'integers'),
        seed: fc.integer(),
      })
      .map(({ wide, high, extraX, extraY, values, seed }) => {
        const stride = wide * 4 + extraX;
        const ll = new Float64Array(stride * (high * 4 + extraY));
        let state = seed >>> 0;
        const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
        // Around FLOAT_CENTRE (255) and around 0, free doubles, a few levels (ties) or integers.
        const level = next() < 0.5 ? 255 : 0;
        for (let i = 0; i < ll.length; i++) {
          const v = values === 'free' ? 400 * (next() - 0.5) : values === 'few' ? 36 * Math.floor(4 * next()) - 50 : Math.round(200 * (next() - 0.5));
          ll[i] = level + v;
        }
        return { ll, stride, wide, high };
      });
    fc.assert(
      fc.property(bands, ({ ll, stride, wide, high }) => {
        const ours = wasmDisplacementSoft(ll, stride, wide, high);
        const theirs = displacementSoft(ll, stride, wide, high);
        expect(sameDoubles(ours.uint8, theirs.uint8) && sameDoubles(ours.float32, theirs.float32)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
