// A picture's stored size from its first bytes (PNG IHDR, JPEG SOFn, WebP VP8/VP8L/VP8X), with
// no decoder loaded. The watermark check refuses pictures by size (too small to carry a mark,
// too large to be a generator's output) before anything else: answered from the header, the
// many photos it refuses never load sharp (its native module and libvips' start cost some 40 ms
// and 30 MB per worker) nor ask it for their metadata. Undefined whenever the header is not the
// plain form read here: the caller then asks sharp, which reads every form.
import { findJpegSegment, isStartOfFrame } from './jpeg-segments.js';

export interface PictureSize {
  width: number;
  height: number;
}

const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

let crcTable: Uint32Array | undefined;

/** CRC-32 as PNG computes it (ISO 3309; node:zlib's crc32 is Node 22+). */
function crc32(b: Uint8Array, start: number, end: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = crcTable[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngSize(b: Uint8Array): PictureSize | undefined {
  // Signature (8), then the IHDR chunk: length 13, "IHDR", 13 bytes from width and height on,
  // and its CRC. A header whose CRC does not match is damage that the decoder (and OpenCV,
  // whose reading the watermark check follows) refuses: left to it, so it is reported as such.
  if (b.length < 33 || u32be(b, 8) !== 13 || String.fromCharCode(b[12]!, b[13]!, b[14]!, b[15]!) !== 'IHDR') return undefined;
  if (crc32(b, 12, 29) !== u32be(b, 29)) return undefined;
  return { width: u32be(b, 16), height: u32be(b, 20) };
}

function jpegSize(b: Uint8Array): PictureSize | undefined {
  const sof = findJpegSegment(b, (s) => isStartOfFrame(s.marker));
  // precision (1), height (2), width (2)
  if (!sof || sof.end - sof.start < 5) return undefined;
  return { height: u16be(b, sof.start + 1), width: u16be(b, sof.start + 3) };
}

function webpSize(b: Uint8Array): PictureSize | undefined {
  if (b.length < 30 || String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!, b[8]!, b[9]!, b[10]!, b[11]!) !== 'RIFFWEBP') return undefined;
  const chunk = String.fromCharCode(b[12]!, b[13]!, b[14]!, b[15]!);
  const data = 20;
  if (chunk === 'VP8X') return { width: u24le(b, data + 4) + 1, height: u24le(b, data + 7) + 1 };
  if (chunk === 'VP8L' && b[data] === 0x2f) {
    const bits = (b[data + 1]! | (b[data + 2]! << 8) | (b[data + 3]! << 16) | (b[data + 4]! << 24)) >>> 0;
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  // A key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit width and height.
  if (chunk === 'VP8 ' && b[data + 3] === 0x9d && b[data + 4] === 0x01 && b[data + 5] === 0x2a) {
    return { width: u16le(b, data + 6) & 0x3fff, height: u16le(b, data + 8) & 0x3fff };
  }
  return undefined;
}

/** The stored width and height (before any EXIF rotation), or undefined when not read here. */
export function pictureSize(bytes: Uint8Array, type: string): PictureSize | undefined {
  const size = type === 'image/png' ? pngSize(bytes) : type === 'image/jpeg' ? jpegSize(bytes) : type === 'image/webp' ? webpSize(bytes) : undefined;
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}
