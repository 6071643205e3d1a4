// The displacement reading of the dwtDct mark (src/media/dwt-dct-displacement.ts) against its
// definition written plainly, and on a constructed LL band whose mark a lossy save shortened
// (each marked coefficient moved only part of the way to 9 or 27 in the period of 36), where the
// phase of the largest coefficient loses the bits and the displacement keeps them, alone and
// through the check on a PNG carrying that band; through WasmReadings on a sharp JPEG 4:2:0
// decode, the same values as the JavaScript form. (The project's own encoder's marks on the
// synthetic pictures survive a sharp JPEG q95 4:2:0 for the hard readings, and below q95 read
// inverted on the phase, so no JPEG of them is found by this reading alone.)
import { describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { displacementSoft, FLOAT_CENTRE, KEPT, SPREAD } from '../src/media/dwt-dct-displacement.js';
import { classDirection, softEvidence, softFromCoefficients } from '../src/media/dwt-dct-soft.js';
import { WasmReadings } from '../src/media/dwt-dct-wasm.js';
import { decodePixels } from '../src/media/pixels.js';
import { invisibleWatermark } from '../src/detectors/invisible-watermark.js';
import { softFind, type SoftReading } from '../src/detectors/invisible-watermark-soft.js';
import { bitsOfPhases, softOfPhases } from '../src/media/dwt-dct-soft.js';
import { embedDwtDct, syntheticPicture, toJpeg, toPng } from './helpers/dwt-dct-encoder.js';

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

/** An LL band of `wide` x `high` 4x4 blocks over a smooth level (within 3 of it), block n marked
 * with bit n mod L of `bits` the encoder's way, then only `kept` of each move left, as a lossy
 * save leaves it, and every coefficient off by up to `noise`. */
function shortenedBand(wide: number, high: number, bits: ArrayLike<number>, kept: number, noise: number, seed: number, float32 = false): Float64Array {
  const next = random(seed);
  const stride = wide * 4;
  const ll = new Float64Array(stride * high * 4);
  for (let y = 0; y < high * 4; y++) {
    for (let x = 0; x < stride; x++) ll[y * stride + x] = 240 + 60 * Math.sin(x / 23) * Math.cos(y / 17) + 3 * next();
  }
  for (let by = 0, n = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++, n++) {
      const at = (i: number) => (by * 4 + (i >> 2)) * stride + bx * 4 + (i & 3);
      // A float32 encoder sees every coefficient less FLOAT_CENTRE and moves the magnitude of
      // the one of largest magnitude (the sign kept).
      const centre = float32 ? FLOAT_CENTRE : 0;
      let peak = 1;
      for (let i = 2; i < 16; i++) if (Math.abs(ll[at(i)]! - centre) > Math.abs(ll[at(peak)]! - centre)) peak = i;
      const v = ll[at(peak)]! - centre;
      const target = Math.sign(v) * (Math.floor(Math.abs(v) / 36) + 0.25 + 0.5 * bits[n % bits.length]!) * 36;
      ll[at(peak)] = centre + v + kept * (target - v);
    }
  }
  // The quantiser's error on every coefficient.
  for (let i = 0; i < ll.length; i++) ll[i]! += noise * (2 * next() - 1);
  return ll;
}

/** The definition, plainly: the band padded by its edge, each block's coefficient farthest from
 * its eight neighbours' mean. */
function plainDisplacement(ll: Float64Array, stride: number, wide: number, high: number): number[] {
  const rows = ll.length / stride;
  const at = (x: number, y: number) => ll[Math.min(rows - 1, Math.max(0, y)) * stride + Math.min(stride - 1, Math.max(0, x))]!;
  const out: number[] = [];
  for (let by = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++) {
      let best = { far: -1, d: 0, m: 0 };
      for (let i = 1; i < 16; i++) {
        const x = bx * 4 + (i & 3);
        const y = by * 4 + (i >> 2);
        let sum = 0;
        for (const [dx, dy] of [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [0, 1], [1, 1]] as const) sum += at(x + dx, y + dy);
        const m = sum / 8;
        const d = at(x, y) - m;
        if (Math.abs(d) > best.far) best = { far: Math.abs(d), d, m };
      }
      out.push(Math.tanh((best.d - KEPT * (18 - (best.m % 36))) / SPREAD));
    }
  }
  return out;
}

describe('the displacement reading (dwt-dct-displacement.ts)', () => {
  it("is tanh((c - m - KEPT (18 - m mod 36)) / SPREAD) of each block's coefficient c farthest from its neighbours' mean m, top-left left out", () => {
    const ll = shortenedBand(6, 5, PAYLOAD_BITS.SDV2, 0.5, 2, 3);
    const soft = displacementSoft(ll, 24, 6, 5).uint8;
    plainDisplacement(ll, 24, 6, 5).forEach((v, n) => expect(soft[n]).toBeCloseTo(v, 12));
    // Blocks past the grid read their neighbours in the band (5 x 4 blocks of a 6 x 5 band).
    const inner = displacementSoft(ll, 24, 5, 4).uint8;
    expect(inner[6]).toBeCloseTo(soft[7]!, 12);
    // A coefficient moved down past the others is the one read: bit 0 from a level of 200 (r = 20).
    const flat = new Float64Array(16 * 4).fill(200);
    flat[1 * 16 + 2] = 200 - 11;
    expect(displacementSoft(flat, 16, 4, 1).uint8[0]).toBeCloseTo(Math.tanh((-11 - KEPT * (18 - 20)) / SPREAD), 12);
    expect(displacementSoft(flat, 16, 4, 1).uint8[0]).toBeLessThan(-0.8);
    // scale: 2x2 sums read as coefficients (half of each).
    expect([...displacementSoft(ll.map((v) => 2 * v), 24, 6, 5, 0.5).uint8]).toEqual([...soft]);
  });

  it('keeps a mark whose moves a save shortened to a quarter (and blurred by up to 6), which the phase of the largest coefficient loses', () => {
    const bits = PAYLOAD_BITS.sdxl48;
    const ll = shortenedBand(64, 64, bits, 0.25, 6, 39);
    const phase = softEvidence(classDirection(softFromCoefficients(ll, 256, 64, 64), 48), bits, true);
    const moved = softEvidence(classDirection(displacementSoft(ll, 256, 64, 64).uint8, 48), bits, true);
    // The bar for 16 hypotheses at 1 in 1,000 is 4.40 (invisible-watermark-soft.ts).
    // Measured: displacement 4.6 (its shifts at most 2.4), phase 1.0 (2.4).
    expect(moved.t).toBeGreaterThan(4.4);
    expect(moved.t).toBeGreaterThan(moved.nullMax + 2);
    expect(Math.abs(phase.t)).toBeLessThan(2.5);
  });

  it("reads a float32 encoder's mark (U centred on 0, the moves of warm blocks downwards) on warm and cool chroma alike, which the uint8 value reads half inverted", () => {
    // The band's level runs from 180 to 303, across FLOAT_CENTRE: two thirds of it warm (0.68).
    const bits = PAYLOAD_BITS.sdxl48;
    const ll = shortenedBand(64, 64, bits, 0.25, 6, 39, true);
    let warm = 0;
    for (let i = 0; i < ll.length; i++) if (ll[i]! < FLOAT_CENTRE) warm++;
    expect(warm / ll.length).toBeGreaterThan(0.3);
    expect(warm / ll.length).toBeLessThan(0.7);
    const { uint8, float32 } = displacementSoft(ll, 256, 64, 64);
    const floatRead = softEvidence(classDirection(float32, 48), bits, false);
    const uintRead = softEvidence(classDirection(uint8, 48), bits, true);
    // The bar for 18 hypotheses at 1 in 1,000 is 4.43 (invisible-watermark-soft.ts).
    // Measured: float32 value 5.4 (its shifts at most 2.3), uint8 value -1.7 (3.1).
    expect(floatRead.t).toBeGreaterThan(4.43);
    expect(floatRead.t).toBeGreaterThan(floatRead.nullMax + 2);
    expect(Math.abs(uintRead.t)).toBeLessThan(3);
    // A uint8 encoder's mark on the same band: the float32 value reads its warm blocks inverted
    // (measured -0.1), the uint8 value reads it (4.6).
    const plain = displacementSoft(shortenedBand(64, 64, bits, 0.25, 6, 39), 256, 64, 64);
    expect(softEvidence(classDirection(plain.uint8, 48), bits, false).t).toBeGreaterThan(softEvidence(classDirection(plain.float32, 48), bits, false).t);
  });

  it('on a band carrying no mark, stays within the bound for random payloads (T >= 3 at most exp(-4.5) of them)', () => {
    const ll = shortenedBand(64, 64, [0], 0, 4, 7);
    const d = classDirection(displacementSoft(ll, 256, 64, 64).uint8, 48);
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
    expect(readings.unsmoothedDisplacement()).toEqual(displacementSoft(ll, 256, 64, 48));
    const { cellSums } = await import('../src/media/dwt-dct-cells.js');
    const sums = cellSums(pixels);
    expect(readings.sumDisplacement('bgr')).toEqual(displacementSoft(sums.bgr, sums.cellsWide, 64, 48, 0.5));
  });

  it('through the check: a PNG whose chroma carries a mark a lossy save shortened is found by the displacement reading alone', async () => {
    // The band as U pixels (each 2x2 cell half its coefficient), R = G = 128 and B solved for U
    // (U = 0.492 (B - Y) + 128, Y = 0.114 B + 0.587 G + 0.299 R), 15 % of each move left; 1040
    // pixels a side: no half-size reading (520 is no size a generator's halving gives), so 18
    // hypotheses (the float32 readings one each), bar 4.43.
    const wide = 130;
    const ll = shortenedBand(wide, wide, PAYLOAD_BITS.sdxl48, 0.15, 6, 39);
    const side = wide * 8;
    const data = new Uint8Array(side * side * 3).fill(128);
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const u = ll[(y >> 1) * wide * 4 + (x >> 1)]! / 2;
        data[(y * side + x) * 3 + 2] = Math.round(((u - 128) / 0.492 + 0.587 * 128 + 0.299 * 128) / 0.886);
      }
    }
    const bytes = await toPng({ width: side, height: side, data });
    const outcome = await invisibleWatermark.run({ bytes, type: 'image/png', sha256: '' }, {});
    expect(outcome).toMatchObject({ result: 'found', watermark: { payload: 'sdxl48' } });
    expect(outcome.note).toMatch(/stands out most stands from its neighbours/);
    expect(outcome.note).toMatch(/\(18 payloads and readings tried\)/);
    // The phase readings of the same grid alone find nothing (measured: displacement T 4.8, its
    // shifts at most 2.0; no phase hypothesis passes).
    const readings = new WasmReadings(await decodePixels(bytes));
    const phase: SoftReading[] = (['bgr', 'rgb'] as const).map((order) => {
      const phases = readings.sumPhases(order);
      return { kind: 'reference', order, soft: softOfPhases(phases), bits: bitsOfPhases(phases) };
    });
    expect(softFind(phase)).toBeUndefined();
  });
});
