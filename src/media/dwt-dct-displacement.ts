// The displacement reading of a dwtDct mark (issue 39), a second soft value per block beside the
// phase of dwt-dct-soft.ts. The encoder moves a block's largest LL coefficient v (top-left
// excluded) to 36 m + 9 (bit 0) or 36 m + 27 (bit 1), where 36 m <= v < 36 m + 36: from v's own
// place in the period r = v mod 36 by 9 - r or 27 - r, 18 apart whatever r is. A lossy save (a
// JPEG's chroma quantiser above all) undoes part of that move, and the phase of what is left no
// longer tells the bit: moved a quarter of the way from r = 2, bit 0 lands at 3.8 and bit 1 at
// 8.3, both in the half of the period that reads 0. The move itself still tells it, if v is
// known: the LL band of a picture's chroma is smooth, so where v was is about the mean m of the
// coefficient's eight neighbours in the band. So each block gives, for its coefficient (top-left
// excluded) that stands farthest from its neighbours' mean, c against m:
//   soft = tanh((c - m - KEPT * (18 - m mod 36)) / SPREAD)
// which leans to +1 for bit 1 and -1 for bit 0 even where only part of the move survived (and
// finds a bit-0 move that took the marked coefficient below the others, which the largest
// coefficient, the reference's and the phase's choice, misses). The payload statistic over these
// values (dwt-dct-soft.ts's classDirection and softEvidence) keeps its bound: that bound holds for
// any per-block values, since it comes from the payload's bits, not from the picture.
//
// SDXL's float32 encoders (diffusers' StableDiffusionXLWatermarker, Stability's generative-models)
// hand the encoder a float picture, for which OpenCV centres U on 0.5 instead of 128: the LL
// coefficient the encoder saw is v - FLOAT_CENTRE of the one a decoder reads, and where it was
// negative (warm chroma) the encoder moved its magnitude, so the move goes down for bit 1 and
// its place in the period is counted from the other side. The float32 value of a block reads the
// same coefficient with that centre: for m - FLOAT_CENTRE >= 0 as above with r = (m - 255) mod
// 36, else tanh((m - c - KEPT (18 - (255 - m) mod 36)) / SPREAD). It leans to +1 for bit 1 on
// warm and cool chroma alike, where the phase and the uint8 value read warm blocks inverted and
// the two halves of a picture cancel.

/** The share of the encoder's move a save is taken to have kept (the wm-jpeg helper's held-out
 * JPEG q95 4:2:0: 0.3 to 0.5 found within 4 files of each other of 196, none 0.0 far fewer). */
export const KEPT = 0.4;
/** The width, in LL units, over which the soft value goes from 0 to most of +-1 (tanh; 6 to 9
 * found within 2 files of each other there). */
export const SPREAD = 6;
/** A float32 encoder's U is the decoder's less 127.5 (OpenCV's YUV centre for floats is 0.5, for
 * bytes 128), so its LL coefficients (twice a 2x2 mean) are the decoder's less 255. */
export const FLOAT_CENTRE = 255;

/** Per block, the displacement soft value as a uint8 encoder moved it and as a float32 one did. */
export interface DisplacementSoft {
  uint8: Float64Array;
  float32: Float64Array;
}

/**
 * Per block, the displacement soft values (uint8 and float32) of the LL coefficients `ll` (`stride` a row, as many
 * rows as it holds; each multiplied by `scale`: 0.5 reads 2x2 sums as coefficients), 4x4 a block,
 * `wide` x `high` blocks, in block order. A coefficient's neighbours past the band's edge are the
 * edge's own (the band repeated outwards). The plain form of the WebAssembly kernels'
 * (dwt-dct-wasm.ts), which give the same doubles.
 */
export function displacementSoft(ll: ArrayLike<number>, stride: number, wide: number, high: number, scale = 1): DisplacementSoft {
  const rows = Math.floor(ll.length / stride);
  const out = new Float64Array(wide * high);
  const float32 = new Float64Array(wide * high);
  for (let by = 0, n = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++) {
      let farthest = -1;
      let displacement = 0;
      let around = 0;
      for (let i = 1; i < 16; i++) {
        const y = by * 4 + (i >> 2);
        const x = bx * 4 + (i & 3);
        const up = (y > 0 ? y - 1 : 0) * stride;
        const row = y * stride;
        const down = (y + 1 < rows ? y + 1 : y) * stride;
        const left = x > 0 ? x - 1 : 0;
        const right = x + 1 < stride ? x + 1 : x;
        const sum = ll[up + left]! + ll[up + x]! + ll[up + right]! + ll[row + left]! + ll[row + right]! + ll[down + left]! + ll[down + x]! + ll[down + right]!;
        const mean = (sum / 8) * scale;
        const d = ll[row + x]! * scale - mean;
        if (Math.abs(d) > farthest) {
          farthest = Math.abs(d);
          displacement = d;
          around = mean;
        }
      }
      out[n] = Math.tanh((displacement - KEPT * (18 - (around % 36))) / SPREAD);
      const seen = around - FLOAT_CENTRE;
      float32[n++] = seen >= 0 ? Math.tanh((displacement - KEPT * (18 - (seen % 36))) / SPREAD) : Math.tanh((-displacement - KEPT * (18 - (-seen % 36))) / SPREAD);
    }
  }
  return { uint8: out, float32 };
}

/** The soft values from their tanh arguments (the kernels' displacementSoft: dwt-dct-wasm.ts;
 * WebAssembly has no tanh of JavaScript's bits), into new arrays. */
export function softOfArguments(uint8: Float64Array, float32: Float64Array): DisplacementSoft {
  const soft = { uint8: new Float64Array(uint8.length), float32: new Float64Array(float32.length) };
  for (let n = 0; n < uint8.length; n++) {
    soft.uint8[n] = Math.tanh(uint8[n]!);
    soft.float32[n] = Math.tanh(float32[n]!);
  }
  return soft;
}
