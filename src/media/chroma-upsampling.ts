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
  // Doubles: a plane made by a filter (the tests') holds fractions.
  const sums = new Float64Array(cellsWide * cellsHigh);
  for (let y = 0; y < cellsHigh; y++) {
    const top = 2 * y * planeWidth;
    const bottom = top + planeWidth;
    for (let x = 0, o = y * cellsWide; x < cellsWide; x++, o++) {
      const p = 2 * x;
      sums[o] = plane[top + p]! + plane[top + p + 1]! + plane[bottom + p]! + plane[bottom + p + 1]!;
    }
  }
  return llFromSums(sums, cellsWide, cellsHigh);
}

/**
 * The same from the 2x2 sums of the plane (dwt-dct-cells.ts): the LL coefficient is the sum / 2,
 * kept in that scale throughout (the filter is linear). One pass down the rows turns each row's
 * sums into coefficients, solves the row, and eliminates it from the column system; one pass
 * back up finishes the columns: the picture's cells are walked twice, in memory order.
 */
export function llFromSums(sums: ArrayLike<number>, cellsWide: number, cellsHigh: number): Float64Array {
  const ll = new Float64Array(cellsWide * cellsHigh);
  const across = thomas(cellsWide);
  const down = thomas(cellsHigh);
  for (let y = 0; y < cellsHigh; y++) {
    const row = y * cellsWide;
    for (let x = 0; x < cellsWide; x++) ll[row + x] = sums[row + x]! * 0.5;
    unsmoothRow(ll, row, cellsWide, across);
    // The column systems' forward elimination, for this row.
    const inverse = down.inverse[y]!;
    if (y === 0 || cellsHigh < 2) {
      if (cellsHigh >= 2) for (let x = 0; x < cellsWide; x++) ll[x] = ll[x]! * inverse;
      continue;
    }
    const above = row - cellsWide;
    for (let x = 0; x < cellsWide; x++) ll[row + x] = (ll[row + x]! - SIDE * ll[above + x]!) * inverse;
  }
  if (cellsHigh >= 2) {
    for (let y = cellsHigh - 2; y >= 0; y--) {
      const row = y * cellsWide;
      const below = row + cellsWide;
      const k = down.c[y]!;
      for (let x = 0; x < cellsWide; x++) ll[row + x] = ll[row + x]! - k * ll[below + x]!;
    }
  }
  return ll;
}

const SIDE = 1 / 8;
const CENTRE = 3 / 4;
/** At either end the decoder repeats the edge sample: (7/8, 1/8). */
const EDGE = CENTRE + SIDE;

/** The Thomas algorithm's coefficients for the tridiagonal system (SIDE, CENTRE, SIDE) of `n`
 * values (the matrix is diagonally dominant, so the solve is stable). They depend on `n` alone,
 * so every row (or column) of one length shares them; each pivot is kept as its reciprocal, a
 * multiplication in the loops where a division costs several times more. */
export interface Thomas {
  /** The super-diagonal after elimination, and each row's pivot, inverted. */
  c: Float64Array;
  inverse: Float64Array;
}

export function thomas(n: number): Thomas {
  const c = new Float64Array(n);
  const inverse = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const diagonal = i === 0 || i === n - 1 ? EDGE : CENTRE;
    const pivot = diagonal - (i === 0 ? 0 : SIDE * c[i - 1]!);
    inverse[i] = 1 / pivot;
    c[i] = (i === n - 1 ? 0 : SIDE) / pivot;
  }
  return { c, inverse };
}

/** Solves, in place, one row of `n` values from `offset` on. */
function unsmoothRow(values: Float64Array, offset: number, n: number, { c, inverse }: Thomas): void {
  if (n < 2) return;
  values[offset] = values[offset]! * inverse[0]!;
  for (let i = 1; i < n; i++) values[offset + i] = (values[offset + i]! - SIDE * values[offset + i - 1]!) * inverse[i]!;
  for (let i = n - 2; i >= 0; i--) values[offset + i] = values[offset + i]! - c[i]! * values[offset + i + 1]!;
}
