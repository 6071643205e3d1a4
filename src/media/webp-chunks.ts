// A WebP file's EXIF and XMP chunks and whether its pixels have alpha, from a bounded walk of its
// RIFF chunks. Generators that save WebP (AUTOMATIC1111 and Forge, ComfyUI, NovelAI) put their
// records in the EXIF chunk; NovelAI also hides a copy in the alpha channel.
import { EXIF_HEADER, hasTextAt } from './jpeg-segments.js';

export interface WebpChunks {
  /** The TIFF block of the EXIF chunk (an "Exif\0\0" prefix some writers add is removed). */
  exif?: Uint8Array;
  xmp?: Uint8Array;
  /** VP8X says the image has alpha, an ALPH chunk is present, or a VP8L header says it uses alpha. */
  hasAlpha: boolean;
  /** What stopped the walk early, as a clause. */
  damage?: string;
}

/** A WebP file has a handful of chunks; this many is damage or an attack. */
const MAX_CHUNKS = 10_000;

export function isWebp(b: Uint8Array): boolean {
  return hasTextAt(b, 0, 'RIFF') && hasTextAt(b, 8, 'WEBP');
}

function u32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** The chunks of WebP `b`, or undefined when it is not one. Never throws. */
export function readWebpChunks(b: Uint8Array): WebpChunks | undefined {
  if (!isWebp(b)) return undefined;
  const out: WebpChunks = { hasAlpha: false };
  // The RIFF size may disagree with the file (truncated, or trailing bytes): the file wins.
  const end = Math.min(b.length, 8 + u32le(b, 4));
  let p = 12;
  for (let n = 0; p + 8 <= end; n++) {
    if (n >= MAX_CHUNKS) {
      out.damage = `it has more than ${MAX_CHUNKS} chunks`;
      break;
    }
    const size = u32le(b, p + 4);
    if (p + 8 + size > b.length) {
      out.damage = 'a chunk runs past the end of the file';
      break;
    }
    const data = b.subarray(p + 8, p + 8 + size);
    if (hasTextAt(b, p, 'VP8X')) {
      if (size >= 1 && (data[0]! & 0x10) !== 0) out.hasAlpha = true;
    } else if (hasTextAt(b, p, 'ALPH')) {
      out.hasAlpha = true;
    } else if (hasTextAt(b, p, 'VP8L')) {
      // Signature 0x2f, then 14 bits width - 1, 14 bits height - 1, 1 bit alpha_is_used.
      if (size >= 5 && data[0] === 0x2f && ((u32le(data, 1) >>> 28) & 1) === 1) out.hasAlpha = true;
    } else if (hasTextAt(b, p, 'EXIF') && !out.exif) {
      out.exif = hasTextAt(data, 0, EXIF_HEADER) ? data.subarray(EXIF_HEADER.length) : data;
    } else if (hasTextAt(b, p, 'XMP ') && !out.xmp) {
      out.xmp = data;
    }
    p += 8 + size + (size & 1); // chunks are padded to an even size
  }
  return out;
}
