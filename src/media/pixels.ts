// The pixel reader: 8-bit sRGB samples of an image, decoded by sharp (libvips). sharp is loaded
// only when a pixel check runs (its native module costs ~40 ms to load), and one file's pixels
// are decoded once however many checks read them (the watermark decoder, NovelAI's alpha
// payload and its signature all read the same file). What a decode may cost is bounded and
// counted (pixel-memory.ts): pictures over MAX_DECODED_PIXELS are refused from their header, and
// each decode holds its bytes in the process's PixelGate until releasePixels (engine/detect.ts).
import { createRequire } from 'node:module';
import type { Sharp, SharpOptions } from 'sharp';
import { decodeCost, isWebp, MAX_DECODED_PIXELS, PixelGate } from './pixel-memory.js';
import { pictureSize, type PictureSize } from './picture-size.js';

export { MAX_DECODED_PIXELS };

/** Row-major 8-bit samples, `channels` per pixel: RGB, or RGBA when the file has alpha. */
export interface RawPixels {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Uint8Array;
}

/** The image could not be decoded into pixels (damaged, truncated, or past MAX_DECODED_PIXELS). */
export class PixelDecodeError extends Error {
  override name = 'PixelDecodeError';
}

type SharpFactory = (input: Uint8Array, options?: SharpOptions) => Sharp;
let sharpLoading: Promise<SharpFactory> | undefined;

/** sharp, imported on first use. */
export function loadSharp(): Promise<SharpFactory> {
  sharpLoading ??= Promise.resolve().then(() => {
    // require, not import(): sharp is CommonJS, and Node's ESM loader first parses each of its
    // modules for their exports: `import('sharp')` took 60 ms of a cold process, require 35 ms
    // (hyperfine, 20 runs: 78 against 53 ms with Node's own start).
    const mod = createRequire(import.meta.url)('sharp') as { default?: unknown };
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

/** This thread's view of its process's gate: a worker is handed the pool's (useDecodeGate). */
let gate: PixelGate | undefined;
/** The decoded-pixel gate of this process (created on first use on the main thread). */
export function decodeGate(): PixelGate {
  gate ??= new PixelGate();
  return gate;
}
/** A worker thread counts its decodes in the gate whose shared memory the pool passed it, and
 * what it holds in `ledger` (for the pool to reclaim should it terminate the worker). */
export function useDecodeGate(memory: SharedArrayBuffer, ledger?: SharedArrayBuffer): void {
  gate = new PixelGate(memory, ledger);
}
/** The gate's hold of each decoded file, given back by releasePixels. */
interface Hold {
  bytes: number;
  release(): void;
}
const holds = new WeakMap<Uint8Array, Hold>();
/** Files whose caller gives their pixels back with releasePixels (trackPixels). */
const tracked = new WeakSet<Uint8Array>();

/** The caller (engine/detect.ts) will call releasePixels(bytes) once its checks are done: until
 * then the file's decoded pixels stay counted in the gate. A decode of a file not tracked (a
 * direct caller: tests, scripts) is counted only while it decodes, so that nothing it keeps can
 * hold the gate shut. */
export function trackPixels(bytes: Uint8Array): void {
  tracked.add(bytes);
}

/** Decodes `bytes` once (memoised per byte array) into 8-bit sRGB, keeping alpha when present. */
export function decodePixels(bytes: Uint8Array): Promise<RawPixels> {
  let pending = decoded.get(bytes);
  if (!pending) {
    pending = decode(bytes);
    decoded.set(bytes, pending);
  }
  return pending;
}

/**
 * The file's checks are done: its pixels leave the memo and their bytes go back to the gate.
 * `collect` is called first, with the bytes held, while nothing refers to the pixels any more: a
 * caller that can free them now (a garbage collection) does so before their room is given back,
 * or the next decode would find that room still taken by dead pixels.
 */
export function releasePixels(bytes: Uint8Array, collect?: (heldBytes: number) => void): void {
  decoded.delete(bytes);
  tracked.delete(bytes);
  const hold = holds.get(bytes);
  holds.delete(bytes);
  if (!hold) return;
  collect?.(hold.bytes);
  hold.release();
}

async function decode(bytes: Uint8Array): Promise<RawPixels> {
  // The size from the header first: a picture over the bound is refused before a byte of its
  // pixels exists, and the rest wait for room in the gate (pixel-memory.ts). From the header
  // bytes when they are plain (picture-size.ts), else from libvips' metadata (a millisecond more
  // a file: a second parse of the file in libvips, a seventh of a 2 MP JPEG's decode).
  const header = plainSize(bytes) ?? (await readPixelHeader(bytes));
  if (header.width * header.height > MAX_DECODED_PIXELS) throw new PixelDecodeError(overLimit());
  const cost = decodeCost(header.width, header.height, isWebp(bytes));
  const release = await decodeGate().acquire(cost);
  try {
    const pixels = await decodeHeld(bytes);
    if (tracked.has(bytes)) holds.set(bytes, { bytes: cost, release });
    else release();
    return pixels;
  } catch (err) {
    release();
    throw err;
  }
}

async function decodeHeld(bytes: Uint8Array): Promise<RawPixels> {
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

/** The stored size from a PNG, JPEG or WebP header in its plain forms, told by its magic bytes. */
function plainSize(bytes: Uint8Array): PictureSize | undefined {
  const type = isWebp(bytes) ? 'image/webp' : bytes[0] === 0x89 && bytes[1] === 0x50 ? 'image/png' : bytes[0] === 0xff && bytes[1] === 0xd8 ? 'image/jpeg' : undefined;
  return type ? pictureSize(bytes, type) : undefined;
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
export function readPixelHeader(bytes: Uint8Array): Promise<PixelHeader> {
  // Memoised like the pixels: invisible_watermark reads the header, then decode() reads it again.
  let pending = headers.get(bytes);
  if (!pending) {
    pending = readHeader(bytes);
    headers.set(bytes, pending);
  }
  return pending;
}
const headers = new WeakMap<Uint8Array, Promise<PixelHeader>>();

async function readHeader(bytes: Uint8Array): Promise<PixelHeader> {
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
  if (/pixel limit/i.test(message)) return overLimit();
  const first = message.split('\n')[0]!.replace(/^[a-z_]+load(_buffer)?: /, '').trim();
  return `its pixels could not be decoded (${first || 'unknown decoder error'})`;
}

function overLimit(): string {
  return `the picture has more than ${MAX_DECODED_PIXELS.toLocaleString('en-US')} pixels`;
}
