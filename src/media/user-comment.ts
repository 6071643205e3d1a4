// EXIF UserComment (tag 0x9286): an 8-byte character-code prefix, then the text. Generators put
// their whole record here (AUTOMATIC1111 and its forks in JPEG and WebP, SwarmUI, Fooocus,
// NovelAI's WebP), and they disagree on the encoding:
// - "UNICODE\0" is UTF-16 of no fixed byte order: piexif (AUTOMATIC1111, Forge) writes big-endian,
//   SwarmUI little-endian, whatever the TIFF header says. We tell them apart by which byte of the
//   pairs is zero (text in these records is mostly ASCII), then by a byte-order mark, and only
//   then fall back to the TIFF block's own order, as ExifTool does.
// - "ASCII\0\0\0" is meant to be ASCII; writers put UTF-8 there, so it is read as UTF-8.
// - "JIS\0\0\0\0\0" is JIS X 0208, read with the Shift_JIS decoder (the nearest that ICU has).
// - eight zero bytes ("undefined") and no prefix at all (Fooocus writes the tag as plain ASCII
//   in IFD0) are read as UTF-8.
import { hasTextAt } from './jpeg-segments.js';

export type UserCommentEncoding = 'ascii' | 'unicode-utf16le' | 'unicode-utf16be' | 'jis' | 'undefined' | 'none';

export interface UserComment {
  text: string;
  encoding: UserCommentEncoding;
}

/** How many code units are looked at to decide the UTF-16 byte order. */
const ORDER_SAMPLE_UNITS = 4096;

const utf8 = new TextDecoder('utf-8');

function decoder(label: string): TextDecoder {
  try {
    return new TextDecoder(label);
  } catch {
    return utf8; // a Node built without full ICU has no Shift_JIS: the ASCII part still reads
  }
}

const NUL_OR_SPACE = /[\0\s]/;

/**
 * The text without the NULs and spaces that writers pad the field with. A loop from the end, not
 * `/[\0\s]+$/`: that regex retries from every character of a long run that is not at the end
 * ("x", a million spaces, "y"), which is quadratic.
 */
function clean(text: string): string {
  let end = text.length;
  while (end > 0 && NUL_OR_SPACE.test(text[end - 1]!)) end--;
  return text.slice(0, end).replace(/^\uFEFF/, '');
}

/**
 * Big-endian when UTF-16 `b` looks big-endian: more zero bytes at even offsets (the high byte of
 * ASCII text comes first), or a BOM that says so; `fallback` when nothing tells.
 */
export function utf16IsBigEndian(b: Uint8Array, fallback: boolean): boolean {
  let zeroEven = 0;
  let zeroOdd = 0;
  const n = Math.min(b.length >> 1, ORDER_SAMPLE_UNITS);
  for (let i = 0; i < n; i++) {
    const hi = b[2 * i]!;
    const lo = b[2 * i + 1]!;
    if (hi === 0 && lo === 0) continue; // padding NULs say nothing
    if (hi === 0) zeroEven++;
    if (lo === 0) zeroOdd++;
  }
  if (zeroEven !== zeroOdd) return zeroEven > zeroOdd;
  if (b[0] === 0xfe && b[1] === 0xff) return true;
  if (b[0] === 0xff && b[1] === 0xfe) return false;
  return fallback;
}

function decodeUtf16(b: Uint8Array, bigEndian: boolean): string {
  const even = b.subarray(0, b.length & ~1);
  if (!bigEndian) return new TextDecoder('utf-16le').decode(even);
  const swapped = Uint8Array.from(even);
  for (let i = 0; i + 1 < swapped.length; i += 2) {
    const t = swapped[i]!;
    swapped[i] = swapped[i + 1]!;
    swapped[i + 1] = t;
  }
  return new TextDecoder('utf-16le').decode(swapped);
}

/**
 * The text of a UserComment value. `tiffBigEndian` is the byte order of the block it came from,
 * used for UTF-16 only when the text itself does not tell. Undefined when the comment is empty.
 */
export function decodeUserComment(raw: Uint8Array, tiffBigEndian: boolean): UserComment | undefined {
  let result: UserComment;
  if (hasTextAt(raw, 0, 'UNICODE\0')) {
    const body = raw.subarray(8);
    const bigEndian = utf16IsBigEndian(body, tiffBigEndian);
    result = { text: decodeUtf16(body, bigEndian), encoding: bigEndian ? 'unicode-utf16be' : 'unicode-utf16le' };
  } else if (hasTextAt(raw, 0, 'ASCII\0\0\0')) {
    result = { text: utf8.decode(raw.subarray(8)), encoding: 'ascii' };
  } else if (hasTextAt(raw, 0, 'JIS\0\0\0\0\0')) {
    result = { text: decoder('shift_jis').decode(raw.subarray(8)), encoding: 'jis' };
  } else if (hasTextAt(raw, 0, '\0\0\0\0\0\0\0\0')) {
    result = { text: utf8.decode(raw.subarray(8)), encoding: 'undefined' };
  } else {
    result = { text: utf8.decode(raw), encoding: 'none' };
  }
  result.text = clean(result.text);
  return result.text === '' ? undefined : result;
}
