// The 2x2 sums of a picture's U plane (opencv-yuv.ts), for both channel orders the encoders used,
// in one pass over the pixels. Every dwtDct reading of a picture starts from them: a Haar LL
// coefficient is (up to pywt's ulps, see dwt-dct.ts) half such a sum, so the reference's
// reading, the swapped one and the unsmoothed one (chroma-upsampling.ts) all read these cells,
// and a picture's pixels are read once for all of them, not once per reading.
import type { RawPixels } from './pixels.js';

/** 2x2 sums of the U plane, `cellsWide` cells a row from the top-left, for each channel order. */
export interface CellSums {
  cellsWide: number;
  cellsHigh: number;
  /** U as an encoder handed BGR wrote it (the reference's), and as one handed RGB did. */
  bgr: Uint16Array;
  rgb: Uint16Array;
}

/** The sums of cell rows `from`..`to` (exclusive; all of them by default) of the whole picture. */
export function cellSums(pixels: RawPixels, from = 0, to = pixels.height >> 1): CellSums {
  const cellsWide = pixels.width >> 1;
  const cellsHigh = to - from;
  const bgr = new Uint16Array(cellsWide * cellsHigh);
  const rgb = new Uint16Array(cellsWide * cellsHigh);
  const { width, channels, data } = pixels;
  const rowBytes = width * channels;
  for (let cy = 0, o = 0; cy < cellsHigh; cy++) {
    let p = 2 * (from + cy) * rowBytes;
    let q = p + rowBytes;
    for (let cx = 0; cx < cellsWide; cx++, o++) {
      // opencv-yuv.ts's integers for the cell's four pixels, with the samples loaded once for both
      // orders: the `b` sample (RGB's third) as blue for bgr, the `r` sample as blue for rgb.
      const r0 = data[p]!, g0 = data[p + 1]! * 9617, b0 = data[p + 2]!;
      const r1 = data[p + channels]!, g1 = data[p + channels + 1]! * 9617, b1 = data[p + channels + 2]!;
      const r2 = data[q]!, g2 = data[q + 1]! * 9617, b2 = data[q + 2]!;
      const r3 = data[q + channels]!, g3 = data[q + channels + 1]! * 9617, b3 = data[q + channels + 2]!;
      bgr[o] =
        (((b0 - ((b0 * 1868 + g0 + r0 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14) +
        (((b1 - ((b1 * 1868 + g1 + r1 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14) +
        (((b2 - ((b2 * 1868 + g2 + r2 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14) +
        (((b3 - ((b3 * 1868 + g3 + r3 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14);
      rgb[o] =
        (((r0 - ((r0 * 1868 + g0 + b0 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14) +
        (((r1 - ((r1 * 1868 + g1 + b1 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14) +
        (((r2 - ((r2 * 1868 + g2 + b2 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14) +
        (((r3 - ((r3 * 1868 + g3 + b3 * 4899 + 8192) >> 14)) * 8061 + 2105344) >> 14);
      p += 2 * channels;
      q += 2 * channels;
    }
  }
  return { cellsWide, cellsHigh, bgr, rgb };
}
