// Reads the few EXIF fields camera_reference needs (IFD0 Make, Model, Software and the start of
// the Exif IFD's MakerNote) from a JPEG's Exif APP1 segment or a TIFF file's own IFD0.
//
// This replaced exifr here. exifr is a general reader: loading it, warming it up and building
// its full output cost 90 ms of a 0.81 s benchmark-folder scan (11 %) and part of every cold
// start, for four tags (docs/PERFORMANCE.md). This reads only the two IFDs those tags live in,
// with every offset checked against the EXIF block, so it never follows chains or loops. The
// tests hold it to exifr's answers on the corpus and on our fixtures (test/exif-tags.test.ts).
// The bounded IFD walker itself is tiff-ifd.ts, shared with the generator records (exif-text.ts).

import { EXIF_HEADER, findJpegSegment, hasTextAt } from './jpeg-segments.js';
import { ExifDamage, TiffBlock, TYPE_BYTE, TYPE_UNDEFINED, type IfdEntry } from './tiff-ifd.js';

/** What the EXIF says; a field is undefined when the tag is absent or not of the usual type. */
export interface CameraTags {
  make?: string;
  model?: string;
  software?: string;
  /** The first bytes of the maker note (enough to recognise a vendor's signature). */
  makerNotePrefix?: Uint8Array;
}

export { ExifDamage };

export const MAKER_NOTE_PREFIX_BYTES = 16;

const TAG_MAKE = 0x010f;
const TAG_MODEL = 0x0110;
const TAG_SOFTWARE = 0x0131;
const TAG_EXIF_IFD = 0x8769;
const TAG_MAKER_NOTE = 0x927c;

/** A field's text is at most this long: Make/Model/Software are short, a hostile count is not. */
const MAX_TEXT_BYTES = 1024;

/**
 * Camera tags of a JPEG or TIFF; undefined when the file holds no EXIF. Throws ExifDamage when
 * the EXIF it holds cannot be followed.
 */
export function readCameraTags(bytes: Uint8Array, type: string): CameraTags | undefined {
  if (type === 'image/tiff') return readTiff(bytes);
  if (type === 'image/jpeg') {
    const block = jpegExifBlock(bytes);
    return block ? readTiff(block) : undefined;
  }
  return undefined;
}

/**
 * The TIFF block inside a JPEG's first Exif APP1 segment (`Exif\0\0` header), looking at the
 * segments before the image data as a JPEG reader does. A segment chain that runs off the end
 * of a truncated file ends the search.
 */
export function jpegExifBlock(b: Uint8Array): Uint8Array | undefined {
  const segment = findJpegSegment(b, ({ marker, start }) => marker === 0xe1 && hasTextAt(b, start, EXIF_HEADER));
  // A segment cut short by truncation still gives what it holds; offsets past the cut are then
  // reported as damage by readTiff.
  return segment && b.subarray(segment.start + EXIF_HEADER.length, segment.end);
}

function readTiff(b: Uint8Array): CameraTags {
  const tiff = new TiffBlock(b);
  const ifd0 = tiff.entries(tiff.firstIfd, [TAG_MAKE, TAG_MODEL, TAG_SOFTWARE, TAG_EXIF_IFD]);
  const tags: CameraTags = {
    make: tiff.text(ifd0.get(TAG_MAKE), MAX_TEXT_BYTES),
    model: tiff.text(ifd0.get(TAG_MODEL), MAX_TEXT_BYTES),
    software: tiff.text(ifd0.get(TAG_SOFTWARE), MAX_TEXT_BYTES),
  };
  const exifAt = tiff.pointer(ifd0.get(TAG_EXIF_IFD));
  if (exifAt !== undefined) tags.makerNotePrefix = makerNotePrefix(tiff, tiff.entries(exifAt, [TAG_MAKER_NOTE]).get(TAG_MAKER_NOTE));
  return tags;
}

/** The maker note's first bytes (a copy), when it is of a byte type as vendors write it. */
function makerNotePrefix(tiff: TiffBlock, entry: IfdEntry | undefined): Uint8Array | undefined {
  if (!entry || (entry.type !== TYPE_UNDEFINED && entry.type !== TYPE_BYTE)) return undefined;
  return tiff.bytes(entry, MAKER_NOTE_PREFIX_BYTES)?.slice();
}
