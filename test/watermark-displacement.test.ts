// The displacement reading of the dwtDct mark (src/media/dwt-dct-displacement.ts) against its
// definition, and on a constructed LL band whose mark a lossy save shortened (each marked
// coefficient moved only part of the way to 9 or 27 in the period of 36), where the phase of
// the largest coefficient loses the bits and the displacement keeps them; through WasmReadings
// on a real sharp JPEG 4:2:0 decode, the same values as the JavaScript form.
import { describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { displacementSoft, KEPT, SPREAD } from '../src/media/dwt-dct-displacement.js';
import { classDirection, softEvidence, softFromCoefficients } from '../src/media/dwt-dct-soft.js';
import { WasmReadings } from '../src/media/dwt-dct-wasm.js';
import { decodePixels } from '../src/media/pixels.js';
import { embedDwtDct, syntheticPicture, toJpeg } from './helpers/dwt-dct-encoder.js';

/** A deterministic generator in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** An LL band of `wide` x `high` smooth 4x4 blocks (values within 3 of the block's level), block
 * n marked with bit n mod L of `bits` the encoder's way, then only `kept` of each move left, as a
 * lossy save leaves it, and every coefficient off by up to `noise`. */
function shortenedBand(wide: number, high: number, bits: ArrayLike<number>, kept: number, noise: number, seed: number): Float64Array {
  const next = random(seed);
  const stride = wide * 4;
  const ll = new Float64Array(stride * high * 4);
  for (let by = 0, n = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++, n++) {
      const level = 180 + 120 * next();
      let peak = 1;
      for (let i = 0; i < 16; i++) {
        const at = (by * 4 + (i >> 2)) * stride + bx * 4 + (i & 3);
        ll[at] = level + 3 * next();
        if (i > 0 && ll[at]! > ll[(by * 4 + (peak >> 2)) * stride + bx * 4 + (peak & 3)]!) peak = i;
      }
      const at = (by * 4 + (peak >> 2)) * stride + bx * 4 + (peak & 3);
      const v = ll[at]!;
      const target = (Math.floor(v / 36) + 0.25 + 0.5 * bits[n % bits.length]!) * 36;
      ll[at] = v + kept * (target - v);
      // The quantiser's error on every coefficient of the block.
      for (let i = 0; i < 16; i++) ll[(by * 4 + (i >> 2)) * stride + bx * 4 + (i & 3)]! += noise * (2 * next() - 1);
    }
  }
  return ll;
}

describe('the displacement reading (dwt-dct-displacement.ts)', () => {
  it('is tanh((c - w - KEPT (18 - w mod 36)) / SPREAD) of each block\'s largest |coefficient| c and the next w, top-left left out', () => {
    const ll = new Float64Array(4 * 8);
    // One row of two blocks (stride 8): block 0's top-left is the largest but left out.
    const block0 = [500, 200, 210, 205, 201, 202, -230, 203, 199, 198, 197, 196, 195, 194, 193, 192];
    const block1 = [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100];
    for (let i = 0; i < 16; i++) {
      ll[(i >> 2) * 8 + (i & 3)] = block0[i]!;
      ll[(i >> 2) * 8 + 4 + (i & 3)] = block1[i]!;
    }
    const soft = displacementSoft(ll, 8, 2, 1);
    expect(soft[0]).toBeCloseTo(Math.tanh((230 - 210 - KEPT * (18 - (210 % 36))) / SPREAD), 12);
    expect(soft[1]).toBeCloseTo(Math.tanh((0 - KEPT * (18 - (100 % 36))) / SPREAD), 12);
    // scale: sums read as coefficients (half of each).
    expect(displacementSoft(ll.map((v) => 2 * v), 8, 2, 1, 0.5)).toEqual(soft);
  });

  it('keeps a mark whose moves a save shortened to a quarter (and blurred by up to 6), which the phase of the largest coefficient loses', () => {
    const bits = PAYLOAD_BITS.sdxl48;
    const ll = shortenedBand(64, 64, bits, 0.25, 6, 39);
    const phase = softEvidence(classDirection(softFromCoefficients(ll, 256, 64, 64), 48), bits, true);
    const moved = softEvidence(classDirection(displacementSoft(ll, 256, 64, 64), 48), bits, true);
    // The bar for 16 hypotheses at 1 in 1,000 is 4.40 (invisible-watermark-soft.ts).
    // Measured: displacement 5.3 (shifts 2.3), phase 3.8 (shifts 2.6).
    expect(moved.t).toBeGreaterThan(5);
    expect(moved.t).toBeGreaterThan(moved.nullMax + 2);
    expect(Math.abs(phase.t)).toBeLessThan(4.4);
  });

  it('on a band carrying no mark, stays within the bound for random payloads (T >= 3 at most exp(-4.5) of them)', () => {
    const ll = shortenedBand(64, 64, [0], 0, 4, 7);
    const d = classDirection(displacementSoft(ll, 256, 64, 64), 48);
    const next = random(11);
    let over = 0;
    const runs = 5000;
    for (let i = 0; i < runs; i++) {
      const payload = Uint8Array.from({ length: 48 }, () => (next() < 0.5 ? 1 : 0));
      if (softEvidence(d, payload, false).t >= 3) over++;
    }
    expect(over / runs).toBeLessThanOrEqual(Math.exp(-4.5));
  });

  it("WasmReadings' displacement values are the JavaScript form's on the unsmoothed coefficients and on the sums", async () => {
    const pixels = await decodePixels(await toJpeg(embedDwtDct(syntheticPicture(512, 384, 5), PAYLOAD_BITS.InvokeAI), 90, '4:2:0'));
    const readings = new WasmReadings(pixels);
    readings.unsmoothed('rgb');
    const ll = readings.coefficientsForTest();
    expect([...readings.unsmoothedDisplacement()]).toEqual([...displacementSoft(ll, 256, 64, 48)]);
    const { cellSums } = await import('../src/media/dwt-dct-cells.js');
    const sums = cellSums(pixels);
    expect([...readings.sumDisplacement('bgr')]).toEqual([...displacementSoft(sums.bgr, sums.cellsWide, 64, 48, 0.5)]);
  });
});
