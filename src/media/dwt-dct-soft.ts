// The soft, known-payload reading of a dwtDct mark (issue 39). The encoder moves the largest LL
// coefficient of each 4x4 block (top-left excluded) to 9 (bit 0) or 27 (bit 1) in the period 36
// (imwatermark maxDct.py, diffuse_dct_matrix). The reference decides each block's bit on which
// half of the period its coefficient sits in, then votes per bit; lossy saves and resampling move
// the coefficients off 9 and 27, and the votes flip. Here every block instead gives a soft value,
// -sin(2 pi c / 36): +1 at 27, -1 at 9, near 0 where damage left the phase ambiguous, so a block
// that still leans the right way still counts. The blocks' values are averaged per message bit
// (block n carries bit n mod L), and the L averages, centred and scaled to unit length, are
// correlated with the payload written as +-1:
//   T = sum_k d_k p_k,   d = centred class means / their norm,   p_k = 2 bit_k - 1.
// T is at most sqrt(L) (every class on its bit) and, for a payload unrelated to the picture (the
// picture's blocks fixed, the payload's bits random signs), P(T >= t) <= exp(-t^2 / 2)
// (Hoeffding's bound for a sum of randomly signed terms, sum_k d_k^2 = 1), whatever the picture:
// the picture's own structure (a building's windows, stripes that repeat with the message's
// period) makes the class means large, and the normalisation divides it out. The payload's L-1
// cyclic shifts give a null from the picture itself (softEvidence's nullMax).
import { uAt, type EncoderChannelOrder } from './opencv-yuv.js';
import type { RawPixels } from './pixels.js';

/** -sin(2 pi s / 72) for a 2x2 sum s (twice an LL coefficient) by s mod 72: the soft value of a
 * block whose largest sum is s. Bit 1 (LL 27 mod 36, sum 54 mod 72) gives +1, bit 0 gives -1. */
export const SOFT_OF_SUM = Float64Array.from({ length: 72 }, (_, r) => -Math.sin((2 * Math.PI * r) / 72));

/** The soft value of a block whose largest coefficient magnitude is `c` (a double). */
export function softOfCoefficient(c: number): number {
  return -Math.sin((2 * Math.PI * (c % 36)) / 36);
}

/**
 * Per block, its largest 2x2 sum but the top-left one, mod 72, from sums `stride` cells a row
 * (dwt-dct-cells.ts; the same blocks and peaks as dwt-dct.ts's blockBitsFromSums). The hard bit
 * of a block is `phase > 36` (but for the reference's float ties, which only its own reading
 * keeps); the soft value SOFT_OF_SUM[phase].
 */
export function sumPhases(sums: ArrayLike<number>, stride: number, wide: number, high: number): Uint8Array {
  const out = new Uint8Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) {
    const base = by * 4 * stride;
    for (let bx = 0; bx < wide; bx++) {
      const c = base + bx * 4;
      let best = sums[c + 1]!;
      if (sums[c + 2]! > best) best = sums[c + 2]!;
      if (sums[c + 3]! > best) best = sums[c + 3]!;
      for (let r = 1; r < 4; r++) {
        const row = c + r * stride;
        if (sums[row]! > best) best = sums[row]!;
        if (sums[row + 1]! > best) best = sums[row + 1]!;
        if (sums[row + 2]! > best) best = sums[row + 2]!;
        if (sums[row + 3]! > best) best = sums[row + 3]!;
      }
      out[n++] = best % 72;
    }
  }
  return out;
}

/** The soft values of phases from sumPhases. */
export function softOfPhases(phases: Uint8Array): Float64Array {
  const out = new Float64Array(phases.length);
  for (let n = 0; n < phases.length; n++) out[n] = SOFT_OF_SUM[phases[n]!]!;
  return out;
}

/** The hard bits of phases from sumPhases (|LL| mod 36 > 18). */
export function bitsOfPhases(phases: Uint8Array): Uint8Array {
  const out = new Uint8Array(phases.length);
  for (let n = 0; n < phases.length; n++) out[n] = phases[n]! > 36 ? 1 : 0;
  return out;
}

/** Per block, the soft value of its largest |coefficient| but the top-left one, from LL doubles
 * `stride` a row (the unsmoothed reading's coefficients: chroma-upsampling.ts). */
export function softFromCoefficients(ll: ArrayLike<number>, stride: number, wide: number, high: number): Float64Array {
  const out = new Float64Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++) {
      const c = by * 4 * stride + bx * 4;
      let best = -1;
      for (let i = 1; i < 16; i++) {
        const v = Math.abs(ll[c + (i >> 2) * stride + (i & 3)]!);
        if (v > best) best = v;
      }
      out[n++] = softOfCoefficient(best);
    }
  }
  return out;
}

/**
 * A picture halved in size (each side 50 %) is, to a scale, the LL band of the picture it was
 * made from: a half-size pixel is (about) the mean of the 2x2 pixels the Haar LL coefficient sums,
 * and that coefficient is twice their mean. So the half-size picture's own U plane, doubled, is
 * read as the band: 4x4 pixels a block (`width >> 2` x `height >> 2` blocks, in the order of the
 * full-size picture's blocks), each block's phase is (4 U) mod 72 of its largest U but the
 * top-left one (U is never negative, so the largest magnitude is the largest value).
 */
export function halfSizePhases(pixels: RawPixels, order: EncoderChannelOrder): Uint8Array {
  const { width, height, channels, data } = pixels;
  const wide = width >> 2;
  const high = height >> 2;
  const blue = order === 'bgr' ? 2 : 0;
  const red = 2 - blue;
  const out = new Uint8Array(wide * high);
  // One block row of U (4 pixel rows, the blocks' columns), reused.
  const span = wide * 4;
  const rows = new Uint8Array(4 * span);
  for (let by = 0, n = 0; by < high; by++) {
    for (let r = 0; r < 4; r++) {
      let p = (by * 4 + r) * width * channels;
      for (let x = 0, o = r * span; x < span; x++, p += channels) rows[o++] = uAt(data, p, blue, red);
    }
    for (let bx = 0; bx < wide; bx++) {
      const c = bx * 4;
      let best = rows[c + 1]!;
      if (rows[c + 2]! > best) best = rows[c + 2]!;
      if (rows[c + 3]! > best) best = rows[c + 3]!;
      for (let r = 1; r < 4; r++) {
        const row = c + r * span;
        if (rows[row]! > best) best = rows[row]!;
        if (rows[row + 1]! > best) best = rows[row + 1]!;
        if (rows[row + 2]! > best) best = rows[row + 2]!;
        if (rows[row + 3]! > best) best = rows[row + 3]!;
      }
      out[n++] = (4 * best) % 72;
    }
  }
  return out;
}

/**
 * The message classes' direction: the mean soft value of the blocks of each class k (block n is
 * in class n mod L), centred and scaled to unit length (all zeros when the classes do not differ,
 * or a class has no block). `bytes`: centred per bit position within a byte (k mod 8) rather than
 * on the one mean. The byte payloads are ASCII text, whose bits share a structure by position (the
 * first bit of every byte 0, the second mostly 1): every byte payload correlates with every other
 * through it, and so does a picture whose classes vary with k mod 8 (at generator sizes, whose
 * width in blocks is a multiple of 8, that is any structure repeating every 64 pixels across). Only
 * what a payload's text carries beyond that structure is then read.
 */
export function classDirection(soft: Float64Array, length: number, bytes = false): Float64Array {
  const { sums, counts } = classSums(soft, soft.length, 1, length, 0);
  return directionOf(sums, counts, bytes) ?? new Float64Array(length);
}

/** Per message class, the sum of its blocks' soft values and how many there are. */
export interface ClassSums {
  sums: Float64Array;
  counts: Uint32Array;
}

/** The `wide` x `high` soft values (row-major) summed per class in block order: block (bx, by) in
 * class (by * originalWide + bx) mod L (a crop's, cropSoftEvidence); with `high` 1 and `wide` the
 * block count, class n mod L (classDirection's). The JavaScript form of the kernels' (dwt-dct-wasm.ts's
 * softEvidence and cropSoftEvidence), which give the same doubles. */
export function classSums(soft: ArrayLike<number>, wide: number, high: number, L: number, originalWide: number): ClassSums {
  const sums = new Float64Array(L);
  const counts = new Uint32Array(L);
  for (let by = 0, n = 0; by < high; by++) {
    let k = (by * originalWide) % L;
    for (let bx = 0; bx < wide; bx++, n++) {
      sums[k]! += soft[n]!;
      counts[k]!++;
      if (++k === L) k = 0;
    }
  }
  return { sums, counts };
}

/** T for the payload `bits` cyclically shifted by `shift` (class k against bit (k + shift) mod L). */
export function softScore(direction: Float64Array, bits: ArrayLike<number>, shift = 0): number {
  return shiftedScore(direction, signsOf(bits), shift % bits.length);
}

/** The payload as +-1, twice over (2L values), so that every cyclic shift of it is a run of L. */
export function signsOf(bits: ArrayLike<number>): Float64Array {
  const L = bits.length;
  const signs = new Float64Array(2 * L);
  for (let i = 0; i < 2 * L; i++) signs[i] = bits[i < L ? i : i - L] ? 1 : -1;
  return signs;
}

/** softScore from signsOf's table, 0 <= shift < L: +-d is d times +-1 exactly, so the sum is the
 * same double as with a choice per bit, without the branch a random payload mispredicts half the
 * time (the shifts cost L^2 terms per payload and reading, the soft reading's largest part). */
function shiftedScore(direction: Float64Array, signs: Float64Array, shift: number): number {
  const L = direction.length;
  let dot = 0;
  for (let k = 0; k < L; k++) dot += signs[k + shift]! * direction[k]!;
  return dot;
}

/** A payload's soft evidence on one reading. */
export interface SoftEvidence {
  /** T of the payload as written (negative: the bits read inverted). */
  t: number;
  /** The largest T of its L-1 cyclic shifts (in magnitude when `twoSided`). */
  nullMax: number;
}

/** T of `bits` and the largest of its cyclic shifts' T, from a classDirection of their length.
 * `twoSided`: an inverted reading counts too (SDXL's float32 encoders), so the shifts are taken
 * in magnitude as well. */
export function softEvidence(direction: Float64Array, bits: ArrayLike<number>, twoSided: boolean): SoftEvidence {
  const signs = signsOf(bits);
  const t = shiftedScore(direction, signs, 0);
  let nullMax = -Infinity;
  for (let shift = 1; shift < bits.length; shift++) {
    const s = shiftedScore(direction, signs, shift);
    const v = twoSided ? Math.abs(s) : s;
    if (v > nullMax) nullMax = v;
  }
  return { t, nullMax };
}

/**
 * The blocks of one grid phase of a cropped picture (dwt-dct-crop.ts), as phases for the soft
 * reading: blocks of 8x8 pixels from (phaseX, phaseY) of the U plane `plane` (`width` x `height`,
 * opencv-yuv.ts), each block's largest 2x2 sum but the top-left one, mod 72, row-major:
 * `wide` = (width - phaseX) / 8 and `high` = (height - phaseY) / 8 blocks, rounded down.
 */
export function phaseSumPhases(plane: Uint8Array, width: number, height: number, phaseX: number, phaseY: number): { wide: number; high: number; phases: Uint8Array } {
  const wide = Math.max(0, Math.floor((width - phaseX) / 8));
  const high = Math.max(0, Math.floor((height - phaseY) / 8));
  const phases = new Uint8Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++, n++) {
      let best = -1;
      for (let i = 1; i < 16; i++) {
        const top = (phaseY + by * 8 + (i >> 2) * 2) * width + phaseX + bx * 8 + (i & 3) * 2;
        const sum = plane[top]! + plane[top + 1]! + plane[top + width]! + plane[top + width + 1]!;
        if (sum > best) best = sum;
      }
      phases[n] = best % 72;
    }
  }
  return { wide, high, phases };
}

/** The best hypothesis of a crop search on one phase's soft values. */
export interface CropEvidence {
  t: number;
  originalWide: number;
  firstBit: number;
  /** Hypotheses tried: distinct original widths (mod L) x first bits (x 2 when two-sided). */
  tested: number;
}

/**
 * The soft statistic of `bits` on the blocks of a crop (`wide` x `high` soft values), for every
 * original width in blocks (each at least `wide`; only the width mod L matters) and every first
 * bit: block (bx, by) is in class (by * originalWide + bx) mod L, and class k carries message bit
 * (k + firstBit) mod L (dwt-dct-crop.ts). The strongest hypothesis (in magnitude when `twoSided`).
 */
export function cropSoftEvidence(soft: Float64Array, wide: number, high: number, bits: ArrayLike<number>, originalWides: readonly number[], twoSided: boolean, bytes: boolean): CropEvidence | undefined {
  const L = bits.length;
  const signs = signsOf(bits);
  const seen = new Set<number>();
  let best: CropEvidence | undefined;
  let tested = 0;
  for (const originalWide of originalWides) {
    if (originalWide < wide || seen.has(originalWide % L)) continue;
    seen.add(originalWide % L);
    const { sums, counts } = classSums(soft, wide, high, L, originalWide);
    const direction = directionOf(sums, counts, bytes);
    if (!direction) continue;
    for (let first = 0; first < L; first++) {
      const t = shiftedScore(direction, signs, first);
      const strength = twoSided ? Math.abs(t) : t;
      if (!best || strength > (twoSided ? Math.abs(best.t) : best.t)) best = { t, originalWide, firstBit: first, tested: 0 };
    }
    tested += twoSided ? 2 * L : L;
  }
  if (best) best.tested = tested;
  return best;
}

/** Centred class means scaled to unit length (centred per k mod 8 for `bytes`: classDirection),
 * or undefined when a class is empty or all agree. */
export function directionOf(sums: Float64Array, counts: Uint32Array, bytes: boolean): Float64Array | undefined {
  const L = sums.length;
  const d = new Float64Array(L);
  for (let k = 0; k < L; k++) {
    if (counts[k] === 0) return undefined;
    d[k] = sums[k]! / counts[k]!;
  }
  const period = bytes && L % 8 === 0 ? 8 : 1;
  const means = new Float64Array(period);
  for (let k = 0; k < L; k++) means[k % period]! += d[k]!;
  for (let j = 0; j < period; j++) means[j] = means[j]! / (L / period);
  let norm = 0;
  for (let k = 0; k < L; k++) {
    d[k] = d[k]! - means[k % period]!;
    norm += d[k]! * d[k]!;
  }
  if (norm === 0) return undefined;
  const scale = 1 / Math.sqrt(norm);
  for (let k = 0; k < L; k++) d[k] = d[k]! * scale;
  return d;
}
