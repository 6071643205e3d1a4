// A picture's EXIF orientation read from its bytes, for the pixel checks (which turn pictures
// upright as cv2.imread does, orientation.ts) to skip asking the decoder for the file's metadata
// (sharp's metadata() parses the whole header again in libvips: a millisecond a file, a seventh
// of a 2 MP JPEG's decode). Only the forms whose reading by libvips is beyond doubt are answered;
// anything else is left to libvips (undefined), so the orientation used never differs from the
// one sharp reports:
//   - a JPEG with no Exif APP1 before its image data: 1 (as stored);
//   - a JPEG with exactly one Exif APP1, whose IFD0 holds one Orientation of SHORT type, 1-8:
//     that value (libexif finds IFD0's tag first);
//   - a PNG without an eXIf chunk or a text chunk ImageMagick's "Raw profile type exif": 1.
import { EXIF_HEADER, findJpegSegment, hasTextAt } from './jpeg-segments.js';
import { ExifDamage, TiffBlock } from './tiff-ifd.js';

const TAG_ORIENTATION = 0x0112;
const TYPE_SHORT = 3;

function jpegOrientation(b: Uint8Array): number | undefined {
  let count = 0;
  let block: Uint8Array | undefined;
  // The callback sees every segment before the image data; returning false walks on.
  findJpegSegment(b, ({ marker, start, end }) => {
    if (marker === 0xe1 && hasTextAt(b, start, EXIF_HEADER)) {
      count++;
      block = b.subarray(start + EXIF_HEADER.length, end);
    }
    return false;
  });
  if (count === 0) return 1;
  if (count > 1 || !block) return undefined;
  try {
    const tiff = new TiffBlock(block);
    const entry = tiff.entries(tiff.firstIfd, [TAG_ORIENTATION]).get(TAG_ORIENTATION);
    if (!entry || entry.type !== TYPE_SHORT || entry.count !== 1) return undefined;
    const value = tiff.u16(entry.at);
    return value >= 1 && value <= 8 ? value : undefined;
  } catch (err) {
    if (err instanceof ExifDamage) return undefined;
    throw err;
  }
}

/** Whether a PNG's chunks (walked by their lengths up to IDAT) hold none that libvips reads EXIF from. */
function pngWithoutExif(b: Uint8Array): boolean {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 8; at + 8 <= b.length; ) {
    const length = view.getUint32(at);
    if (hasTextAt(b, at + 4, 'eXIf')) return false;
    if ((hasTextAt(b, at + 4, 'zTXt') || hasTextAt(b, at + 4, 'tEXt') || hasTextAt(b, at + 4, 'iTXt')) && hasTextAt(b, at + 8, 'Raw profile type exif')) return false;
    // EXIF after the image data is read by libpng too: walk every chunk up to IEND.
    if (hasTextAt(b, at + 4, 'IEND')) return true;
    at += 12 + length;
  }
  return false;
}

/** The EXIF orientation (1-8) libvips reports for the file, when read here beyond doubt. */
export function exifOrientation(bytes: Uint8Array, type: string): number | undefined {
  if (type === 'image/jpeg') return jpegOrientation(bytes);
  if (type === 'image/png') return pngWithoutExif(bytes) ? 1 : undefined;
  return undefined;
}
