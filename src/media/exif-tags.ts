// Reads the few EXIF fields camera_reference needs (IFD0 Make, Model, Software and the start of
// the Exif IFD's MakerNote) from a JPEG's Exif APP1 segment or a TIFF file's own IFD0.
//
// This replaced exifr here. exifr is a general reader: loading it, warming it up and building
// its full output cost 90 ms of a 0.81 s benchmark-folder scan (11 %) and part of every cold
// start, for four tags (docs/PERFORMANCE.md). This reads only the two IFDs those tags live in,
// with every offset checked against the EXIF block, so it never follows chains or loops. The
// tests hold it to exifr's answers on the corpus and on our fixtures (test/exif-tags.test.ts).

import { findJpegSegment, hasTextAt } from './jpeg-segments.js';

/** What the EXIF says; a field is undefined when the tag is absent or not of the usual type. */
export interface CameraTags {
  make?: string;
  model?: string;
  software?: string;
  /** The first bytes of the maker note (enough to recognise a vendor's signature). */
  makerNotePrefix?: Uint8Array;
}

/** The EXIF block is present but broken (offsets outside it, a bad byte-order mark...). */
export class ExifDamage extends Error {}

export const MAKER_NOTE_PREFIX_BYTES = 16;

/** An Exif APP1 segment's header: "Exif" and two zero bytes (exifr and ExifTool accept the same). */
const EXIF_HEADER = 'Exif\0\0';

const TAG_MAKE = 0x010f;
const TAG_MODEL = 0x0110;
const TAG_SOFTWARE = 0x0131;
const TAG_EXIF_IFD = 0x8769;
const TAG_MAKER_NOTE = 0x927c;

const TYPE_BYTE = 1;
const TYPE_ASCII = 2;
const TYPE_LONG = 4;
const TYPE_UNDEFINED = 7;
const TYPE_IFD = 13;
/** Bytes per value of each TIFF field type (1-13); unknown types are skipped. */
const TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/** A field's text is at most this long: Make/Model/Software are short, a hostile count is not. */
const MAX_TEXT_BYTES = 1024;
/** More entries than this in one IFD is damage, not a camera (real IFD0s hold a few dozen). */
const MAX_ENTRIES = 4096;

const utf8 = new TextDecoder('utf-8');

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

interface Entry {
  type: number;
  count: number;
  /** Where the value is: inside the entry when it fits in 4 bytes, else at its offset. */
  at: number;
  size: number;
}

class TiffBlock {
  private readonly view: DataView;
  readonly little: boolean;

  constructor(readonly b: Uint8Array) {
    if (b.length < 8) throw new ExifDamage('the EXIF block is shorter than its header');
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const order = this.view.getUint16(0);
    if (order === 0x4949) this.little = true;
    else if (order === 0x4d4d) this.little = false;
    else throw new ExifDamage('the EXIF block has no byte-order mark');
    if (this.u16(2) !== 42) throw new ExifDamage('the EXIF block is not TIFF-structured');
  }

  u16(at: number): number {
    this.need(at, 2);
    return this.view.getUint16(at, this.little);
  }

  u32(at: number): number {
    this.need(at, 4);
    return this.view.getUint32(at, this.little);
  }

  need(at: number, size: number): void {
    if (at < 0 || size < 0 || at + size > this.b.length) throw new ExifDamage('an EXIF offset points outside the EXIF block');
  }

  /** The entries of the IFD at `offset` whose tags are wanted, first occurrence of each. */
  entries(offset: number, wanted: readonly number[]): Map<number, Entry> {
    const count = this.u16(offset);
    if (count > MAX_ENTRIES) throw new ExifDamage(`an EXIF directory claims ${count} entries`);
    this.need(offset + 2, count * 12);
    const found = new Map<number, Entry>();
    for (let i = 0; i < count; i++) {
      const e = offset + 2 + i * 12;
      const tag = this.u16(e);
      if (!wanted.includes(tag) || found.has(tag)) continue;
      const type = this.u16(e + 2);
      const valueCount = this.u32(e + 4);
      const unit = TYPE_SIZE[type];
      if (!unit) continue; // a type TIFF does not define: skipped, as readers do
      const size = unit * valueCount;
      const at = size <= 4 ? e + 8 : this.u32(e + 8);
      found.set(tag, { type, count: valueCount, at, size });
    }
    return found;
  }

  text(entry: Entry | undefined): string | undefined {
    if (!entry || entry.type !== TYPE_ASCII) return undefined;
    const size = Math.min(entry.size, MAX_TEXT_BYTES);
    this.need(entry.at, size);
    const raw = utf8.decode(this.b.subarray(entry.at, entry.at + size));
    const value = raw.replace(/\0[\s\S]*$/, '').trim(); // up to the first NUL, as C strings end
    return value === '' ? undefined : value;
  }

  prefix(entry: Entry | undefined): Uint8Array | undefined {
    if (!entry || (entry.type !== TYPE_UNDEFINED && entry.type !== TYPE_BYTE)) return undefined;
    const size = Math.min(entry.size, MAKER_NOTE_PREFIX_BYTES);
    this.need(entry.at, size);
    return this.b.slice(entry.at, entry.at + size);
  }

  pointer(entry: Entry | undefined): number | undefined {
    if (!entry || (entry.type !== TYPE_LONG && entry.type !== TYPE_IFD) || entry.count < 1) return undefined;
    return this.u32(entry.at);
  }
}

function readTiff(b: Uint8Array): CameraTags {
  const tiff = new TiffBlock(b);
  const ifd0 = tiff.entries(tiff.u32(4), [TAG_MAKE, TAG_MODEL, TAG_SOFTWARE, TAG_EXIF_IFD]);
  const tags: CameraTags = {
    make: tiff.text(ifd0.get(TAG_MAKE)),
    model: tiff.text(ifd0.get(TAG_MODEL)),
    software: tiff.text(ifd0.get(TAG_SOFTWARE)),
  };
  const exifAt = tiff.pointer(ifd0.get(TAG_EXIF_IFD));
  if (exifAt !== undefined) tags.makerNotePrefix = tiff.prefix(tiff.entries(exifAt, [TAG_MAKER_NOTE]).get(TAG_MAKER_NOTE));
  return tags;
}
