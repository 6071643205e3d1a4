// The soft reading of the dwtDct mark (issue 39: src/media/dwt-dct-soft.ts) against plain forms
// written here from its definition: block peaks from the U plane in doubles, the half-size
// reading from the plane pixel by pixel, the class statistic from its formula; the crop search
// recovers a planted hypothesis; and the false-alarm bound the check states (P(T >= t) <=
// exp(-t^2 / 2) for a payload unrelated to the picture) holds on random payloads over real block
// values. WasmReadings' swapped unsmoothed reading, its grid phases' block phases, class sums and
// soft crop search against the JavaScript forms, to the last bit of every double.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { cellSums } from '../src/media/dwt-dct-cells.js';
import {
  bitsOfPhases,
  classDirection,
  cropSoftEvidence,
  halfSizePhases,
  phaseSumPhases,
  softEvidence,
  softOfPhases,
  softScore,
  sumPhases,
  SOFT_OF_SUM,
} from '../src/media/dwt-dct-soft.js';
import { blockBitsFromSums, blockGrid, unsmoothedBitsFromSums } from '../src/media/dwt-dct.js';
import { WasmReadings } from '../src/media/dwt-dct-wasm.js';
import { opencvUPlane } from '../src/media/opencv-yuv.js';
import type { RawPixels } from '../src/media/pixels.js';
import { WATERMARK_PAYLOADS } from '../src/types.js';
import { embedDwtDct, syntheticPicture } from './helpers/dwt-dct-encoder.js';

const pictures = fc.record({ width: fc.integer({ min: 16, max: 120 }), height: fc.integer({ min: 16, max: 90 }), channels: fc.constantFrom(3, 4), seed: fc.integer() }).map(({ width, height, channels, seed }): RawPixels => {
  const data = new Uint8Array(width * height * channels);
  let state = seed >>> 0;
  for (let i = 0; i < data.length; i++) data[i] = (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24;
  return { width, height, channels, data };
});

/** The largest LL value (2x2 sum of U / 2) of each block but the first, in doubles, from the plane. */
function plainPeaks(plane: Uint8Array, width: number, x0: number, y0: number, wide: number, high: number): number[] {
  const peaks: number[] = [];
  for (let by = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++) {
      let best = -1;
      for (let i = 1; i < 16; i++) {
        const x = x0 + bx * 8 + (i & 3) * 2;
        const y = y0 + by * 8 + (i >> 2) * 2;
        const ll = (plane[y * width + x]! + plane[y * width + x + 1]! + plane[(y + 1) * width + x]! + plane[(y + 1) * width + x + 1]!) / 2;
        best = Math.max(best, ll);
      }
      peaks.push(best);
    }
  }
  return peaks;
}

describe('soft block values', () => {
  it('SOFT_OF_SUM is -sin(2 pi LL / 36) of LL = sum / 2: +1 at bit 1 (LL 27), -1 at bit 0 (LL 9)', () => {
    expect(SOFT_OF_SUM[54]).toBeCloseTo(1, 12);
    expect(SOFT_OF_SUM[18]).toBeCloseTo(-1, 12);
    for (let s = 0; s < 72; s++) expect(SOFT_OF_SUM[s]).toBeCloseTo(-Math.sin((2 * Math.PI * (s / 2)) / 36), 12);
  });

  it('sumPhases: each block peak (top-left excluded) as the plain LL in doubles gives it, mod 72 of twice it', () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const sums = cellSums(pixels);
        const { wide, high } = blockGrid(pixels.width, pixels.height);
        const phases = sumPhases(sums.bgr, sums.cellsWide, wide, high);
        const plane = opencvUPlane(pixels, pixels.width, pixels.height);
        const peaks = plainPeaks(plane, pixels.width, 0, 0, wide, high);
        expect(Array.from(phases)).toEqual(peaks.map((ll) => (2 * ll) % 72));
        // The hard bits are the reference's wherever its doubles do not sit on 18 (mod 36).
        const reference = blockBitsFromSums(pixels, 'bgr', sums.bgr, sums.cellsWide);
        const bits = bitsOfPhases(phases);
        for (let n = 0; n < bits.length; n++) if (phases[n] !== 0 && phases[n] !== 36) expect(bits[n]).toBe(reference[n]);
      }),
      { numRuns: 40 },
    );
  });

  it('halfSizePhases: the picture U plane read as the LL band (LL = 2 U), 4x4 pixels a block', () => {
    fc.assert(
      fc.property(pictures, fc.constantFrom('bgr' as const, 'rgb' as const), (pixels, order) => {
        const plane = opencvUPlane(pixels, pixels.width, pixels.height, order);
        const wide = pixels.width >> 2;
        const high = pixels.height >> 2;
        const expected: number[] = [];
        for (let by = 0; by < high; by++) {
          for (let bx = 0; bx < wide; bx++) {
            let best = -1;
            for (let i = 1; i < 16; i++) best = Math.max(best, 2 * plane[(by * 4 + (i >> 2)) * pixels.width + bx * 4 + (i & 3)]!);
            expected.push((2 * best) % 72);
          }
        }
        expect(Array.from(halfSizePhases(pixels, order))).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('phaseSumPhases: the blocks of a shifted grid, as plainPeaks reads them from (phaseX, phaseY)', () => {
    fc.assert(
      fc.property(pictures, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 }), (pixels, phaseX, phaseY) => {
        const plane = opencvUPlane(pixels, pixels.width, pixels.height);
        const { wide, high, phases } = phaseSumPhases(plane, pixels.width, pixels.height, phaseX, phaseY);
        expect(wide).toBe(Math.floor((pixels.width - phaseX) / 8));
        expect(high).toBe(Math.floor((pixels.height - phaseY) / 8));
        expect(Array.from(phases)).toEqual(plainPeaks(plane, pixels.width, phaseX, phaseY, wide, high).map((ll) => (2 * ll) % 72));
      }),
      { numRuns: 40 },
    );
  });

  it('WasmReadings gives the JavaScript forms\' block phases: sumPhases for both orders, halfSizePhases', () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const sums = cellSums(pixels);
        const { wide, high } = blockGrid(pixels.width, pixels.height);
        const readings = new WasmReadings(pixels);
        for (const order of ['bgr', 'rgb'] as const) {
          expect(readings.sumPhases(order)).toEqual(sumPhases(sums[order], sums.cellsWide, wide, high));
          expect(readings.halfSizePhases(order)).toEqual(halfSizePhases(pixels, order));
        }
      }),
      { numRuns: 40 },
    );
  });

  it("WasmReadings' phaseSums of every grid phase are phaseSumPhases at that phase, its bits their hard reading", () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const readings = new WasmReadings(pixels);
        const plane = opencvUPlane(pixels, pixels.width, pixels.height);
        for (const phase of readings.phases()) {
          const plain = phaseSumPhases(plane, pixels.width, pixels.height, phase.phaseX, phase.phaseY);
          expect([phase.wide, phase.high]).toEqual([plain.wide, plain.high]);
          expect(readings.phaseSums(phase)).toEqual(plain.phases);
          expect(phase.bits).toEqual(bitsOfPhases(plain.phases));
        }
      }),
      { numRuns: 20 },
    );
  });

  it("WasmReadings reads the swapped order's unsmoothed bits as the JavaScript form does", () => {
    fc.assert(
      fc.property(pictures, (pixels) => {
        const sums = cellSums(pixels);
        expect(new WasmReadings(pixels).unsmoothed('rgb')).toEqual(unsmoothedBitsFromSums(pixels, sums.rgb));
      }),
      { numRuns: 20 },
    );
  });
});

describe('the class statistic', () => {
  const plus = (bits: ArrayLike<number>) => Array.from(bits, (b) => 2 * b - 1);

  it('classDirection is the class means centred (per bit of a byte for byte payloads) and of unit length', () => {
    const soft = Float64Array.from({ length: 1000 }, (_, n) => Math.sin(n * 0.7) + (n % 8) * 0.1);
    for (const [L, bytes] of [[48, false], [64, true], [136, true]] as const) {
      const d = classDirection(soft, L, bytes);
      const means = Array.from({ length: L }, (_, k) => {
        const values = Array.from(soft).filter((_, n) => n % L === k);
        return values.reduce((a, b) => a + b, 0) / values.length;
      });
      const period = bytes ? 8 : 1;
      const centred = means.map((m, k) => m - means.filter((_, j) => j % period === k % period).reduce((a, b) => a + b, 0) / (L / period));
      const norm = Math.hypot(...centred);
      d.forEach((v, k) => expect(v).toBeCloseTo(centred[k]! / norm, 12));
    }
  });

  /** The largest T: the payload as +-1, centred (its ones and zeros are not even), its length. */
  const ceiling = (bits: ArrayLike<number>) => {
    const p = plus(bits);
    const mean = p.reduce((a, b) => a + b, 0) / p.length;
    return Math.hypot(...p.map((v) => v - mean));
  };

  it('T is the correlation with the payload as +-1: its ceiling (sqrt(L) less its imbalance) when every block carries its bit', () => {
    const bits = PAYLOAD_BITS.sdxl48;
    const soft = Float64Array.from({ length: 48 * 50 }, (_, n) => 2 * bits[n % 48]! - 1);
    const d = classDirection(soft, 48);
    expect(ceiling(bits)).toBeGreaterThan(6.8);
    expect(softScore(d, bits)).toBeCloseTo(ceiling(bits), 9);
    const { t, nullMax } = softEvidence(d, bits, true);
    expect(t).toBeCloseTo(ceiling(bits), 9);
    expect(nullMax).toBeLessThan(t);
    // A shift by j reads class k against bit k + j.
    const p = plus(bits);
    expect(softScore(d, bits, 5)).toBeCloseTo(d.reduce((sum, v, k) => sum + v * p[(k + 5) % 48]!, 0), 12);
  });

  it('an unmarked picture: over 20,000 random payloads, T >= t as often as exp(-t^2 / 2) allows, or less', () => {
    // Real block values of an unmarked picture (its structure included), random 48-bit payloads.
    const pixels: RawPixels = { ...syntheticPicture(512, 512, 11), channels: 3 };
    const sums = cellSums(pixels);
    const soft = softOfPhases(sumPhases(sums.bgr, sums.cellsWide, 64, 64));
    const d = classDirection(soft, 48);
    let state = 12345;
    const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 31;
    const counts = [0, 0, 0];
    const runs = 20_000;
    for (let i = 0; i < runs; i++) {
      const t = softScore(d, Uint8Array.from({ length: 48 }, random));
      [2, 2.5, 3].forEach((bar, j) => (counts[j]! += t >= bar ? 1 : 0));
    }
    [2, 2.5, 3].forEach((bar, j) => expect(counts[j]! / runs).toBeLessThanOrEqual(Math.exp((-bar * bar) / 2)));
  });

  it('a marked picture reads its payload far above the shifts', () => {
    const picture = syntheticPicture(512, 512, 4);
    const marked = embedDwtDct(picture, PAYLOAD_BITS.InvokeAI);
    const pixels: RawPixels = { ...marked, channels: 3 };
    const sums = cellSums(pixels);
    const d = classDirection(softOfPhases(sumPhases(sums.bgr, sums.cellsWide, 64, 64)), 64, true);
    const { t, nullMax } = softEvidence(d, PAYLOAD_BITS.InvokeAI, false);
    expect(t).toBeGreaterThan(6);
    expect(nullMax).toBeLessThan(3);
  });
});

describe('the soft statistic in the kernels (dwt-dct-wasm.ts) gives the JavaScript forms\' doubles', () => {
  const values = (n: number, seed: number) => {
    let state = seed >>> 0;
    // Phases' soft values, as the readings give them, and now and then a value off the table.
    return Float64Array.from({ length: n }, () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % 7 === 0 ? (state / 2 ** 32) * 2 - 1 : SOFT_OF_SUM[state % 72]!;
    });
  };
  const pixels: RawPixels = { width: 64, height: 64, channels: 3, data: new Uint8Array(64 * 64 * 3) };

  it('softOfPhases: softOfPhases’ doubles and bitsOfPhases’ bits, for every phase and length', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 71 }), { maxLength: 3000 }), (list) => {
        const phases = Uint8Array.from(list);
        const { soft, bits } = new WasmReadings(pixels).softOfPhases(phases);
        const theirs = softOfPhases(phases);
        expect(soft.length === theirs.length && soft.every((v, i) => Object.is(v, theirs[i]))).toBe(true);
        expect([...bits]).toEqual([...bitsOfPhases(phases)]);
      }),
      { numRuns: 100 },
    );
  });

  it('softEvidence: softEvidence of classDirection, T and its shifts’ largest to the last bit (or softScore alone), every payload, centring and side', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1500 }), fc.constantFrom(...WATERMARK_PAYLOADS), fc.boolean(), fc.boolean(), fc.boolean(), fc.integer(), (n, payload, bytes, twoSided, planted, seed) => {
        const bits = PAYLOAD_BITS[payload];
        // Fewer blocks than bits (an empty class: no direction), flat values now and then (all
        // classes alike: none either), and half the readings carrying the payload (T large).
        const soft = seed % 11 === 0 ? new Float64Array(n).fill(0.25) : values(n, seed);
        if (planted) for (let i = 0; i < n; i++) soft[i] = soft[i]! / 4 + 2 * bits[i % bits.length]! - 1;
        const readings = new WasmReadings(pixels);
        const direction = classDirection(soft, bits.length, bytes);
        const ours = readings.softEvidence(soft, bits, bytes, twoSided);
        const theirs = softEvidence(direction, bits, twoSided);
        expect(Object.is(ours.t, theirs.t) && Object.is(ours.nullMax, theirs.nullMax)).toBe(true);
        // T alone (softScore), the shifts left untaken.
        const alone = readings.softEvidence(soft, bits, bytes, twoSided, false);
        expect(Object.is(alone.t, softScore(direction, bits)) && Number.isNaN(alone.nullMax)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('cropSoftEvidence: the same best hypothesis, T to the last bit, and the same count of hypotheses', () => {
    const wides = Array.from({ length: 17 }, (_, i) => 64 + 8 * i);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 30 }), fc.constantFrom(...WATERMARK_PAYLOADS), fc.boolean(), fc.integer(), (wide, high, payload, planted, seed) => {
        const bits = PAYLOAD_BITS[payload];
        const soft = values(wide * high, seed);
        // Half the crops carry the payload (original width 96, first bit 5), so that T is large.
        if (planted) for (let by = 0, n = 0; by < high; by++) for (let bx = 0; bx < wide; bx++, n++) soft[n] = soft[n]! / 4 + 2 * bits[(((by * 96 + bx) % bits.length) + 5) % bits.length]! - 1;
        const sdxl = payload === 'sdxl48';
        const ours = new WasmReadings(pixels).cropSoftEvidence(soft, wide, high, bits, wides, sdxl, !sdxl);
        expect(ours).toEqual(cropSoftEvidence(soft, wide, high, bits, wides, sdxl, !sdxl));
      }),
      { numRuns: 150 },
    );
  });
});

describe('the crop search on the soft statistic', () => {
  it('recovers the original width and first bit planted in a crop', () => {
    const bits = PAYLOAD_BITS.sdxl48;
    const wide = 57;
    const high = 40;
    const originalWide = 96;
    const first = 17;
    const soft = new Float64Array(wide * high);
    for (let by = 0, n = 0; by < high; by++) {
      for (let bx = 0; bx < wide; bx++, n++) soft[n] = 2 * bits[(((by * originalWide + bx) % 48) + first) % 48]! - 1;
    }
    const found = cropSoftEvidence(soft, wide, high, bits, [56, 64, 72, 80, 88, 96, 104, 112], true, false)!;
    expect(found.originalWide % 48).toBe(originalWide % 48);
    expect(found.firstBit).toBe(first);
    const p = Array.from(bits, (b) => 2 * b - 1);
    const mean = p.reduce((a, b) => a + b, 0) / 48;
    expect(found.t).toBeCloseTo(Math.hypot(...p.map((v) => v - mean)), 9);
    // 56 is narrower than the crop; 112 is 64 again mod 48: six widths, 48 first bits, two signs.
    expect(found.tested).toBe(6 * 2 * 48);
  });
});
