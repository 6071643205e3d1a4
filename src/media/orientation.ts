// EXIF orientation applied to decoded pixels. cv2.imread (IMREAD_COLOR, the call the watermark
// reference scripts use) turns JPEG and PNG pictures upright by their EXIF orientation before
// decoding the mark (WebP not: OpenCV 4.6's WebP reader reads no EXIF), so a check that must
// read the same blocks must turn them the same way. decodePixels leaves samples as stored.
import type { RawPixels } from './pixels.js';

/**
 * The pixels as displayed under EXIF `orientation` (1: as stored; 2: mirrored; 3: turned
 * 180 degrees; 4: flipped; 5: transposed; 6: turned 90 degrees clockwise; 7: transversed;
 * 8: turned 90 degrees anticlockwise). Any other value leaves them as stored.
 */
export function orientPixels(pixels: RawPixels, orientation: number): RawPixels {
  if (!Number.isInteger(orientation) || orientation < 2 || orientation > 8) return pixels;
  const { width: w, height: h, channels: ch, data } = pixels;
  const swapsSides = orientation >= 5;
  const outW = swapsSides ? h : w;
  const outH = swapsSides ? w : h;
  const out = new Uint8Array(data.length);
  let o = 0;
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      // (sx, sy): the stored pixel shown at (x, y).
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: sx = w - 1 - x; sy = y; break;
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;
        case 4: sx = x; sy = h - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = h - 1 - x; break;
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;
        default: sx = w - 1 - y; sy = x; break; // 8
      }
      const s = (sy * w + sx) * ch;
      for (let c = 0; c < ch; c++) out[o++] = data[s + c]!;
    }
  }
  return { width: outW, height: outH, channels: ch, data: out };
}
