// Payloads hidden in the least significant bit of the alpha channel: NovelAI's "stealth_pngcomp"
// (nai_meta.py / nai_sig.py in NovelAI/novelai-image-metadata) and the "stealth_pnginfo" /
// "stealth_pngcomp" of the sd-webui-stealth-pnginfo extension, which share one layout:
// - bits are read column by column (x outer, y inner: NovelAI's LSBExtractor steps the row first),
//   most significant bit of each byte first;
// - 15 bytes of magic, a 32-bit big-endian length IN BITS, then that many bits of payload;
// - "comp" payloads are gzip, "info" payloads plain UTF-8.
// The length is checked against the bits the picture holds before anything is read (a payload
// that claims 4 GB in a 128 x 128 picture is not one), and gunzip output is capped.
import { zlib } from './lazy-builtins.js';
import type { RawPixels } from './pixels.js';

export const STEALTH_MAGICS = ['stealth_pngcomp', 'stealth_pnginfo'] as const;
export type StealthMagic = (typeof STEALTH_MAGICS)[number];

/** A payload inflates to at most this (NovelAI's is a few KB). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

const MAGIC_BITS = 15 * 8;
const HEADER_BITS = MAGIC_BITS + 32;

export type StealthResult =
  | { found: false }
  | { found: true; magic: StealthMagic; text?: string; problem?: string };

class ColumnBits {
  private readonly height: number;
  private readonly stride: number;
  private readonly alpha: number;

  constructor(private readonly pixels: RawPixels) {
    this.height = pixels.height;
    this.stride = pixels.width * pixels.channels;
    this.alpha = pixels.channels - 1;
  }

  get total(): number {
    return this.pixels.width * this.pixels.height;
  }

  /** `count` bytes from bit `start` (column-major), MSB first. */
  bytes(start: number, count: number): Uint8Array {
    const out = new Uint8Array(count);
    const { data, channels } = this.pixels;
    let i = start;
    for (let k = 0; k < count; k++) {
      let v = 0;
      for (let bit = 0; bit < 8; bit++, i++) {
        const x = Math.floor(i / this.height);
        const y = i - x * this.height;
        v = (v << 1) | (data[y * this.stride + x * channels + this.alpha]! & 1);
      }
      out[k] = v;
    }
    return out;
  }
}

const utf8 = new TextDecoder('utf-8');

/**
 * The top-left region whose alpha holds the magic's 120 bits in column-major order: the first
 * 120 rows of column 0, or, in a picture shorter than that, as many whole columns as it takes.
 */
export function magicRegion(width: number, height: number): { width: number; height: number } {
  return { width: Math.min(width, Math.ceil(MAGIC_BITS / Math.max(1, height))), height: Math.min(height, MAGIC_BITS) };
}

/** The magic the alpha channel of `pixels` (the whole picture or its magicRegion) starts with. */
export function stealthMagic(pixels: RawPixels): StealthMagic | undefined {
  if (pixels.channels !== 4 || pixels.width * pixels.height < MAGIC_BITS) return undefined;
  const magic = Buffer.from(new ColumnBits(pixels).bytes(0, 15)).toString('latin1');
  return (STEALTH_MAGICS as readonly string[]).includes(magic) ? (magic as StealthMagic) : undefined;
}

/** The stealth payload of RGBA `pixels`, if the alpha channel starts with one of the magics. */
export function readAlphaStealth(pixels: RawPixels): StealthResult {
  const bits = new ColumnBits(pixels);
  if (bits.total < HEADER_BITS) return { found: false };
  const magic = stealthMagic(pixels); // undefined without alpha
  if (!magic) return { found: false };
  const found = { found: true as const, magic };
  const lengthBits = Buffer.from(bits.bytes(MAGIC_BITS, 4)).readUInt32BE(0);
  const length = Math.floor(lengthBits / 8); // NovelAI reads length // 8 bytes
  if (lengthBits > bits.total - HEADER_BITS) {
    return { ...found, problem: `its payload claims ${length} bytes, more than the picture's ${Math.floor((bits.total - HEADER_BITS) / 8)} can hold` };
  }
  if (length > MAX_PAYLOAD_BYTES) return { ...found, problem: `its payload claims ${length} bytes, more than is read` };
  const payload = bits.bytes(HEADER_BITS, length);
  if (magic === 'stealth_pnginfo') return { ...found, text: utf8.decode(payload) };
  try {
    return { ...found, text: utf8.decode(zlib().gunzipSync(payload, { maxOutputLength: MAX_PAYLOAD_BYTES })) };
  } catch {
    return { ...found, problem: 'its payload is not gzip data that inflates within the cap' };
  }
}
