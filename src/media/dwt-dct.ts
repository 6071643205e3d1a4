// The decoding half of invisible-watermark's `dwtDct` method (imwatermark/maxDct.py), computed
// as the reference computes it so that every block gives the same bit:
//   1. U plane of cv2.cvtColor(BGR2YUV) on 8-bit samples (opencv-yuv.ts), top-left rows and
//      columns rounded down to a multiple of 4;
//   2. one level of pywt.dwt2(..., 'haar'), of which only the LL band is read;
//   3. LL cut into 4x4 blocks, row-major; in each, the coefficient of largest magnitude other
//      than the top-left one gives bit 1 when |c| mod 36 > 18 (despite its name, the reference
//      never takes a DCT when decoding; and only the largest magnitude matters, not which of
//      equal ones numpy's argmax picks);
//   4. block n votes for bit n mod L; a bit is 1 when mean(votes) * 255 > 127.
// Only the blocks are computed: LL rows and columns past the last whole block are never read.
import { llBeforeUpsampling, llFromSums } from './chroma-upsampling.js';
import { cellSums } from './dwt-dct-cells.js';
import { opencvUPlane, uAt, type EncoderChannelOrder } from './opencv-yuv.js';
import type { RawPixels } from './pixels.js';

/** The reference's quantisation step for the U channel (EmbedMaxDct scales [0, 36, 36]). */
export const DWT_DCT_SCALE = 36;
/** Side of a block of LL coefficients; one block covers 8 x 8 pixels. */
export const DWT_DCT_BLOCK = 4;

// pywt's Haar analysis filter, 1/sqrt(2) rounded to a double (its `db1` dec_lo). pywt computes
// each output as filter*x[odd] + filter*x[even] in double precision, first down the columns
// (axis -2) and then along the rows (axis -1); the same products and sums in the same order give
// the same doubles, which matters: LL values of whole-number sums (x.0 or x.5) land a few ulps
// either side of the 18 (mod 36) boundary (2 * 0.7071067811865476^2 is not exactly 1).
const HAAR = 0.7071067811865476;

/** How many 4x4 LL blocks the reference reads across and down a `width` x `height` picture. */
export function blockGrid(width: number, height: number): { wide: number; high: number } {
  // The plane is cut to a multiple of 4 (col//4*4), halved by the DWT, then cut into blocks of
  // 4: (col//4*4)/2//4 === col//8.
  return { wide: Math.floor(width / 8), high: Math.floor(height / 8) };
}

/**
 * The bit each block gives, in the reference's block order (row-major), from a chroma plane
 * whose rows are `planeWidth` samples long and which covers at least the blocks' 8x8 pixels.
 */
export function blockBits(
  plane: ArrayLike<number>,
  planeWidth: number,
  wide: number,
  high: number,
  out: Uint8Array = new Uint8Array(wide * high),
): Uint8Array {
  const llWidth = wide * DWT_DCT_BLOCK;
  // One block-row of LL coefficients (4 LL rows), reused for every block row.
  const band = new Float64Array(DWT_DCT_BLOCK * llWidth);
  let n = 0;
  for (let by = 0; by < high; by++) {
    for (let r = 0; r < DWT_DCT_BLOCK; r++) {
      const top = (by * 8 + r * 2) * planeWidth;
      const bottom = top + planeWidth;
      let o = r * llWidth;
      for (let c = 0, x = 0; c < llWidth; c++, x += 2) {
        // Columns first: the vertical pair sums of the two plane columns of this LL cell.
        const left = HAAR * plane[bottom + x]! + HAAR * plane[top + x]!;
        const right = HAAR * plane[bottom + x + 1]! + HAAR * plane[top + x + 1]!;
        band[o++] = HAAR * right + HAAR * left;
      }
    }
    n = readBlockRow(band, 0, llWidth, wide, out, n);
  }
  return out;
}

/**
 * The reference's rule on one row of blocks: LL rows `firstRow`..+3 of `ll` (rows `llWidth`
 * long), `wide` blocks, bits written to `out` from `n` on; returns the next `n`.
 */
function readBlockRow(ll: Float64Array, firstRow: number, llWidth: number, wide: number, out: Uint8Array, n: number): number {
  const half = DWT_DCT_SCALE / 2;
  const base = firstRow * llWidth;
  for (let bx = 0; bx < wide; bx++) {
    const origin = base + bx * DWT_DCT_BLOCK;
    let best = -1;
    for (let i = 1; i < DWT_DCT_BLOCK * DWT_DCT_BLOCK; i++) {
      const v = Math.abs(ll[origin + (i >> 2) * llWidth + (i & 3)]!);
      if (v > best) best = v;
    }
    out[n++] = best % DWT_DCT_SCALE > half ? 1 : 0;
  }
  return n;
}

/** The block bits of a decoded picture, read as the encoder in `order` wrote them: the bits of
 * blockBits(opencvUPlane(pixels)), from the cell sums (dwt-dct-cells.ts) by blockBitsFromSums. */
export function readBlockBits(pixels: RawPixels, order: EncoderChannelOrder = 'bgr'): Uint8Array {
  const sums = cellSums(pixels);
  return blockBitsFromSums(pixels, order, sums[order], sums.cellsWide);
}

/**
 * The reference's block bits from the 2x2 sums of a picture's U plane (dwt-dct-cells.ts), `stride`
 * cells a row from the top-left: the same bit per block as blockBits(opencvUPlane(pixels)), with
 * integers only. A Haar LL coefficient is HAAR^2 x (the 2x2 sum of U), which is the sum / 2 up to
 * a few ulps, so the sums order the coefficients as the doubles do, and |LL| mod 36 > 18 is
 * sum mod 72 > 36, except where the largest sum is a multiple of 36 (LL a whole multiple of 18):
 * there the ulps decide, and that block's coefficients are computed in doubles exactly as pywt
 * does (exactBit). On an unmarked picture about 1 block in 36 takes that path.
 */
export function blockBitsFromSums(pixels: RawPixels, order: EncoderChannelOrder, sums: Uint16Array, stride: number): Uint8Array {
  const { wide, high } = blockGrid(pixels.width, pixels.height);
  const out = new Uint8Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) {
    const base = by * DWT_DCT_BLOCK * stride;
    for (let bx = 0; bx < wide; bx++) {
      const c = base + bx * DWT_DCT_BLOCK;
      let best = sums[c + 1]!;
      if (sums[c + 2]! > best) best = sums[c + 2]!;
      if (sums[c + 3]! > best) best = sums[c + 3]!;
      for (let r = 1; r < DWT_DCT_BLOCK; r++) {
        const row = c + r * stride;
        if (sums[row]! > best) best = sums[row]!;
        if (sums[row + 1]! > best) best = sums[row + 1]!;
        if (sums[row + 2]! > best) best = sums[row + 2]!;
        if (sums[row + 3]! > best) best = sums[row + 3]!;
      }
      const rest = best % 72;
      out[n++] = rest === 0 || rest === 36 ? exactBit(pixels, order, bx, by, sums.subarray(base), stride, best) : rest > 36 ? 1 : 0;
    }
  }
  return out;
}

/**
 * Our unsmoothed reading (readBlockBitsBeforeUpsampling) from the 2x2 sums of the U plane of the
 * whole picture's cells (`pixels.width >> 1` a row): the same coefficients, the same bits.
 */
export function unsmoothedBitsFromSums(pixels: RawPixels, sums: Uint16Array): Uint8Array {
  const { wide, high } = blockGrid(pixels.width, pixels.height);
  const cellsWide = pixels.width >> 1;
  const cellsHigh = pixels.height >> 1;
  const ll = llFromSums(sums, cellsWide, cellsHigh);
  const out = new Uint8Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) n = readBlockRow(ll, by * DWT_DCT_BLOCK, cellsWide, wide, out, n);
  return out;
}

/** A block whose largest 2x2 sum is a multiple of 36: the largest of its coefficients with that
 * sum, in pywt's doubles (blockBits' expression, term for term), decides. */
function exactBit(pixels: RawPixels, order: EncoderChannelOrder, bx: number, by: number, cells: Uint16Array, cellsWide: number, sum: number): number {
  const { width, channels, data } = pixels;
  const blue = order === 'bgr' ? 2 : 0;
  const red = 2 - blue;
  let best = -1;
  for (let i = 1; i < DWT_DCT_BLOCK * DWT_DCT_BLOCK; i++) {
    const r = i >> 2;
    const k = i & 3;
    if (cells[r * cellsWide + bx * DWT_DCT_BLOCK + k] !== sum) continue;
    const x = (bx * DWT_DCT_BLOCK + k) * 2;
    const top = ((by * 8 + r * 2) * width + x) * channels;
    const bottom = top + width * channels;
    const left = HAAR * uAt(data, bottom, blue, red) + HAAR * uAt(data, top, blue, red);
    const right = HAAR * uAt(data, bottom + channels, blue, red) + HAAR * uAt(data, top + channels, blue, red);
    const ll = HAAR * right + HAAR * left;
    if (ll > best) best = ll;
  }
  return best % DWT_DCT_SCALE > DWT_DCT_SCALE / 2 ? 1 : 0;
}

/**
 * Our reading of a 4:2:0 JPEG or lossy WebP (not the reference's): the block rule on the LL band
 * as it was before the decoder's chroma upsampling smoothed it (chroma-upsampling.ts).
 */
export function readBlockBitsBeforeUpsampling(pixels: RawPixels, order: EncoderChannelOrder = 'bgr'): Uint8Array {
  const { wide, high } = blockGrid(pixels.width, pixels.height);
  // The whole picture's cells, not just the blocks': the unsmoothing reaches to the edges.
  const cellsWide = pixels.width >> 1;
  const cellsHigh = pixels.height >> 1;
  const plane = opencvUPlane(pixels, cellsWide * 2, cellsHigh * 2, order);
  const ll = llBeforeUpsampling(plane, cellsWide, cellsHigh);
  const out = new Uint8Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) n = readBlockRow(ll, by * DWT_DCT_BLOCK, cellsWide, wide, out, n);
  return out;
}

/**
 * The reference's verdict per message bit for an L-bit message: block n votes for bit n mod L,
 * and a bit is 1 when the share of 1 votes times 255 exceeds 127 (computed in doubles as numpy
 * does). A bit with no votes (fewer blocks than bits) is 0, as numpy's NaN mean compares false.
 */
export function voteBits(blocks: Uint8Array, length: number): Uint8Array {
  const ones = new Uint32Array(length);
  // Block n votes for bit n mod L: the blocks in runs of L, each run added to the counts (no
  // modulo, no branch in the loop: the check votes some 13 times per reading).
  const count = blocks.length;
  for (let start = 0; start < count; start += length) {
    const end = Math.min(count, start + length);
    for (let n = start, bit = 0; n < end; n++, bit++) ones[bit]! += blocks[n]!;
  }
  const bits = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    // Bit i has a vote from every run that reaches it.
    const votes = i < count ? Math.floor((count - 1 - i) / length) + 1 : 0;
    bits[i] = votes > 0 && (ones[i]! / votes) * 255 > 127 ? 1 : 0;
  }
  return bits;
}

/** How many positions of `bits` equal `expected` (same length). */
export function matchingBits(bits: ArrayLike<number>, expected: ArrayLike<number>): number {
  let same = 0;
  for (let i = 0; i < expected.length; i++) if (bits[i] === expected[i]) same++;
  return same;
}
