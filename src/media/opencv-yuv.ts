// The U (blue-difference) plane of a picture exactly as OpenCV 4's cvtColor(COLOR_BGR2YUV)
// computes it on 8-bit samples: fixed point with 14 fractional bits, Y rounded to an integer
// before U is derived from it. The invisible-watermark decoder reads this plane, and a value one
// off moves a Haar coefficient by 0.5, enough to flip a block's bit near its decision boundary,
// so the float formula (0.492 * (B - Y) + 128) would not do.
import type { RawPixels } from './pixels.js';

// OpenCV's integer coefficients (imgproc color.hpp: yuv_shift 14; B2Y 1868, G2Y 9617, R2Y 4899
// and B2UI 8061), written as literals in uAt: V8 then knows every product fits in 31 bits, and
// the plane costs a third of what it does with module constants.
//   Y = (B*1868 + G*9617 + R*4899 + 2^13) >> 14
//   U = ((B - Y)*8061 + (128 << 14) + 2^13) >> 14     (128 << 14 centres U on 128)

/**
 * Which sample the encoder took for blue. `bgr`: the picture was handed to the encoder in
 * OpenCV's order, as the reference scripts do. `rgb`: it was handed over in RGB order while the
 * encoder assumed BGR (diffusers' SDXL watermarker from 2023-07 to 2024-04), so the encoder's
 * "blue" was our red.
 */
export type EncoderChannelOrder = 'bgr' | 'rgb';

/**
 * U of the pixel whose samples start at `data[p]`, the encoder's blue at `p + blue` and red at
 * `p + red` (0 or 2). Never outside 0..253 for 8-bit input, so OpenCV's saturate_cast has nothing
 * to clip.
 */
export function uAt(data: Uint8Array, p: number, blue: number, red: number): number {
  const b = data[p + blue]!;
  const yLuma = (b * 1868 + data[p + 1]! * 9617 + data[p + red]! * 4899 + 8192) >> 14;
  return ((b - yLuma) * 8061 + 2105344) >> 14;
}

/**
 * The 8-bit U plane of the top-left `planeWidth` x `planeHeight` pixels, row-major, into `out`
 * (allocated when not given). Alpha is ignored, as cv2.imread(IMREAD_COLOR) drops it.
 */
export function opencvUPlane(
  pixels: RawPixels,
  planeWidth: number,
  planeHeight: number,
  order: EncoderChannelOrder = 'bgr',
  out: Uint8Array = new Uint8Array(planeWidth * planeHeight),
): Uint8Array {
  const { width, channels, data } = pixels;
  if (planeWidth > width || planeHeight > pixels.height) throw new RangeError('plane larger than the picture');
  // Offsets, within a pixel, of the samples the encoder took as blue and as red.
  const blue = order === 'bgr' ? 2 : 0;
  const red = 2 - blue;
  let o = 0;
  for (let y = 0; y < planeHeight; y++) {
    let p = y * width * channels;
    for (let x = 0; x < planeWidth; x++, p += channels) out[o++] = uAt(data, p, blue, red);
  }
  return out;
}
