// The displacement reading of a dwtDct mark (issue 39), a second soft value per block beside the
// phase of dwt-dct-soft.ts. The encoder moves a block's largest LL coefficient v (top-left
// excluded) to 36 m + 9 (bit 0) or 36 m + 27 (bit 1), where 36 m <= v < 36 m + 36: from v's own
// place in the period r = v mod 36 by 9 - r or 27 - r, 18 apart whatever r is. A lossy save (a
// JPEG's chroma quantiser above all) undoes part of that move, and the phase of what is left no
// longer tells the bit: moved a third of the way from r = 2, bit 0 lands at 4.3 and bit 1 at 10.3,
// both in the half of the period that reads 0. The move itself still tells it, if v is known. In
// the blocks the mark was written in, the coefficient next in size to the marked one is close to
// where v was (a block's 15 coefficients are 2x2 sums of a smooth chroma plane), so with c the
// block's largest |coefficient| and w the next:
//   soft = tanh((c - w - KEPT * (18 - w mod 36)) / SPREAD)
// leans to +1 for bit 1 and -1 for bit 0 even where only KEPT of the move survived. The payload
// statistic over these values (dwt-dct-soft.ts's classDirection and softEvidence) keeps its bound:
// that bound holds for any per-block values, since it comes from the payload's bits, not from the
// picture. Measured (the wm-jpeg helper's held-out set, 2026-12-02, 196 marked files of each
// kind): JPEG q95 4:2:0 found in 135 with this value against 99 with the phase, PNG 184 against
// 162, unmarked 0 of 70 with either.

/** The share of the encoder's move a save is taken to have kept (held-out JPEG q95 4:2:0: 0.3,
 * 0.4 and 0.5 found within 2 files of each other of 196; 0.7 fewer). */
export const KEPT = 0.4;
/** The width, in LL units, over which the soft value goes from 0 to most of +-1 (tanh). */
export const SPREAD = 6;

/** Per block, the displacement soft value of the LL coefficients `ll`, `stride` a row (4x4 a
 * block, `wide` x `high` blocks, in block order). */
export function displacementSoft(ll: ArrayLike<number>, stride: number, wide: number, high: number, scale = 1): Float64Array {
  const out = new Float64Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++) {
      const c = by * 4 * stride + bx * 4;
      let first = -1;
      let second = -1;
      for (let i = 1; i < 16; i++) {
        const v = Math.abs(ll[c + (i >> 2) * stride + (i & 3)]!) * scale;
        if (v > first) {
          second = first;
          first = v;
        } else if (v > second) second = v;
      }
      out[n++] = Math.tanh((first - second - KEPT * (18 - (second % 36))) / SPREAD);
    }
  }
  return out;
}
