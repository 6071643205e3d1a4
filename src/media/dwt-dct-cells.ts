// The 2x2 sums of a picture's U plane (opencv-yuv.ts), for both channel orders the encoders used,
// in one pass over the pixels. Every dwtDct reading of a picture starts from them: a Haar LL
// coefficient is (up to pywt's ulps, see dwt-dct.ts) half such a sum, so the reference's
// reading, the swapped one and the unsmoothed one (chroma-upsampling.ts) all read these cells,
// and a picture's pixels are read once for all of them, not once per reading.
import { uAt } from './opencv-yuv.js';
import type { RawPixels } from './pixels.js';

/** 2x2 sums of the U plane, `cellsWide` cells a row from the top-left, for each channel order. */
export interface CellSums {
  cellsWide: number;
  cellsHigh: number;
  /** U as an encoder handed BGR wrote it (the reference's), and as one handed RGB did. */
  bgr: Uint16Array;
  rgb: Uint16Array;
}

/** The sums of the whole picture's cells, both orders: the JavaScript form the WebAssembly kernel
 * (dwt-dct-wasm.ts) is held to by the tests. */
export function cellSums(pixels: RawPixels): CellSums {
  const cellsWide = pixels.width >> 1;
  const cellsHigh = pixels.height >> 1;
  const bgr = new Uint16Array(cellsWide * cellsHigh);
  const rgb = new Uint16Array(cellsWide * cellsHigh);
  const { width, channels, data } = pixels;
  const rowBytes = width * channels;
  for (let cy = 0, o = 0; cy < cellsHigh; cy++) {
    for (let cx = 0; cx < cellsWide; cx++, o++) {
      // The cell's four pixels; RGB samples, so blue is the third for bgr and the first for rgb.
      const p = 2 * cy * rowBytes + 2 * cx * channels;
      const q = p + rowBytes;
      bgr[o] = uAt(data, p, 2, 0) + uAt(data, p + channels, 2, 0) + uAt(data, q, 2, 0) + uAt(data, q + channels, 2, 0);
      rgb[o] = uAt(data, p, 0, 2) + uAt(data, p + channels, 0, 2) + uAt(data, q, 0, 2) + uAt(data, q + channels, 0, 2);
    }
  }
  return { cellsWide, cellsHigh, bgr, rgb };
}
