// A test-side dwtDct watermark embedder, written from the algorithm (not from the reference's
// code): in each 8x8-pixel block, the Haar LL coefficient of largest magnitude other than the
// block's first is moved to (floor(c / 36) + 0.25 + 0.5 * bit) * 36, block n carrying bit
// n mod L, all on the U (blue-difference) plane. It works on floats and moves the four U samples
// under the coefficient evenly, then rounds back to 8-bit RGB; rounding and clipping put a few
// blocks off their bit, and the vote over many blocks per bit still recovers the message.
// Also here: synthetic pictures to mark, and PNG/JPEG writers, all through sharp.
import sharp from 'sharp';

export interface Picture {
  width: number;
  height: number;
  /** RGB, row-major. */
  data: Uint8Array;
}

/** A deterministic, colourful picture: smooth gradients plus texture, so U varies. */
export function syntheticPicture(width: number, height: number, seed = 1): Picture {
  const data = new Uint8Array(width * height * 3);
  let state = seed >>> 0 || 1;
  const noise = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) % 17) - 8;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 3;
      // Kept within 30..225 so the embedding's changes are not clipped.
      const r = 125 + 60 * Math.sin(x / 37 + seed) + noise();
      const g = 120 + 50 * Math.cos(y / 23) + noise();
      const b = 128 + 70 * Math.sin((x + y) / 51 + seed / 3) + noise();
      data[p] = clamp(r);
      data[p + 1] = clamp(g);
      data[p + 2] = clamp(b);
    }
  }
  return { width, height, data };
}

/** One flat colour (flat chroma: every block reads 0 or every block reads 1). */
export function flatPicture(width: number, height: number, rgb: [number, number, number]): Picture {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i += 3) data.set(rgb, i);
  return { width, height, data };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

export interface EmbedOptions {
  /** `rgb`: mark as an encoder handed RGB samples while it assumed BGR would (the encoder's blue
   * is our red). Default `bgr`, the correct order. */
  order?: 'bgr' | 'rgb';
}

/** `picture` with `bits` embedded (a copy). */
export function embedDwtDct(picture: Picture, bits: ArrayLike<number>, options: EmbedOptions = {}): Picture {
  const { width, height } = picture;
  const out = new Uint8Array(picture.data);
  const blue = options.order === 'rgb' ? 0 : 2;
  const red = 2 - blue;
  // Float Y, U, V (BT.601 as OpenCV's YUV: U = 0.492 (B - Y) + 128, V = 0.877 (R - Y) + 128).
  const n = width * height;
  const Y = new Float64Array(n);
  const U = new Float64Array(n);
  const V = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const b = out[i * 3 + blue]!;
    const g = out[i * 3 + 1]!;
    const r = out[i * 3 + red]!;
    Y[i] = 0.299 * r + 0.587 * g + 0.114 * b;
    U[i] = 0.492 * (b - Y[i]!) + 128;
    V[i] = 0.877 * (r - Y[i]!) + 128;
  }
  const wide = Math.floor(width / 8);
  const high = Math.floor(height / 8);
  let blockIndex = 0;
  for (let by = 0; by < high; by++) {
    for (let bx = 0; bx < wide; bx++, blockIndex++) {
      const bit = bits[blockIndex % bits.length]!;
      // LL cell (i, j) of this block covers pixels (bx*8 + 2j .. +1, by*8 + 2i .. +1).
      let best = -1;
      let bestCell = 1;
      for (let cell = 1; cell < 16; cell++) {
        const v = Math.abs(llCell(U, width, bx, by, cell));
        if (v > best) {
          best = v;
          bestCell = cell;
        }
      }
      const c = llCell(U, width, bx, by, bestCell);
      const magnitude = Math.abs(c);
      let target = (Math.floor(magnitude / 36) + 0.25 + 0.5 * bit) * 36;
      // Unlike the real encoder, only ever raise the magnitude, so the coefficient stays the
      // block's largest and the decoder reads this very one: the fixtures carry every bit.
      if (target < magnitude) target += 36;
      const delta = (Math.sign(c) || 1) * (target - magnitude);
      // LL = (sum of the 2x2 samples) / 2: adding delta/2 to each moves it by delta.
      const x0 = bx * 8 + (bestCell & 3) * 2;
      const y0 = by * 8 + (bestCell >> 2) * 2;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) U[(y0 + dy) * width + x0 + dx]! += delta / 2;
    }
  }
  for (let i = 0; i < n; i++) {
    const y = Y[i]!;
    const b = (U[i]! - 128) / 0.492 + y;
    const r = (V[i]! - 128) / 0.877 + y;
    const g = (y - 0.299 * r - 0.114 * b) / 0.587;
    out[i * 3 + blue] = clamp(b);
    out[i * 3 + 1] = clamp(g);
    out[i * 3 + red] = clamp(r);
  }
  return { width, height, data: out };
}

function llCell(U: Float64Array, width: number, bx: number, by: number, cell: number): number {
  const x = bx * 8 + (cell & 3) * 2;
  const y = by * 8 + (cell >> 2) * 2;
  const p = y * width + x;
  return (U[p]! + U[p + 1]! + U[p + width]! + U[p + width + 1]!) / 2;
}

/** The bits of the message as the flipped complement (what a float32 encoder leaves on warm
 * pictures). */
export function invert(bits: ArrayLike<number>): Uint8Array {
  return Uint8Array.from(bits, (b) => 1 - b);
}

export function toPng(picture: Picture): Promise<Uint8Array> {
  return raw(picture).png().toBuffer().then((b) => new Uint8Array(b));
}

export function toJpeg(picture: Picture, quality: number, chromaSubsampling: '4:4:4' | '4:2:0' = '4:4:4'): Promise<Uint8Array> {
  return raw(picture)
    .jpeg({ quality, chromaSubsampling })
    .toBuffer()
    .then((b) => new Uint8Array(b));
}

/** `picture` resized to `width` x `height` (sharp's default Lanczos 3), as a PNG. */
export function resizedPng(picture: Picture, width: number, height: number): Promise<Uint8Array> {
  return raw(picture)
    .resize(width, height)
    .png()
    .toBuffer()
    .then((b) => new Uint8Array(b));
}

/** The `width` x `height` part of `picture` from (left, top), as a PNG. */
export function croppedPng(picture: Picture, left: number, top: number, width: number, height: number): Promise<Uint8Array> {
  return raw(picture)
    .extract({ left, top, width, height })
    .png()
    .toBuffer()
    .then((b) => new Uint8Array(b));
}

function raw(picture: Picture) {
  return sharp(picture.data, { raw: { width: picture.width, height: picture.height, channels: 3 } });
}
