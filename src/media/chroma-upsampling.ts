// The chroma of a 4:2:0 JPEG or lossy WebP as it was stored, recovered from decoded pixels.
// Such files keep one chroma sample per 2x2 pixels, aligned on even coordinates: exactly the
// support of one Haar LL coefficient, so the stored sample is (almost) what the dwtDct encoder
// left in that coefficient. But libjpeg(-turbo) and libwebp decode with "fancy" upsampling, a
// triangle filter (9/16, 3/16, 3/16, 1/16 of the four nearest samples), which spreads each
// marked coefficient into its neighbours: on a marked picture the 2x2 means are only 9/16 of the
// way to their mark, and the reference decoder reads noise. Averaged over a 2x2 cell, that
// filter is separable, (1/8, 3/4, 1/8) along each axis with the edge sample repeated, so solving
// that tridiagonal system along every row and column gives back the stored samples.
//
// U depends on Cb alone once a decoder has turned YCbCr into RGB (B - Y = 1.772 (Cb - 128)), so
// working on OpenCV's U plane, a linear map of Cb up to rounding, is the same as working on Cb.

/**
 * Estimated Haar LL coefficients (2 x the stored chroma, in U units) for every 2x2 cell of a
 * `cellsWide*2` x `cellsHigh*2` U plane, row-major, `cellsWide` per row.
 */
export function llBeforeUpsampling(plane: ArrayLike<number>, cellsWide: number, cellsHigh: number): Float64Array {
  const planeWidth = cellsWide * 2;
  const ll = new Float64Array(cellsWide * cellsHigh);
  for (let y = 0; y < cellsHigh; y++) {
    const top = 2 * y * planeWidth;
    const bottom = top + planeWidth;
    for (let x = 0, o = y * cellsWide; x < cellsWide; x++, o++) {
      const p = 2 * x;
      // The LL coefficient is the 2x2 sum / 2; kept in that scale throughout (the filter is linear).
      ll[o] = (plane[top + p]! + plane[top + p + 1]! + plane[bottom + p]! + plane[bottom + p + 1]!) / 2;
    }
  }
  const longest = Math.max(cellsWide, cellsHigh);
  const scratchC = new Float64Array(longest);
  const scratchD = new Float64Array(longest);
  for (let y = 0; y < cellsHigh; y++) unsmooth(ll, cellsWide, 1, y * cellsWide, scratchC, scratchD);
  for (let x = 0; x < cellsWide; x++) unsmooth(ll, cellsHigh, cellsWide, x, scratchC, scratchD);
  return ll;
}

const SIDE = 1 / 8;
const CENTRE = 3 / 4;
/** At either end the decoder repeats the edge sample: (7/8, 1/8). */
const EDGE = CENTRE + SIDE;

/** Solves, in place, the tridiagonal system (SIDE, CENTRE, SIDE) for the `n` values at
 * `offset + i * stride` (the Thomas algorithm; the matrix is diagonally dominant, so stable). */
function unsmooth(values: Float64Array, n: number, stride: number, offset: number, c: Float64Array, d: Float64Array): void {
  if (n < 2) return;
  for (let i = 0; i < n; i++) {
    const diagonal = i === 0 || i === n - 1 ? EDGE : CENTRE;
    const below = i === 0 ? 0 : SIDE;
    const denominator = diagonal - (i === 0 ? 0 : below * c[i - 1]!);
    c[i] = (i === n - 1 ? 0 : SIDE) / denominator;
    d[i] = (values[offset + i * stride]! - (i === 0 ? 0 : below * d[i - 1]!)) / denominator;
  }
  values[offset + (n - 1) * stride] = d[n - 1]!;
  for (let i = n - 2; i >= 0; i--) values[offset + i * stride] = d[i]! - c[i]! * values[offset + (i + 1) * stride]!;
}
