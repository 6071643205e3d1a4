// Whether a lossy file's chroma was stored at a lower resolution than its luma (subsampled), read
// from its header: a JPEG's frame header gives each component's sampling factors, a WebP's first
// image chunk says VP8 (lossy: always 4:2:0) or VP8L (lossless: RGB, nothing subsampled). The
// invisible_watermark check's unsmoothed reading (chroma-upsampling.ts) undoes the decoder's
// upsampling of subsampled chroma; where nothing was subsampled, nothing was upsampled, the
// reading has nothing to undo, and the check leaves it out (issue 32: it is the costliest
// reading, some 4 ms of a 2 MP picture).
import { findJpegSegment, isStartOfFrame } from './jpeg-segments.js';

function jpegSubsampled(b: Uint8Array): boolean | undefined {
  const sof = findJpegSegment(b, (s) => isStartOfFrame(s.marker));
  // precision (1), height (2), width (2), components (1), then 3 bytes a component: id, H<<4|V, table.
  if (!sof || sof.end - sof.start < 6) return undefined;
  const count = b[sof.start + 5]!;
  if (count < 3 || sof.start + 6 + 3 * count > sof.end) return undefined;
  const factors = (k: number) => b[sof.start + 6 + 3 * k + 1]!;
  const luma = factors(0);
  for (let k = 1; k < 3; k++) {
    const chroma = factors(k);
    if (chroma >> 4 < luma >> 4 || (chroma & 15) < (luma & 15)) return true;
  }
  // Every factor of the chroma as high as the luma's: 4:4:4, or a frame libjpeg reads so.
  return (factors(1) === luma && factors(2) === luma) ? false : undefined;
}

function webpSubsampled(b: Uint8Array): boolean | undefined {
  if (b.length < 20 || String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!, b[8]!, b[9]!, b[10]!, b[11]!) !== 'RIFFWEBP') return undefined;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 12; at + 8 <= b.length; ) {
    const fourcc = String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
    if (fourcc === 'VP8 ') return true;
    if (fourcc === 'VP8L') return false;
    const size = view.getUint32(at + 4, true);
    at += 8 + size + (size & 1);
  }
  return undefined;
}

/**
 * True when the file's chroma was subsampled, false when it surely was not, undefined when its
 * header does not say (the caller then assumes it was).
 */
export function chromaSubsampled(bytes: Uint8Array, type: string): boolean | undefined {
  if (type === 'image/jpeg') return jpegSubsampled(bytes);
  if (type === 'image/webp') return webpSubsampled(bytes);
  return undefined;
}
