// The pixel reader: 8-bit sRGB samples of an image, decoded by sharp (libvips). sharp is loaded
// only when a pixel check runs (its native module costs ~40 ms to load), and one file's pixels
// are decoded once however many checks read them (the watermark decoder, NovelAI's alpha
// payload and its signature all read the same file).
import type { Sharp, SharpOptions } from 'sharp';

/** Row-major 8-bit samples, `channels` per pixel: RGB, or RGBA when the file has alpha. */
export interface RawPixels {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Uint8Array;
}

/** Files larger than this are not decoded (a generator's output is far smaller; a 100,000 x
 * 100,000 PNG header must not make us allocate 40 GB). 8,192 x 8,192 = 67 M pixels. */
export const MAX_DECODED_PIXELS = 8192 * 8192;

/** The image could not be decoded into pixels (damaged, truncated, or past MAX_DECODED_PIXELS). */
export class PixelDecodeError extends Error {
  override name = 'PixelDecodeError';
}

type SharpFactory = (input: Uint8Array, options?: SharpOptions) => Sharp;
let sharpLoading: Promise<SharpFactory> | undefined;

/** sharp, imported on first use. */
export function loadSharp(): Promise<SharpFactory> {
  sharpLoading ??= import('sharp').then((mod) => {
    const factory = (mod.default ?? mod) as unknown as SharpFactory & { cache(o: boolean): void; concurrency(n: number): number };
    // libvips' operation cache keeps recent images alive for reuse; we never decode one twice.
    factory.cache(false);
    // One libvips thread per decode: the pictures read here are decoded whole into memory, which
    // libjpeg, libpng and libwebp do on one thread anyway, and a scan already runs a decode per
    // core in its worker pool; libvips' default (a thread per core per decode) only adds threads
    // that compete with the pool's.
    factory.concurrency(1);
    return factory;
  });
  return sharpLoading;
}

const decoded = new WeakMap<Uint8Array, Promise<RawPixels>>();

/** Decodes `bytes` once (memoised per byte array) into 8-bit sRGB, keeping alpha when present. */
export function decodePixels(bytes: Uint8Array): Promise<RawPixels> {
  let pending = decoded.get(bytes);
  if (!pending) {
    pending = decode(bytes);
    decoded.set(bytes, pending);
  }
  return pending;
}

async function decode(bytes: Uint8Array): Promise<RawPixels> {
  const sharp = await loadSharp();
  try {
    // failOn 'none': a generator's file with a slightly short last row is still worth reading,
    // as OpenCV's imread reads it. toColourspace('srgb') turns grey and palette images into RGB
    // and 16-bit samples into 8-bit.
    const image = sharp(bytes, { limitInputPixels: MAX_DECODED_PIXELS, failOn: 'none', sequentialRead: true });
    const { data, info } = await image.toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 && info.channels !== 4) {
      throw new PixelDecodeError(`the decoder gave ${info.channels} channels per pixel`);
    }
    return {
      width: info.width,
      height: info.height,
      channels: info.channels,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  } catch (err) {
    if (err instanceof PixelDecodeError) throw err;
    throw new PixelDecodeError(describeSharpError(err));
  }
}

/** What a file's header says of its picture, read without decoding the pixels. */
export interface PixelHeader {
  width: number;
  height: number;
  /** The EXIF orientation (1-8) the file carries; 1 when it has none. */
  orientation: number;
}

/** The picture's stored size and EXIF orientation, from the header alone (a check can refuse a
 * picture by its size before paying for its decode). Throws PixelDecodeError when unreadable. */
export async function readPixelHeader(bytes: Uint8Array): Promise<PixelHeader> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes, { limitInputPixels: false, failOn: 'none' }).metadata();
    if (!meta.width || !meta.height) throw new PixelDecodeError('its header gives no picture size');
    return { width: meta.width, height: meta.height, orientation: meta.orientation ?? 1 };
  } catch (err) {
    if (err instanceof PixelDecodeError) throw err;
    throw new PixelDecodeError(describeSharpError(err));
  }
}

/** sharp's messages, as one short clause without libvips' internal prefixes. */
function describeSharpError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) return `the picture has more than ${MAX_DECODED_PIXELS.toLocaleString('en-US')} pixels`;
  const first = message.split('\n')[0]!.replace(/^[a-z_]+load(_buffer)?: /, '').trim();
  return `its pixels could not be decoded (${first || 'unknown decoder error'})`;
}
