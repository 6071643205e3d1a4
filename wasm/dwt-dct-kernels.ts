// AssemblyScript, compiled to WebAssembly (with SIMD) by scripts/build-wasm.mjs, which `npm run
// build` runs first: the invisible_watermark check's per-pixel kernels (issue 32), the same
// arithmetic as src/media/dwt-dct-cells.ts, dwt-dct.ts's blockBitsFromSums and
// chroma-upsampling.ts's llFromSums, which stay as the plain forms the tests hold these to bit
// for bit (test/watermark-kernels.test.ts). JavaScript spends some 30 instructions a pixel on
// the two U values; four pixels in a vector take about as many. The caller (src/media/
// dwt-dct-wasm.ts) lays the data out in this module's memory and passes the offsets.

// opencv-yuv.ts's integer coefficients (yuv_shift 14): B2Y, G2Y, R2Y, B2UI, and the rounding
// and centring constants.
const B2Y: i32 = 1868;
const G2Y: i32 = 9617;
const R2Y: i32 = 4899;
const B2U: i32 = 8061;
const HALF: i32 = 8192;
const CENTRE: i32 = 2105344;

/** Makes sure the memory holds `bytes` bytes. */
export function reserve(bytes: i32): void {
  const have = memory.size() << 16;
  if (bytes > have) {
    const pages = ((bytes - have + 0xffff) >>> 16) as i32;
    if (memory.grow(pages) < 0) unreachable();
  }
}

/** U for four pixels whose samples b, g, r are in the lanes of three vectors, blue taken as `b`. */
// @ts-ignore: decorator
@inline function uOf(b: v128, g: v128, r: v128): v128 {
  const y = i32x4.shr_s(
    i32x4.add(i32x4.add(i32x4.mul(b, i32x4.splat(B2Y)), i32x4.mul(g, i32x4.splat(G2Y))), i32x4.add(i32x4.mul(r, i32x4.splat(R2Y)), i32x4.splat(HALF))),
    14,
  );
  return i32x4.shr_s(i32x4.add(i32x4.mul(i32x4.sub(b, y), i32x4.splat(B2U)), i32x4.splat(CENTRE)), 14);
}

/** The low byte of each of the four i32 lanes of `lanes` (each 0 to 255), as four bytes at `at`. */
// @ts-ignore: decorator
@inline function storeLaneBytes(at: usize, lanes: v128): void {
  const narrow = i16x8.narrow_i32x4_u(lanes, lanes);
  store<u32>(at, i32x4.extract_lane(i8x16.narrow_i16x8_u(narrow, narrow), 0));
}

/** The scalar form, for the cells past the last group of four. */
// @ts-ignore: decorator
@inline function uAt(b: i32, g: i32, r: i32): i32 {
  const y = (b * B2Y + g * G2Y + r * R2Y + HALF) >> 14;
  return ((b - y) * B2U + CENTRE) >> 14;
}

/**
 * The 2x2 sums of the U plane for both channel orders (dwt-dct-cells.ts's cellSums), cells
 * `(width >> 1) x (height >> 1)` from the top-left, u16 row-major at `bgr` and `rgb`. The pixels
 * (`channels` 3 or 4 bytes each, RGB order) at `pixels` must be followed by 32 bytes of padding:
 * a group's vector loads read up to 16 bytes past its four pixels.
 */
export function cellSums(pixels: usize, width: i32, height: i32, channels: i32, bgr: usize, rgb: usize): void {
  const cellsWide = width >> 1;
  const cellsHigh = height >> 1;
  const rowBytes = width * channels;
  // Lanes of four pixels: each sample's byte to the low byte of an i32 lane (index 0xff: zero).
  const rMask = channels == 3 ? i8x16(0, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 9, -1, -1, -1) : i8x16(0, -1, -1, -1, 4, -1, -1, -1, 8, -1, -1, -1, 12, -1, -1, -1);
  const gMask = channels == 3 ? i8x16(1, -1, -1, -1, 4, -1, -1, -1, 7, -1, -1, -1, 10, -1, -1, -1) : i8x16(1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1, -1, -1);
  const bMask = channels == 3 ? i8x16(2, -1, -1, -1, 5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1) : i8x16(2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1);
  const group = 4 * channels;
  const groups = cellsWide >> 2; // four cells (eight pixels) a step
  for (let cy = 0; cy < cellsHigh; cy++) {
    const top = pixels + <usize>(2 * cy * rowBytes);
    const bottom = top + <usize>rowBytes;
    let o: usize = <usize>(cy * cellsWide) << 1;
    for (let k = 0; k < groups; k++) {
      const at = <usize>(k * 2 * group);
      // Pixels 0-3 and 4-7 of the step, top and bottom row.
      const t0 = v128.load(top + at);
      const t1 = v128.load(top + at + <usize>group);
      const d0 = v128.load(bottom + at);
      const d1 = v128.load(bottom + at + <usize>group);
      const tr0 = i8x16.swizzle(t0, rMask), tg0 = i8x16.swizzle(t0, gMask), tb0 = i8x16.swizzle(t0, bMask);
      const tr1 = i8x16.swizzle(t1, rMask), tg1 = i8x16.swizzle(t1, gMask), tb1 = i8x16.swizzle(t1, bMask);
      const dr0 = i8x16.swizzle(d0, rMask), dg0 = i8x16.swizzle(d0, gMask), db0 = i8x16.swizzle(d0, bMask);
      const dr1 = i8x16.swizzle(d1, rMask), dg1 = i8x16.swizzle(d1, gMask), db1 = i8x16.swizzle(d1, bMask);
      // Per pixel column, top + bottom, then each cell's two columns: even lanes + odd lanes.
      const b0 = i32x4.add(uOf(tb0, tg0, tr0), uOf(db0, dg0, dr0));
      const b1 = i32x4.add(uOf(tb1, tg1, tr1), uOf(db1, dg1, dr1));
      const cellsB = i32x4.add(v128.shuffle<i32>(b0, b1, 0, 2, 4, 6), v128.shuffle<i32>(b0, b1, 1, 3, 5, 7));
      const r0 = i32x4.add(uOf(tr0, tg0, tb0), uOf(dr0, dg0, db0));
      const r1 = i32x4.add(uOf(tr1, tg1, tb1), uOf(dr1, dg1, db1));
      const cellsR = i32x4.add(v128.shuffle<i32>(r0, r1, 0, 2, 4, 6), v128.shuffle<i32>(r0, r1, 1, 3, 5, 7));
      store<i64>(bgr + o, i64x2.extract_lane(i16x8.narrow_i32x4_u(cellsB, cellsB), 0));
      store<i64>(rgb + o, i64x2.extract_lane(i16x8.narrow_i32x4_u(cellsR, cellsR), 0));
      o += 8;
    }
    for (let cx = groups << 2; cx < cellsWide; cx++) {
      let sumB = 0;
      let sumR = 0;
      for (let k = 0; k < 4; k++) {
        const p = ((k >> 1) != 0 ? bottom : top) + <usize>((2 * cx + (k & 1)) * channels);
        const r = <i32>load<u8>(p);
        const g = <i32>load<u8>(p, 1);
        const b = <i32>load<u8>(p, 2);
        sumB += uAt(b, g, r);
        sumR += uAt(r, g, b);
      }
      store<u16>(bgr + o, sumB);
      store<u16>(rgb + o, sumR);
      o += 2;
    }
  }
}

// pywt's Haar filter, 1/sqrt(2) rounded to a double, as dwt-dct.ts's HAAR.
const HAAR: f64 = 0.7071067811865476;

/** U of the pixel at `p` (RGB order), blue taken from byte `blue` and red from `red`. */
// @ts-ignore: decorator
@inline function uPixel(p: usize, blue: usize, red: usize): f64 {
  return <f64>uAt(<i32>load<u8>(p + blue), <i32>load<u8>(p, 1), <i32>load<u8>(p + red));
}

/**
 * The block rule on 2x2 sums (dwt-dct.ts's blockBitsFromSums): per block, the largest sum but
 * the top-left one; bit 1 when it is past 36 mod 72. Where that sum is a multiple of 36, pywt's
 * doubles decide (dwt-dct.ts's exactBit, the same expression term for term): the coefficients of
 * the cells with that sum, from the pixels' U values, the largest of them mod 36 > 18. `order` 0
 * reads U as an encoder handed BGR wrote it (blue the pixel's third byte), 1 as one handed RGB.
 */
export function blockBits(sums: usize, stride: i32, wide: i32, high: i32, out: usize, pixels: usize, width: i32, channels: i32, order: i32): void {
  let n: usize = out;
  const rowBytes = <usize>stride << 1;
  const blue: usize = order == 0 ? 2 : 0;
  const red: usize = 2 - blue;
  const pixelRow = <usize>(width * channels);
  for (let by = 0; by < high; by++) {
    const base = sums + (<usize>(by * 4 * stride) << 1);
    for (let bx = 0; bx < wide; bx++) {
      const c = base + (<usize>(bx * 4) << 1);
      // Rows 1-3 whole (4 sums each), and row 0 but its first sum.
      let best = <i32>max(max(load<u16>(c, 2), load<u16>(c, 4)), load<u16>(c, 6));
      for (let r: usize = 1; r < 4; r++) {
        const row = c + r * rowBytes;
        best = max(best, <i32>max(max(load<u16>(row), load<u16>(row, 2)), max(load<u16>(row, 4), load<u16>(row, 6))));
      }
      const rest = best % 72;
      let bit: u8 = rest > 36 ? 1 : 0;
      if (rest == 0 || rest == 36) {
        let ll: f64 = -1;
        for (let i = 1; i < 16; i++) {
          const r = <usize>(i >> 2);
          const k = <usize>(i & 3);
          if (<i32>load<u16>(c + r * rowBytes + (k << 1)) != best) continue;
          const top = pixels + (<usize>(by * 8) + 2 * r) * pixelRow + (<usize>(bx * 8) + 2 * k) * <usize>channels;
          const bottom = top + pixelRow;
          const left = HAAR * uPixel(bottom, blue, red) + HAAR * uPixel(top, blue, red);
          const right = HAAR * uPixel(bottom + channels, blue, red) + HAAR * uPixel(top + channels, blue, red);
          const v = HAAR * right + HAAR * left;
          if (v > ll) ll = v;
        }
        bit = mod36(ll) > 18.0 ? 1 : 0;
      }
      store<u8>(n++, bit);
    }
  }
}

/** chroma-upsampling.ts's unsmoothRow on the row at `a`. */
function solveRow(a: usize, n: i32, cA: usize, invA: usize): void {
  store<f64>(a, load<f64>(a) * load<f64>(invA));
  for (let i = 1; i < n; i++) {
    const at = <usize>i << 3;
    store<f64>(a + at, (load<f64>(a + at) - 0.125 * load<f64>(a + at - 8)) * load<f64>(invA + at));
  }
  for (let i = n - 2; i >= 0; i--) {
    const at = <usize>i << 3;
    store<f64>(a + at, load<f64>(a + at) - load<f64>(cA + at) * load<f64>(a + at + 8));
  }
}

/** The same on two rows at once, `a` and `b`: two
 * independent chains of dependent operations, which the processor overlaps. */
// @ts-ignore: decorator
@inline function solveRows(a: usize, b: usize, n: i32, cA: usize, invA: usize): void {
  const side = 0.125;
  const first = load<f64>(invA);
  store<f64>(a, load<f64>(a) * first);
  store<f64>(b, load<f64>(b) * first);
  for (let i = 1; i < n; i++) {
    const at = <usize>i << 3;
    const inverse = load<f64>(invA + at);
    store<f64>(a + at, (load<f64>(a + at) - side * load<f64>(a + at - 8)) * inverse);
    store<f64>(b + at, (load<f64>(b + at) - side * load<f64>(b + at - 8)) * inverse);
  }
  for (let i = n - 2; i >= 0; i--) {
    const at = <usize>i << 3;
    const k = load<f64>(cA + at);
    store<f64>(a + at, load<f64>(a + at) - k * load<f64>(a + at + 8));
    store<f64>(b + at, load<f64>(b + at) - k * load<f64>(b + at + 8));
  }
}

/**
 * chroma-upsampling.ts's llFromSums, operation for operation in the same order (WebAssembly's
 * doubles round as JavaScript's: the results are the same bits): `cellsHigh` rows of
 * `cellsWide` u16 sums at `sums` to f64 coefficients at `ll`, with the Thomas coefficients of
 * the rows (`cA`, `invA`, cellsWide f64 each) and of the columns (`cD`, `invD`, cellsHigh each).
 * The columns' passes run two columns a vector.
 */
export function llFromSums(sums: usize, cellsWide: i32, cellsHigh: i32, ll: usize, cA: usize, invA: usize, cD: usize, invD: usize): void {
  const side = 0.125;
  const sideV = f64x2.splat(side);
  const rowBytes = <usize>cellsWide << 3;
  const pairs = cellsWide >> 1;
  for (let y = 0; y < cellsHigh; y++) {
    const row = ll + <usize>y * rowBytes;
    // Rows are turned into coefficients and solved two at a time (the even row's turn).
    if ((y & 1) == 0) {
      const last = y + 1 < cellsHigh ? y + 1 : y;
      for (let r = y; r <= last; r++) {
        const dst = ll + <usize>r * rowBytes;
        const src = sums + (<usize>(r * cellsWide) << 1);
        // Times 0.5: the same double as / 2 (exact either way), without a division's cost.
        for (let x = 0; x < cellsWide; x++) store<f64>(dst + (<usize>x << 3), <f64>load<u16>(src + (<usize>x << 1)) * 0.5);
      }
      if (cellsWide >= 2) {
        if (last > y) solveRows(row, row + rowBytes, cellsWide, cA, invA);
        else solveRow(row, cellsWide, cA, invA);
      }
    }
    if (cellsHigh < 2) continue;
    const inverse = load<f64>(invD + (<usize>y << 3));
    const inverseV = f64x2.splat(inverse);
    if (y == 0) {
      for (let p = 0; p < pairs; p++) {
        const at = row + (<usize>p << 4);
        v128.store(at, f64x2.mul(v128.load(at), inverseV));
      }
      if (cellsWide & 1) store<f64>(row + rowBytes - 8, load<f64>(row + rowBytes - 8) * inverse);
      continue;
    }
    const above = row - rowBytes;
    for (let p = 0; p < pairs; p++) {
      const at = <usize>p << 4;
      v128.store(row + at, f64x2.mul(f64x2.sub(v128.load(row + at), f64x2.mul(sideV, v128.load(above + at))), inverseV));
    }
    if (cellsWide & 1) {
      const at = rowBytes - 8;
      store<f64>(row + at, (load<f64>(row + at) - side * load<f64>(above + at)) * inverse);
    }
  }
  if (cellsHigh < 2) return;
  for (let y = cellsHigh - 2; y >= 0; y--) {
    const row = ll + <usize>y * rowBytes;
    const below = row + rowBytes;
    const k = load<f64>(cD + (<usize>y << 3));
    const kV = f64x2.splat(k);
    for (let p = 0; p < pairs; p++) {
      const at = <usize>p << 4;
      v128.store(row + at, f64x2.sub(v128.load(row + at), f64x2.mul(kV, v128.load(below + at))));
    }
    if (cellsWide & 1) {
      const at = rowBytes - 8;
      store<f64>(row + at, load<f64>(row + at) - k * load<f64>(below + at));
    }
  }
}

/**
 * x mod 36 for 0 <= x < 2^40, exactly as JavaScript's % (C's fmod) gives it, without
 * AssemblyScript's software fmod (a loop over the bits, a tenth of the unsmoothed reading's
 * time). 36 q is an integer, a multiple of x's ulp, so x - 36 q is exact; the quotient's floor
 * can only come out one too large (x just below a multiple of 36 rounds up in x / 36), and then
 * the remainder is negative and 36 more is the exact one.
 */
// @ts-ignore: decorator
@inline function mod36(x: f64): f64 {
  const r = x - 36.0 * Math.floor(x / 36.0);
  return r < 0 ? r + 36.0 : r;
}

/**
 * dwt-dct.ts's block rule on coefficients (readBlockRow): per block of `wide` x `high` from the
 * f64 coefficients at `ll` (`stride` a row), the largest |c| but the top-left one; bit 1 when it
 * is past 18 mod 36, as JavaScript's % computes it.
 */
export function coefficientBits(ll: usize, stride: i32, wide: i32, high: i32, out: usize): void {
  let n: usize = out;
  const rowBytes = <usize>stride << 3;
  for (let by = 0; by < high; by++) {
    const base = ll + <usize>(by * 4) * rowBytes;
    for (let bx = 0; bx < wide; bx++) {
      const c = base + (<usize>(bx * 4) << 3);
      let best = max(max(abs(load<f64>(c, 8)), abs(load<f64>(c, 16))), abs(load<f64>(c, 24)));
      for (let r: usize = 1; r < 4; r++) {
        const row = c + r * rowBytes;
        best = max(best, max(max(abs(load<f64>(row)), abs(load<f64>(row, 8))), max(abs(load<f64>(row, 16)), abs(load<f64>(row, 24)))));
      }
      store<u8>(n++, mod36(best) > 18.0 ? 1 : 0);
    }
  }
}

/** mod36, for the tests to hold it to JavaScript's %. */
export function remainder36(x: f64): f64 {
  return mod36(x);
}

// ---- The crop search (src/media/dwt-dct-crop.ts, whose JavaScript forms the tests hold these to).

/** The U plane, one byte a pixel, as an encoder handed BGR wrote it (opencv-yuv.ts's opencvUPlane):
 * four pixels a vector, as cellSums computes U (the pixels must be followed by its padding). */
export function uPlane(pixels: usize, width: i32, height: i32, channels: i32, out: usize): void {
  const count = width * height;
  const rMask = channels == 3 ? i8x16(0, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 9, -1, -1, -1) : i8x16(0, -1, -1, -1, 4, -1, -1, -1, 8, -1, -1, -1, 12, -1, -1, -1);
  const gMask = channels == 3 ? i8x16(1, -1, -1, -1, 4, -1, -1, -1, 7, -1, -1, -1, 10, -1, -1, -1) : i8x16(1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1, -1, -1);
  const bMask = channels == 3 ? i8x16(2, -1, -1, -1, 5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1) : i8x16(2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1);
  const group = <usize>(4 * channels);
  let p = pixels;
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const v = v128.load(p);
    storeLaneBytes(out + <usize>i, uOf(i8x16.swizzle(v, bMask), i8x16.swizzle(v, gMask), i8x16.swizzle(v, rMask)));
    p += group;
  }
  for (; i < count; i++) {
    store<u8>(out + <usize>i, uAt(<i32>load<u8>(p, 2), <i32>load<u8>(p, 1), <i32>load<u8>(p)));
    p += <usize>channels;
  }
}

/**
 * dwt-dct-crop.ts's readAllPhases before its sort: the 64 grid phases of the U plane at `plane`
 * (`width` x `height`), in its order (parity down, parity across, then offsets down and across),
 * their block bits one after another at `bitsOut`, and per phase five i32 at `meta` (phaseX,
 * phaseY, wide, high, offset of its bits from `bitsOut`) and its lattice, an f64 at `lattice`,
 * summed in its order from the cos table at `cosTable` (36 f64, made by the caller). `sums`,
 * `max3` and `max4` are scratch of (width >> 1) * (height >> 1) u16 each. At `phasesOut`, laid
 * out as the bits, each block's largest sum mod 72 (dwt-dct-soft.ts's phaseSumPhases), which the
 * soft crop search reads.
 */
export function phases(plane: usize, width: i32, height: i32, sums: usize, max3: usize, max4: usize, cosTable: usize, bitsOut: usize, meta: usize, lattice: usize, phasesOut: usize): void {
  let written: usize = 0;
  let phase = 0;
  for (let parityY = 0; parityY < 2; parityY++) {
    for (let parityX = 0; parityX < 2; parityX++) {
      const cellsWide = (width - parityX) >> 1;
      const cellsHigh = (height - parityY) >> 1;
      for (let cy = 0; cy < cellsHigh; cy++) {
        const top = plane + <usize>((parityY + 2 * cy) * width + parityX);
        const bottom = top + <usize>width;
        const o = sums + (<usize>(cy * cellsWide) << 1);
        // Eight cells a vector: the 16 bytes of a row's pixel pairs summed pairwise.
        let cx = 0;
        for (; cx + 8 <= cellsWide; cx += 8) {
          const x = <usize>(2 * cx);
          v128.store(o + (<usize>cx << 1), i16x8.add(i16x8.extadd_pairwise_i8x16_u(v128.load(top + x)), i16x8.extadd_pairwise_i8x16_u(v128.load(bottom + x))));
        }
        for (; cx < cellsWide; cx++) {
          const x = <usize>(2 * cx);
          store<u16>(o + (<usize>cx << 1), <i32>load<u8>(top + x) + <i32>load<u8>(top + x + 1) + <i32>load<u8>(bottom + x) + <i32>load<u8>(bottom + x + 1));
        }
      }
      windowMaxes(sums, cellsWide, cellsHigh, max3, max4);
      for (let offsetY = 0; offsetY < 4; offsetY++) {
        for (let offsetX = 0; offsetX < 4; offsetX++) {
          const wide = max(0, (cellsWide - offsetX) >> 2);
          const high = max(0, (cellsHigh - offsetY) >> 2);
          let sum: f64 = 0;
          let n = bitsOut + written;
          for (let by = 0; by < high; by++) {
            const top = (offsetY + by * 4) * cellsWide + offsetX;
            for (let bx = 0; bx < wide; bx++) {
              const o = <usize>(top + bx * 4);
              let best = <i32>load<u16>(max3 + (o << 1));
              best = max(best, <i32>load<u16>(max4 + ((o + <usize>cellsWide) << 1)));
              best = max(best, <i32>load<u16>(max4 + ((o + <usize>(2 * cellsWide)) << 1)));
              best = max(best, <i32>load<u16>(max4 + ((o + <usize>(3 * cellsWide)) << 1)));
              store<u8>(phasesOut + (n - bitsOut), <u8>(best % 72));
              store<u8>(n++, best % 72 > 36 ? 1 : 0);
              sum += load<f64>(cosTable + (<usize>(best % 36) << 3));
            }
          }
          const m = meta + <usize>(phase * 20);
          store<i32>(m, parityX + 2 * offsetX);
          store<i32>(m, parityY + 2 * offsetY, 4);
          store<i32>(m, wide, 8);
          store<i32>(m, high, 12);
          store<i32>(m, <i32>written, 16);
          store<f64>(lattice + (<usize>phase << 3), wide * high > 0 ? sum / <f64>(wide * high) : 0);
          written += <usize>(wide * high);
          phase++;
        }
      }
    }
  }
}

/** For every cell, the largest of the cells 1..3 to its right (at `max3`) and 0..3 (at `max4`),
 * 0 where not all fit; eight cells a vector (these took as long as the phases' blocks). */
function windowMaxes(sums: usize, cellsWide: i32, cellsHigh: i32, max3: usize, max4: usize): void {
  for (let cy = 0; cy < cellsHigh; cy++) {
    const row = <usize>(cy * cellsWide) << 1;
    let cx = 0;
    for (; cx + 11 <= cellsWide; cx += 8) {
      const at = sums + row + (<usize>cx << 1);
      const three = i16x8.max_u(i16x8.max_u(v128.load(at, 2), v128.load(at, 4)), v128.load(at, 6));
      v128.store(max3 + row + (<usize>cx << 1), three);
      v128.store(max4 + row + (<usize>cx << 1), i16x8.max_u(three, v128.load(at)));
    }
    for (; cx < cellsWide; cx++) {
      let three = 0;
      let four = 0;
      if (cx + 3 < cellsWide) {
        const at = sums + row + (<usize>cx << 1);
        three = <i32>max(max(load<u16>(at, 2), load<u16>(at, 4)), load<u16>(at, 6));
        four = max(three, <i32>load<u16>(at));
      }
      store<u16>(max3 + row + (<usize>cx << 1), three);
      store<u16>(max4 + row + (<usize>cx << 1), four);
    }
  }
}

/** The greatest common divisor of a >= 0 and b >= 0 (gcd(a, 0) = a). */
function gcd(a: i32, b: i32): i32 {
  while (b != 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * dwt-dct-crop.ts's bestAlignment for one phase's `wide` x `high` bits at `bits` and the `L`-bit
 * message at `message`: the original widths (`count` i32 at `wides`) and first bits with at least
 * `minMatched` matching bits, the best first met. Writes matched, originalWide and firstBit (i32)
 * at `result` and returns 1, or returns 0. `scratch`: (high + 3) * L * 4 + 2 * L + 64 bytes.
 */
export function alignment(bits: usize, wide: i32, high: i32, message: usize, L: i32, wides: usize, count: i32, minMatched: i32, scratch: usize, result: usize): i32 {
  const allowed = L - minMatched;
  const ones = scratch;
  const votes = ones + (<usize>L << 2);
  const columnVotes = votes + (<usize>L << 2);
  const seen = columnVotes + (<usize>L << 2);
  // The message's bits packed twice over (every rotation is a run of L of them), and the
  // decided bits packed: the misses of a first bit are popcounts, not L comparisons.
  const messageWords = (seen + <usize>L + 7) & ~7;
  const decidedWords = messageWords + (<usize>((2 * L + 63) >> 6) + 1 << 3);
  const words = (L + 63) >> 6;
  const rowOnes = decidedWords + (<usize>words << 3) + 16 & ~15;
  memory.fill(messageWords, 0, decidedWords - messageWords);
  for (let i = 0; i < 2 * L; i++) {
    const at = messageWords + (<usize>(i >> 6) << 3);
    store<u64>(at, load<u64>(at) | (<u64>load<u8>(message + <usize>(i < L ? i : i - L)) << <u64>(i & 63)));
  }
  // Each row's 1 votes by column: by bx mod L for rows wider than the message (and how many
  // blocks of a row fall in each), else by bx. Block (bx, by) is in class (by * originalWide + j)
  // mod L, j its column, for every original width.
  const columns = min(wide, L);
  memory.fill(columnVotes, 0, <usize>L << 2);
  memory.fill(seen, 0, <usize>L);
  memory.fill(rowOnes, 0, <usize>(high * columns) << 2);
  let n = bits;
  for (let by = 0; by < high; by++) {
    const row = rowOnes + (<usize>(by * columns) << 2);
    for (let bx = 0, j = 0; bx < wide; bx++) {
      const at = row + (<usize>j << 2);
      store<u32>(at, load<u32>(at) + <u32>load<u8>(n++));
      if (++j == columns) j = 0;
    }
  }
  for (let bx = 0, j = 0; bx < wide; bx++) {
    const at = columnVotes + (<usize>j << 2);
    store<u32>(at, load<u32>(at) + 1);
    if (++j == columns) j = 0;
  }
  // The widths tried are multiples of g mod L (the check's: of 8 pixel blocks), so a row's first
  // class (by * originalWide) mod L repeats every `period` = L / g rows, for all of them: rows
  // that far apart are summed once (counts, so the same sums), and each width costs period x L,
  // not high x L (SDXL's 48 bits: 6 rows, not 57 of a 460-pixel crop; SDXL's search over every
  // phase of the corpus' 8 crops, warm, side by side: 11-12 ms before, 6 ms so).
  let g = L;
  for (let w = 0; w < count; w++) {
    const originalWide = load<i32>(wides + (<usize>w << 2));
    if (originalWide >= wide) g = gcd(g, originalWide % L);
  }
  const period = L / g;
  const rowBytes = <usize>columns << 2;
  for (let by = period; by < high; by++) {
    const from = rowOnes + <usize>by * rowBytes;
    const to = rowOnes + <usize>(by % period) * rowBytes;
    for (let j: usize = 0; j < rowBytes; j += 4) store<u32>(to + j, load<u32>(to + j) + load<u32>(from + j));
  }
  const groups = min(period, high);
  let found = 0;
  let bestMatched = 0;
  for (let w = 0; w < count; w++) {
    const originalWide = load<i32>(wides + (<usize>w << 2));
    const residue = originalWide % L;
    if (originalWide < wide || load<u8>(seen + <usize>residue) != 0) continue;
    store<u8>(seen + <usize>residue, 1);
    memory.fill(ones, 0, <usize>L << 2);
    memory.fill(votes, 0, <usize>L << 2);
    for (let c = 0; c < groups; c++) {
      // The rows c, c + period, ...: how many, and their first class.
      const rows = <u32>((high - 1 - c) / period + 1);
      let k = (c * originalWide) % L;
      const row = rowOnes + <usize>c * rowBytes;
      for (let j = 0; j < columns; j++) {
        const o = ones + (<usize>k << 2);
        const v = votes + (<usize>k << 2);
        store<u32>(o, load<u32>(o) + load<u32>(row + (<usize>j << 2)));
        store<u32>(v, load<u32>(v) + rows * load<u32>(columnVotes + (<usize>j << 2)));
        if (++k == L) k = 0;
      }
    }
    memory.fill(decidedWords, 0, <usize>words << 3);
    for (let k = 0; k < L; k++) {
      const v = load<u32>(votes + (<usize>k << 2));
      // In doubles, as numpy and the JavaScript form compute it.
      if (v > 0 && (<f64>load<u32>(ones + (<usize>k << 2)) / <f64>v) * 255.0 > 127.0) {
        const at = decidedWords + (<usize>(k >> 6) << 3);
        store<u64>(at, load<u64>(at) | (<u64>1 << <u64>(k & 63)));
      }
    }
    // All misses counted (the JavaScript form stops past `allowed`: the same verdicts, and the
    // same count where it passes). SDV1's 136 bits took ~28 comparisons a first bit, 3 popcounts so.
    for (let first = 0; first < L; first++) {
      let missed = 0;
      for (let w = 0; w < words; w++) {
        const bit = first + (w << 6);
        const at = messageWords + (<usize>(bit >> 6) << 3);
        const shift = <u64>(bit & 63);
        const window = shift == 0 ? load<u64>(at) : (load<u64>(at) >> shift) | (load<u64>(at, 8) << (64 - shift));
        let differ = load<u64>(decidedWords + (<usize>w << 3)) ^ window;
        // The last word's bits past L are the message's next rotation: not compared.
        if (w == words - 1 && (L & 63) != 0) differ &= (<u64>1 << <u64>(L & 63)) - 1;
        missed += <i32>popcnt(differ);
      }
      if (missed <= allowed && (found == 0 || L - missed > bestMatched)) {
        found = 1;
        bestMatched = L - missed;
        store<i32>(result, bestMatched);
        store<i32>(result, originalWide, 4);
        store<i32>(result, first, 8);
      }
    }
  }
  return found;
}

// ---- The soft reading (src/media/dwt-dct-soft.ts, whose JavaScript forms the tests hold these to).

/** dwt-dct-soft.ts's sumPhases: per block of `wide` x `high` on the u16 sums at `sums` (`stride` a
 * row), its largest sum but the top-left one, mod 72, a byte each at `out`. */
export function sumPhases(sums: usize, stride: i32, wide: i32, high: i32, out: usize): void {
  let n: usize = out;
  const rowBytes = <usize>stride << 1;
  for (let by = 0; by < high; by++) {
    const base = sums + (<usize>(by * 4 * stride) << 1);
    for (let bx = 0; bx < wide; bx++) {
      const c = base + (<usize>(bx * 4) << 1);
      let best = <i32>max(max(load<u16>(c, 2), load<u16>(c, 4)), load<u16>(c, 6));
      for (let r: usize = 1; r < 4; r++) {
        const row = c + r * rowBytes;
        best = max(best, <i32>max(max(load<u16>(row), load<u16>(row, 2)), max(load<u16>(row, 4), load<u16>(row, 6))));
      }
      store<u8>(n++, <u8>(best % 72));
    }
  }
}

/** dwt-dct-soft.ts's softOfPhases and bitsOfPhases at once: for each of the `count` phases (bytes,
 * mod 72) at `phases`, its soft value from the 72 f64 at `table` (SOFT_OF_SUM, made by the caller)
 * at `softOut` and its hard bit (phase > 36) at `bitsOut`. */
export function phaseSoft(phases: usize, count: i32, table: usize, softOut: usize, bitsOut: usize): void {
  for (let i = 0; i < count; i++) {
    const phase = <usize>load<u8>(phases + <usize>i);
    store<f64>(softOut + (<usize>i << 3), load<f64>(table + (phase << 3)));
    store<u8>(bitsOut + <usize>i, phase > 36 ? 1 : 0);
  }
}

/** dwt-dct-soft.ts's halfSizePhases for both channel orders at once: the picture's U plane read
 * as the LL band, per 4x4 pixels its largest U but the top-left one, (4 U) mod 72, a byte each,
 * at `outBgr` (blue the pixel's third byte, as an encoder handed BGR wrote it) and `outRgb` (blue
 * its first). `rows` is scratch of 8 x (width & ~3) bytes: a block row of U for each order. U
 * four pixels a vector, as cellSums computes it (it is 3 to 253, so a byte holds it); the pixels
 * must be followed by cellSums' padding. One pass over the pixels gives both orders (the samples'
 * loads and swizzles shared), and each block's largest U is taken four blocks a vector. */
export function halfPhases(pixels: usize, width: i32, height: i32, channels: i32, outBgr: usize, outRgb: usize, rows: usize): void {
  const wide = width >> 2;
  const high = height >> 2;
  const span = wide << 2;
  const rMask = channels == 3 ? i8x16(0, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 9, -1, -1, -1) : i8x16(0, -1, -1, -1, 4, -1, -1, -1, 8, -1, -1, -1, 12, -1, -1, -1);
  const gMask = channels == 3 ? i8x16(1, -1, -1, -1, 4, -1, -1, -1, 7, -1, -1, -1, 10, -1, -1, -1) : i8x16(1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1, -1, -1);
  const bMask = channels == 3 ? i8x16(2, -1, -1, -1, 5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1) : i8x16(2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1, -1);
  const group = <usize>(4 * channels);
  const rowsRgb = rows + <usize>(span << 2);
  let n: usize = 0;
  for (let by = 0; by < high; by++) {
    for (let r = 0; r < 4; r++) {
      let p = pixels + <usize>((by * 4 + r) * width * channels);
      const ob = rows + <usize>(r * span);
      const or = rowsRgb + <usize>(r * span);
      for (let x = 0; x < span; x += 4) {
        const v = v128.load(p);
        const red = i8x16.swizzle(v, rMask), green = i8x16.swizzle(v, gMask), blue = i8x16.swizzle(v, bMask);
        storeLaneBytes(ob + <usize>x, uOf(blue, green, red));
        storeLaneBytes(or + <usize>x, uOf(red, green, blue));
        p += group;
      }
    }
    blockRowPhases(rows, span, wide, outBgr + n);
    blockRowPhases(rowsRgb, span, wide, outRgb + n);
    n += <usize>wide;
  }
}

/** One block row of halfPhases: for the `wide` blocks of the 4 rows of U at `rows` (`span` bytes
 * each), (4 x the largest U but the top-left one) mod 72 at `out`; four blocks a vector (a lane
 * each), the rest one by one. (4 U) mod 72 is 4 (U mod 18), and U mod 18 is U - 18 floor(U x 3641
 * / 65536) for every U of a byte. */
function blockRowPhases(rows: usize, span: i32, wide: i32, out: usize): void {
  const vectors = wide & ~3;
  const s = <usize>span;
  for (let bx = 0; bx < vectors; bx += 4) {
    const c = rows + <usize>(bx << 2);
    // The top-left U of each block (each lane's low byte) left out as 0: no U is below it.
    const top = v128.and(v128.load(c), i32x4.splat(0xffffff00));
    let m = i8x16.max_u(i8x16.max_u(top, v128.load(c + s)), i8x16.max_u(v128.load(c + 2 * s), v128.load(c + 3 * s)));
    m = i8x16.max_u(m, i32x4.shr_u(m, 16));
    m = i8x16.max_u(m, i32x4.shr_u(m, 8));
    const best = v128.and(m, i32x4.splat(0xff));
    const rem = i32x4.sub(best, i32x4.mul(i32x4.shr_u(i32x4.mul(best, i32x4.splat(3641)), 16), i32x4.splat(18)));
    storeLaneBytes(out + <usize>bx, i32x4.shl(rem, 2));
  }
  for (let bx = vectors; bx < wide; bx++) {
    const c = rows + <usize>(bx << 2);
    let best = <i32>max(max(load<u8>(c, 1), load<u8>(c, 2)), load<u8>(c, 3));
    for (let r = 1; r < 4; r++) {
      const row = c + <usize>(r * span);
      best = max(best, <i32>max(max(load<u8>(row), load<u8>(row, 1)), max(load<u8>(row, 2), load<u8>(row, 3))));
    }
    store<u8>(out + <usize>bx, <u8>((4 * best) % 72));
  }
}

/**
 * dwt-dct-soft.ts's classSums: the `wide` x `high` soft values (f64, row-major) at `soft` summed
 * per class, block (bx, by) in class (by * originalWide + bx) mod L, in block order (the same
 * doubles): L f64 at `sums`, L u32 counts at `counts`. With `high` 1 and `wide` the block count,
 * class n mod L (classDirection's).
 */
function classSums(soft: usize, wide: i32, high: i32, L: i32, originalWide: i32, sums: usize, counts: usize): void {
  memory.fill(sums, 0, <usize>L << 3);
  memory.fill(counts, 0, <usize>L << 2);
  let n = soft;
  for (let by = 0; by < high; by++) {
    let k = (by * originalWide) % L;
    for (let bx = 0; bx < wide; bx++) {
      const s = sums + (<usize>k << 3);
      store<f64>(s, load<f64>(s) + load<f64>(n));
      const c = counts + (<usize>k << 2);
      store<u32>(c, load<u32>(c) + 1);
      n += 8;
      if (++k == L) k = 0;
    }
  }
}

/** dwt-dct-soft.ts's directionOf, operation for operation: the class means at `d` (L f64), centred
 * (per k mod 8 for `bytes` when L is a multiple of 8) and scaled to unit length; 0 when a class is
 * empty or all agree. `means`: scratch of 8 f64. */
function directionOf(sums: usize, counts: usize, L: i32, bytes: i32, d: usize, means: usize): i32 {
  for (let k = 0; k < L; k++) {
    const count = load<u32>(counts + (<usize>k << 2));
    if (count == 0) return 0;
    store<f64>(d + (<usize>k << 3), load<f64>(sums + (<usize>k << 3)) / <f64>count);
  }
  const period = bytes != 0 && L % 8 == 0 ? 8 : 1;
  memory.fill(means, 0, 64);
  for (let k = 0; k < L; k++) {
    const m = means + (<usize>(k % period) << 3);
    store<f64>(m, load<f64>(m) + load<f64>(d + (<usize>k << 3)));
  }
  const per = <f64>(L / period);
  for (let j = 0; j < period; j++) store<f64>(means + (<usize>j << 3), load<f64>(means + (<usize>j << 3)) / per);
  let norm: f64 = 0;
  for (let k = 0; k < L; k++) {
    const at = d + (<usize>k << 3);
    const v = load<f64>(at) - load<f64>(means + (<usize>(k % period) << 3));
    store<f64>(at, v);
    norm += v * v;
  }
  if (norm == 0) return 0;
  const scale = 1.0 / Math.sqrt(norm);
  for (let k = 0; k < L; k++) store<f64>(d + (<usize>k << 3), load<f64>(d + (<usize>k << 3)) * scale);
  return 1;
}

/** T of every first bit f (class k against bit k + f of the payload) into `ts` (L f64), for the
 * direction at `d` and the payload's signs at `signs` (2L): each its own sum in the order of k,
 * two first bits a vector lane each (the same doubles as one at a time); eight first bits a
 * step, so that the additions of one lane overlap the others'. */
function scores(d: usize, signs: usize, L: i32, ts: usize): void {
  let f = 0;
  for (; f + 8 <= L; f += 8) {
    let a = f64x2.splat(0);
    let b = f64x2.splat(0);
    let c = f64x2.splat(0);
    let e = f64x2.splat(0);
    let at = signs + (<usize>f << 3);
    for (let k = 0; k < L; k++) {
      const dk = f64x2.splat(load<f64>(d + (<usize>k << 3)));
      a = f64x2.add(a, f64x2.mul(v128.load(at), dk));
      b = f64x2.add(b, f64x2.mul(v128.load(at, 16), dk));
      c = f64x2.add(c, f64x2.mul(v128.load(at, 32), dk));
      e = f64x2.add(e, f64x2.mul(v128.load(at, 48), dk));
      at += 8;
    }
    const out = ts + (<usize>f << 3);
    v128.store(out, a);
    v128.store(out, b, 16);
    v128.store(out, c, 32);
    v128.store(out, e, 48);
  }
  for (; f < L; f++) {
    let dot: f64 = 0;
    for (let k = 0; k < L; k++) dot += load<f64>(signs + (<usize>(k + f) << 3)) * load<f64>(d + (<usize>k << 3));
    store<f64>(ts + (<usize>f << 3), dot);
  }
}

/**
 * dwt-dct-soft.ts's softEvidence of classDirection on the `count` soft values at `soft` (block n
 * in class n mod L), operation for operation: T of the payload (signs at `signs`, 2L f64) as
 * written, and the largest of its L - 1 cyclic shifts' T (in magnitude when `twoSided`; -Infinity
 * for L = 1), two f64 at `result`; with `shifts` 0, T alone (softScore: L terms, not L^2). A
 * direction of zeros where the classes give none (an empty class, all alike), as classDirection
 * gives. `scratch`: 29 L + 160 bytes.
 */
export function softEvidence(soft: usize, count: i32, L: i32, bytes: i32, twoSided: i32, shifts: i32, signs: usize, scratch: usize, result: usize): void {
  const sums = scratch;
  const counts = sums + (<usize>L << 3);
  const d = counts + (<usize>L << 2) + 15 & ~15;
  const ts = d + (<usize>L << 3);
  const means = ts + (<usize>(L + 8) << 3);
  classSums(soft, count, 1, L, 0, sums, counts);
  if (!directionOf(sums, counts, L, bytes, d, means)) memory.fill(d, 0, <usize>L << 3);
  if (shifts == 0) {
    let t: f64 = 0;
    for (let k = 0; k < L; k++) t += load<f64>(signs + (<usize>k << 3)) * load<f64>(d + (<usize>k << 3));
    store<f64>(result, t);
    return;
  }
  scores(d, signs, L, ts);
  let nullMax = -Infinity;
  for (let shift = 1; shift < L; shift++) {
    const s = load<f64>(ts + (<usize>shift << 3));
    const v = twoSided != 0 ? abs(s) : s;
    if (v > nullMax) nullMax = v;
  }
  store<f64>(result, load<f64>(ts));
  store<f64>(result, nullMax, 8);
}

/**
 * dwt-dct-soft.ts's cropSoftEvidence on the `wide` x `high` soft values at `soft`: for each
 * original width (`count` i32 at `wides`; one of at least `wide` blocks, a residue mod L not seen
 * before), the class direction, then T of every first bit, the strongest kept (in magnitude when
 * `twoSided`; the first met of equal ones). `signs`: the payload as +-1 f64, twice over (2L).
 * Each T as scores() makes it.
 * Writes t (f64), then originalWide, firstBit, tested (i32) at `result` and returns 1, or returns 0
 * (no width had a direction). `scratch`: 29 L + 160 bytes.
 */
export function cropSoft(soft: usize, wide: i32, high: i32, L: i32, signs: usize, wides: usize, count: i32, twoSided: i32, bytes: i32, scratch: usize, result: usize): i32 {
  const sums = scratch;
  const counts = sums + (<usize>L << 3);
  const d = counts + (<usize>L << 2) + 15 & ~15;
  const ts = d + (<usize>L << 3);
  const means = ts + (<usize>(L + 8) << 3);
  const seen = means + 64;
  memory.fill(seen, 0, <usize>L);
  let found = 0;
  let bestStrength: f64 = 0;
  let tested = 0;
  for (let w = 0; w < count; w++) {
    const originalWide = load<i32>(wides + (<usize>w << 2));
    const residue = originalWide % L;
    if (originalWide < wide || load<u8>(seen + <usize>residue) != 0) continue;
    store<u8>(seen + <usize>residue, 1);
    classSums(soft, wide, high, L, originalWide, sums, counts);
    if (!directionOf(sums, counts, L, bytes, d, means)) continue;
    scores(d, signs, L, ts);
    for (let first = 0; first < L; first++) {
      const t = load<f64>(ts + (<usize>first << 3));
      const strength = twoSided != 0 ? abs(t) : t;
      if (found == 0 || strength > bestStrength) {
        found = 1;
        bestStrength = strength;
        store<f64>(result, t);
        store<i32>(result, originalWide, 8);
        store<i32>(result, first, 12);
      }
    }
    tested += twoSided != 0 ? 2 * L : L;
  }
  store<i32>(result, tested, 16);
  return found;
}

// ---- The displacement reading (src/media/dwt-dct-displacement.ts's displacementSoft, whose
// JavaScript form the tests hold these to, double for double). Per block, of its coefficients but
// the top-left one, the first farthest from its eight neighbours' mean (the band's edge repeated
// outwards); then the arguments of the two tanh (the uint8 and float32 values) from its
// displacement d and that mean m, which JavaScript takes the tanh of (WebAssembly has no tanh of
// the same bits). Each kernel fills a block row's values in a scratch of 4 rows first, eight
// (u16) or two (f64) coefficients a vector, then searches its blocks.

/**
 * x % 36 as JavaScript computes it (C's fmod, the sign of x) for |x| < 2^40: mod36 of |x|, signed.
 * (For x = -0 it gives +0 where JavaScript gives -0: 18 less either is 18.)
 */
// @ts-ignore: decorator
@inline function remainder36Signed(x: f64): f64 {
  return x < 0 ? -mod36(-x) : mod36(x);
}

/** The tanh arguments of displacementSoft's two values for displacement `d` and mean `m`, in its
 * order of operations: at `uint8Out`, (d - kept (18 - m % 36)) / spread; at `float32Out`, the
 * same of the mean seen less `centre` (for a negative one, of -d and -(m - centre)). */
// @ts-ignore: decorator
@inline function storeArguments(d: f64, m: f64, kept: f64, spread: f64, centre: f64, uint8Out: usize, float32Out: usize): void {
  store<f64>(uint8Out, (d - kept * (18.0 - remainder36Signed(m))) / spread);
  const seen = m - centre;
  store<f64>(float32Out, seen >= 0 ? (d - kept * (18.0 - remainder36Signed(seen))) / spread : (-d - kept * (18.0 - remainder36Signed(-seen))) / spread);
}

/**
 * displacementSoft on the u16 2x2 sums at `sums` (`stride` a row, `rows` rows; each sum of four U
 * bytes, at most 1020) read as coefficients (scale 0.5), `wide` x `high` blocks: the tanh
 * arguments (f64, block order) at `uint8Out` and `float32Out`. In integers: with s the eight
 * neighbours' sum and c the centre's, the JavaScript form's c * 0.5 - (s / 8) * 0.5 is
 * e / 16 with e = 8 c - s = 9 c - (the 3x3 sum), and its mean s / 16, both exact in doubles
 * (multiples of 1/16 below 2^10), so the same doubles, and |e| orders the candidates as |d| does.
 * e fits an i16 lane (|e| <= 9 * 1020). `scratch`: 2 (stride + 8) + 32 wide + 16 bytes.
 */
export function displacementSums(sums: usize, stride: i32, rows: i32, wide: i32, high: i32, kept: f64, spread: f64, centre: f64, uint8Out: usize, float32Out: usize, scratch: usize): void {
  const span = wide << 2;
  const rowBytes = <usize>stride << 1;
  // One row of the columns' 3-sums (up + row + down), then the block row's e, 4 rows of span.
  const columns = scratch;
  const moved = (columns + (<usize>(stride + 8) << 1) + 15) & ~15;
  // The columns' sums needed: up to the right neighbour of the last block's last cell.
  const needed = min(span + 1, stride);
  // Cells whose left and right neighbours are both inside the row: 1 .. inner - 1.
  const inner = min(span, stride - 1);
  const last = <usize>(stride - 1) << 1;
  const nine = i16x8.splat(9);
  let n: usize = 0;
  for (let by = 0; by < high; by++) {
    for (let r = 0; r < 4; r++) {
      const y = by * 4 + r;
      const row = sums + <usize>y * rowBytes;
      const up = y > 0 ? row - rowBytes : row;
      const down = y + 1 < rows ? row + rowBytes : row;
      let x = 0;
      for (; x + 8 <= needed; x += 8) {
        const o = <usize>x << 1;
        v128.store(columns + o, i16x8.add(i16x8.add(v128.load(up + o), v128.load(row + o)), v128.load(down + o)));
      }
      for (; x < needed; x++) {
        const o = <usize>x << 1;
        store<i16>(columns + o, <i32>load<u16>(up + o) + <i32>load<u16>(row + o) + <i32>load<u16>(down + o));
      }
      const out = moved + (<usize>(r * span) << 1);
      // The first cell: its left neighbour is itself.
      const right: usize = stride > 1 ? 2 : 0;
      store<i16>(out, 9 * <i32>load<u16>(row) - (2 * <i32>load<i16>(columns) + <i32>load<i16>(columns + right)));
      x = 1;
      for (; x + 8 <= inner; x += 8) {
        const o = <usize>x << 1;
        const box = i16x8.add(i16x8.add(v128.load(columns + o - 2), v128.load(columns + o)), v128.load(columns + o + 2));
        v128.store(out + o, i16x8.sub(i16x8.mul(v128.load(row + o), nine), box));
      }
      for (; x < span; x++) {
        const o = <usize>x << 1;
        const ro = x + 1 < stride ? o + 2 : last;
        store<i16>(out + o, 9 * <i32>load<u16>(row + o) - (<i32>load<i16>(columns + o - 2) + <i32>load<i16>(columns + o) + <i32>load<i16>(columns + ro)));
      }
    }
    // The search without a branch a random picture mispredicts: per cell i of the block the key
    // |e| * 16 + (15 - i), whose largest is the first of the farthest (the top-left cell keyed -1).
    const base = sums + <usize>(by * 4) * rowBytes;
    const spanBytes = <usize>span << 1;
    for (let bx = 0; bx < wide; bx++) {
      const c = moved + (<usize>(bx * 4) << 1);
      const k0 = i32x4.replace_lane(keysOf(c, i32x4(15, 14, 13, 12)), 0, -1);
      const k1 = keysOf(c + spanBytes, i32x4(11, 10, 9, 8));
      const k2 = keysOf(c + 2 * spanBytes, i32x4(7, 6, 5, 4));
      const k3 = keysOf(c + 3 * spanBytes, i32x4(3, 2, 1, 0));
      let m = i32x4.max_s(i32x4.max_s(k0, k1), i32x4.max_s(k2, k3));
      m = i32x4.max_s(m, v128.shuffle<i32>(m, m, 2, 3, 0, 1));
      m = i32x4.max_s(m, v128.shuffle<i32>(m, m, 1, 0, 3, 2));
      const at = 15 - (i32x4.extract_lane(m, 0) & 15);
      const cell = <usize>((at >> 2) * span + (at & 3)) << 1;
      const e = <i32>load<i16>(c + cell);
      const centreSum = <i32>load<u16>(base + <usize>(at >> 2) * rowBytes + (<usize>(bx * 4 + (at & 3)) << 1));
      storeArguments(<f64>e / 16.0, <f64>(8 * centreSum - e) / 16.0, kept, spread, centre, uint8Out + (n << 3), float32Out + (n << 3));
      n++;
    }
  }
}

/** displacementSums' search keys of the four e (i16) at `at`: |e| * 16 + the cells' `order`. */
// @ts-ignore: decorator
@inline function keysOf(at: usize, order: v128): v128 {
  return v128.or(i32x4.shl(i32x4.abs(i32x4.extend_low_i16x8_s(v128.load64_zero(at))), 4), order);
}

/**
 * displacementSoft on the f64 coefficients at `ll` (scale 1; the unsmoothed reading's), as
 * displacementSums: each coefficient's neighbours summed in the JavaScript form's order
 * (up-left, up, up-right, left, right, down-left, down, down-right), / 8, then c less that mean,
 * two coefficients a vector (the same operations on each lane), so the same doubles.
 * `scratch`: 256 wide + 16 bytes.
 */
export function displacementCoefficients(ll: usize, stride: i32, rows: i32, wide: i32, high: i32, kept: f64, spread: f64, centre: f64, uint8Out: usize, float32Out: usize, scratch: usize): void {
  const span = wide << 2;
  const rowBytes = <usize>stride << 3;
  // The block row's displacements, then its means, 4 rows of span each.
  const moved = (scratch + 15) & ~15;
  const means = moved + (<usize>(4 * span) << 3);
  const inner = min(span, stride - 1);
  const eighth = f64x2.splat(8.0);
  let n: usize = 0;
  for (let by = 0; by < high; by++) {
    for (let r = 0; r < 4; r++) {
      const y = by * 4 + r;
      const row = ll + <usize>y * rowBytes;
      const up = y > 0 ? row - rowBytes : row;
      const down = y + 1 < rows ? row + rowBytes : row;
      const dOut = moved + (<usize>(r * span) << 3);
      const mOut = means + (<usize>(r * span) << 3);
      let x = 1;
      for (; x + 2 <= inner; x += 2) {
        const o = <usize>x << 3;
        let s = f64x2.add(f64x2.add(v128.load(up + o - 8), v128.load(up + o)), v128.load(up + o + 8));
        s = f64x2.add(f64x2.add(s, v128.load(row + o - 8)), v128.load(row + o + 8));
        s = f64x2.add(f64x2.add(f64x2.add(s, v128.load(down + o - 8)), v128.load(down + o)), v128.load(down + o + 8));
        const mean = f64x2.div(s, eighth);
        v128.store(mOut + o, mean);
        v128.store(dOut + o, f64x2.sub(v128.load(row + o), mean));
      }
      // The cells at the row's edges (and an odd one left), one at a time.
      coefficientAt(up, row, down, 0, stride, dOut, mOut);
      for (; x < span; x++) coefficientAt(up, row, down, x, stride, dOut, mOut);
    }
    // The farthest |d| first (max, no branch), then the first cell at it: one branch a random
    // picture mispredicts a block, not one a cell.
    const spanBytes = <usize>span << 3;
    for (let bx = 0; bx < wide; bx++) {
      const c = moved + (<usize>(bx * 4) << 3);
      let farthest = max(max(abs(load<f64>(c, 8)), abs(load<f64>(c, 16))), abs(load<f64>(c, 24)));
      for (let r: usize = 1; r < 4; r++) {
        const row = c + r * spanBytes;
        farthest = max(farthest, max(max(abs(load<f64>(row)), abs(load<f64>(row, 8))), max(abs(load<f64>(row, 16)), abs(load<f64>(row, 24)))));
      }
      let best: usize = 0;
      for (let i = 1; i < 16; i++) {
        best = (<usize>((i >> 2) * span + (i & 3))) << 3;
        if (abs(load<f64>(c + best)) == farthest) break;
      }
      best += <usize>(bx * 4) << 3;
      storeArguments(load<f64>(moved + best), load<f64>(means + best), kept, spread, centre, uint8Out + (n << 3), float32Out + (n << 3));
      n++;
    }
  }
}

/** displacementCoefficients' value of the cell `x` of `row` on its own, neighbours clamped to the row. */
// @ts-ignore: decorator
@inline function coefficientAt(up: usize, row: usize, down: usize, x: i32, stride: i32, dOut: usize, mOut: usize): void {
  const o = <usize>x << 3;
  const left = x > 0 ? o - 8 : o;
  const right = x + 1 < stride ? o + 8 : o;
  const s = load<f64>(up + left) + load<f64>(up + o) + load<f64>(up + right) + load<f64>(row + left) + load<f64>(row + right) + load<f64>(down + left) + load<f64>(down + o) + load<f64>(down + right);
  const mean = s / 8.0;
  store<f64>(mOut + o, mean);
  store<f64>(dOut + o, load<f64>(row + o) - mean);
}
