// Finds a metadata segment (APPn, COM, ...) of a JPEG the way JPEG readers walk them: from SOI,
// segment by segment, up to the image data (SOS) or the end. Shared by the EXIF reader
// (camera_reference) and the XMP hints.

export interface JpegSegment {
  marker: number;
  /** Where the payload starts (after the two length bytes). */
  start: number;
  /** Where it ends: its declared length, cut to the file when the file is truncated. */
  end: number;
}

/**
 * True when `text` (latin1: one byte per character) sits in `b` at `at`: how an APPn segment is
 * told apart by its header (Exif, XMP) and a PNG chunk by its keyword.
 */
export function hasTextAt(b: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > b.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Start-of-frame markers: baseline, extended, progressive, lossless, hierarchical, arithmetic
 * (not C4 DHT, C8 JPG, CC DAC). */
export function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** An Exif APP1 segment's header, before its TIFF block: "Exif" and two zero bytes (exifr and
 * ExifTool accept the same); some writers put it before a WebP's EXIF chunk too. */
export const EXIF_HEADER = 'Exif\0\0';

/** The first segment before the image data for which `wanted` is true, or undefined. */
export function findJpegSegment(b: Uint8Array, wanted: (segment: JpegSegment) => boolean): JpegSegment | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let p = 2;
  while (p + 4 <= b.length) {
    if (b[p] !== 0xff) return undefined; // not a marker: no more segments to read
    const marker = b[p + 1]!;
    if (marker === 0xff) {
      p++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      p += 2; // markers without a length
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return undefined; // image data: metadata comes before it
    const length = (b[p + 2]! << 8) | b[p + 3]!;
    if (length < 2) return undefined;
    const segment = { marker, start: p + 4, end: Math.min(b.length, p + 2 + length) };
    if (wanted(segment)) return segment;
    p += 2 + length;
  }
  return undefined;
}
