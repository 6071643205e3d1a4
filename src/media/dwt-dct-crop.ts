// dwtDct blocks of a picture cut from a larger marked one. The encoder's blocks are 8x8 pixels
// from the top-left corner of the picture it marked, and block n carries bit n mod L counted
// row by row across that picture's full width. A crop moves both: its blocks sit at an unknown
// phase (0-7 pixels, across and down) from the grid, and its first block is some block k of a
// row W blocks wide, so its block (bx, by) carries bit (by * W + bx + k) mod L. The reference
// reads only phase (0, 0) with W = its own width and k = 0; this module reads every phase and
// scores every (W mod L, k mod L) for a message, so a crop of a lossless marked picture can
// still be read. Sums are kept as integers (the 2x2 sum of U is twice the Haar LL coefficient),
// so the rule |LL| mod 36 > 18 is sum mod 72 > 36 exactly; this is our reading, not the
// reference's, and needs no float replication.
import type { RawPixels } from './pixels.js';
import { opencvUPlane } from './opencv-yuv.js';
import { classSums } from './dwt-dct-soft.js';

/** The block bits of one grid phase. */
export interface PhaseReading {
  /** Pixels skipped at the left and at the top (0-7). */
  phaseX: number;
  phaseY: number;
  wide: number;
  high: number;
  bits: Uint8Array;
  /** Mean of cos(2 pi LL / 18) over the blocks' read coefficients: near -1 when they sit on the
   * encoder's lattice (9 or 27 mod 36, as 8-bit encoders leave them), near 0 by chance. */
  lattice: number;
}

/** Every one of the 64 grid phases, in the order of their `lattice` (most lattice-like first). */
export function readAllPhases(pixels: RawPixels): PhaseReading[] {
  const { width, height } = pixels;
  const plane = opencvUPlane(pixels, width, height);
  const readings: PhaseReading[] = [];
  // The 2x2 sums for each parity of the cell grid, computed once and shared by 16 phases each.
  for (let parityY = 0; parityY < 2; parityY++) {
    for (let parityX = 0; parityX < 2; parityX++) {
      const cellsWide = (width - parityX) >> 1;
      const cellsHigh = (height - parityY) >> 1;
      const sums = paritySums(plane, width, parityX, parityY, cellsWide, cellsHigh);
      // Each block's largest sum but the first: the max of 3 cells on its top row and of 4 on
      // the three rows below. Row-wise window maxima, computed once, serve all 16 phases.
      const max3 = windowMax(sums, cellsWide, cellsHigh, 1);
      const max4 = windowMax(sums, cellsWide, cellsHigh, 0);
      for (let offsetY = 0; offsetY < 4; offsetY++) {
        for (let offsetX = 0; offsetX < 4; offsetX++) {
          readings.push(readPhase(max3, max4, cellsWide, cellsHigh, offsetX, offsetY, parityX + 2 * offsetX, parityY + 2 * offsetY));
        }
      }
    }
  }
  return readings.sort((a, b) => a.lattice - b.lattice);
}

/** The 2x2 sums of the U plane's cells starting at (parityX, parityY). A function of its own, so
 * that V8 optimises this loop on its own rather than inside readAllPhases' single long call. */
function paritySums(plane: Uint8Array, width: number, parityX: number, parityY: number, cellsWide: number, cellsHigh: number): Uint16Array {
  const sums = new Uint16Array(cellsWide * cellsHigh);
  for (let cy = 0; cy < cellsHigh; cy++) {
    const top = (parityY + 2 * cy) * width + parityX;
    const bottom = top + width;
    for (let cx = 0, o = cy * cellsWide; cx < cellsWide; cx++, o++) {
      const x = 2 * cx;
      sums[o] = plane[top + x]! + plane[top + x + 1]! + plane[bottom + x]! + plane[bottom + x + 1]!;
    }
  }
  return sums;
}

// cos(2 pi LL / 18) = cos(2 pi sum / 36) for each sum mod 36, tabulated.
const LATTICE_COS = Float64Array.from({ length: 36 }, (_, r) => Math.cos((2 * Math.PI * r) / 36));

/** For every cell, the largest of the cells `skip`..3 to its right in its row (where all fit). */
function windowMax(sums: Uint16Array, cellsWide: number, cellsHigh: number, skip: number): Uint16Array {
  const out = new Uint16Array(sums.length);
  for (let cy = 0; cy < cellsHigh; cy++) {
    const row = cy * cellsWide;
    for (let cx = 0; cx + 3 < cellsWide; cx++) {
      let best = 0;
      for (let i = row + cx + skip; i <= row + cx + 3; i++) if (sums[i]! > best) best = sums[i]!;
      out[row + cx] = best;
    }
  }
  return out;
}

function readPhase(max3: Uint16Array, max4: Uint16Array, cellsWide: number, cellsHigh: number, offsetX: number, offsetY: number, phaseX: number, phaseY: number): PhaseReading {
  const wide = Math.max(0, Math.floor((cellsWide - offsetX) / 4));
  const high = Math.max(0, Math.floor((cellsHigh - offsetY) / 4));
  const bits = new Uint8Array(wide * high);
  let lattice = 0;
  for (let by = 0, n = 0; by < high; by++) {
    const top = (offsetY + by * 4) * cellsWide + offsetX;
    for (let bx = 0; bx < wide; bx++, n++) {
      const o = top + bx * 4;
      let best = max3[o]!;
      const a = max4[o + cellsWide]!;
      const b = max4[o + 2 * cellsWide]!;
      const c = max4[o + 3 * cellsWide]!;
      if (a > best) best = a;
      if (b > best) best = b;
      if (c > best) best = c;
      bits[n] = best % 72 > 36 ? 1 : 0;
      lattice += LATTICE_COS[best % 36]!;
    }
  }
  return { phaseX, phaseY, wide, high, bits, lattice: wide * high > 0 ? lattice / (wide * high) : 0 };
}

/** An alignment of a message on one phase's blocks. */
export interface Alignment {
  matched: number;
  /** The original picture's width in blocks, and which message bit the crop's first block carries. */
  originalWide: number;
  firstBit: number;
}

/**
 * The best alignment of `message` on one phase's blocks, over the original widths given (in
 * blocks) and every first bit, when one matches at least `minMatched` bits; bits are decided as
 * the reference decides them (share of 1 votes x 255 > 127). Hypotheses stop at the first
 * mismatch past the allowance, so a wrong one costs a few comparisons, not L.
 */
export function bestAlignment(reading: PhaseReading, message: Uint8Array, originalWides: readonly number[], minMatched: number): Alignment | undefined {
  const L = message.length;
  const allowed = L - minMatched;
  const { wide, high, bits } = reading;
  const ones = new Uint32Array(L);
  const votes = new Uint32Array(L);
  const decided = new Uint8Array(L);
  let best: Alignment | undefined;
  const seen = new Set<number>();
  // Rows wider than the message: their 1 votes counted once by bx mod L (and how many blocks of
  // a row fall in each residue), so that each original width costs high x L, not high x wide.
  let rowOnes: Uint32Array | undefined;
  const columnVotes = new Uint32Array(L);
  if (wide > L) {
    rowOnes = new Uint32Array(high * L);
    for (let by = 0, n = 0; by < high; by++) {
      const row = by * L;
      for (let bx = 0, j = 0; bx < wide; bx++, n++) {
        rowOnes[row + j]! += bits[n]!;
        if (++j === L) j = 0;
      }
    }
    for (let bx = 0, j = 0; bx < wide; bx++) {
      columnVotes[j]!++;
      if (++j === L) j = 0;
    }
  }
  for (const originalWide of originalWides) {
    // A crop is no wider than its original; and only the width mod L changes the bits.
    if (originalWide < wide || seen.has(originalWide % L)) continue;
    seen.add(originalWide % L);
    ones.fill(0);
    votes.fill(0);
    if (rowOnes) {
      // Block (bx, by) is in class (by * originalWide + bx) mod L: each row's counts by bx mod L,
      // turned by the row's first class.
      for (let by = 0; by < high; by++) {
        let k = (by * originalWide) % L;
        const row = by * L;
        for (let j = 0; j < L; j++) {
          ones[k]! += rowOnes[row + j]!;
          votes[k]! += columnVotes[j]!;
          if (++k === L) k = 0;
        }
      }
    } else {
      for (let by = 0, n = 0; by < high; by++) {
        let k = (by * originalWide) % L;
        for (let bx = 0; bx < wide; bx++, n++) {
          ones[k]! += bits[n]!;
          votes[k]!++;
          if (++k === L) k = 0;
        }
      }
    }
    for (let k = 0; k < L; k++) decided[k] = votes[k]! > 0 && (ones[k]! / votes[k]!) * 255 > 127 ? 1 : 0;
    // Block class k (= (row * originalWide + column) mod L) carries message bit (k + first) mod L.
    for (let first = 0; first < L; first++) {
      let missed = 0;
      for (let k = 0, j = first; k < L && missed <= allowed; k++) {
        if (decided[k] !== message[j]) missed++;
        if (++j === L) j = 0;
      }
      if (missed <= allowed && (!best || L - missed > best.matched)) best = { matched: L - missed, originalWide, firstBit: first };
    }
  }
  return best;
}

/** How many bits of `message` the reference's vote gives on one phase's blocks (`wide` x `high`
 * bits) under one hypothesis: block (bx, by) in class (by * originalWide + bx) mod L, class k
 * carrying message bit (k + firstBit) mod L (bestAlignment's rule, for one hypothesis). */
export function alignedMatches(bits: Uint8Array, wide: number, high: number, originalWide: number, firstBit: number, message: Uint8Array): number {
  const L = message.length;
  // The 1 votes and the votes of each class (whole numbers, exact as doubles).
  const { sums: ones, counts: votes } = classSums(bits, wide, high, L, originalWide);
  let matched = 0;
  for (let k = 0; k < L; k++) {
    const bit = votes[k]! > 0 && (ones[k]! / votes[k]!) * 255 > 127 ? 1 : 0;
    if (bit === message[(k + firstBit) % L]) matched++;
  }
  return matched;
}
