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
 * `cellsWide*2` x `cellsHigh*2` U plane, row-major, `cellsWide` per row. Given a band of a
 * plane's rows, the column solve treats the band's first and last rows as the picture's edges,
 * which errs only near them (the filter's inverse decays by a factor of about 6 per cell), so a
 * caller reading part of a picture keeps a margin of cells around what it reads.
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
  unsmoothCells(ll, cellsWide, cellsHigh);
  return ll;
}

/** Undoes the decoder's upsampling, in place, on `cellsHigh` rows of `cellsWide` LL values. */
export function unsmoothCells(ll: Float64Array, cellsWide: number, cellsHigh: number): void {
  const across = thomas(cellsWide);
  for (let y = 0; y < cellsHigh; y++) unsmoothRow(ll, y * cellsWide, cellsWide, across);
  unsmoothColumns(ll, cellsWide, cellsHigh, thomas(cellsHigh));
}

const SIDE = 1 / 8;
const CENTRE = 3 / 4;
/** At either end the decoder repeats the edge sample: (7/8, 1/8). */
const EDGE = CENTRE + SIDE;

/** The Thomas algorithm's coefficients for the tridiagonal system (SIDE, CENTRE, SIDE) of `n`
 * values (the matrix is diagonally dominant, so the solve is stable). They depend on `n` alone,
 * so every row (or column) of one length shares them. */
interface Thomas {
  n: number;
  /** The super-diagonal after elimination, and each row's pivot. */
  c: Float64Array;
  denominator: Float64Array;
}

function thomas(n: number): Thomas {
  const c = new Float64Array(n);
  const denominator = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const diagonal = i === 0 || i === n - 1 ? EDGE : CENTRE;
    denominator[i] = diagonal - (i === 0 ? 0 : SIDE * c[i - 1]!);
    c[i] = (i === n - 1 ? 0 : SIDE) / denominator[i]!;
  }
  return { n, c, denominator };
}

/** Solves, in place, one row of `n` values from `offset` on. */
function unsmoothRow(values: Float64Array, offset: number, n: number, { c, denominator }: Thomas): void {
  if (n < 2) return;
  values[offset] = values[offset]! / denominator[0]!;
  for (let i = 1; i < n; i++) values[offset + i] = (values[offset + i]! - SIDE * values[offset + i - 1]!) / denominator[i]!;
  for (let i = n - 2; i >= 0; i--) values[offset + i] = values[offset + i]! - c[i]! * values[offset + i + 1]!;
}

/** Solves every column at once, row after row (the same operations as one column at a time, in
 * an order that walks memory forwards). */
function unsmoothColumns(values: Float64Array, wide: number, n: number, { c, denominator }: Thomas): void {
  if (n < 2) return;
  for (let x = 0; x < wide; x++) values[x] = values[x]! / denominator[0]!;
  for (let i = 1; i < n; i++) {
    const row = i * wide;
    const above = row - wide;
    const d = denominator[i]!;
    for (let x = 0; x < wide; x++) values[row + x] = (values[row + x]! - SIDE * values[above + x]!) / d;
  }
  for (let i = n - 2; i >= 0; i--) {
    const row = i * wide;
    const below = row + wide;
    const k = c[i]!;
    for (let x = 0; x < wide; x++) values[row + x] = values[row + x]! - k * values[below + x]!;
  }
}
