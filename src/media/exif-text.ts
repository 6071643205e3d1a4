// The EXIF text fields image generators write, read from a TIFF-structured block (a JPEG's Exif
// APP1 segment or a WebP EXIF chunk): IFD0 ImageDescription, Make, Model, Software, and
// UserComment and MakerNote from the Exif IFD, or from IFD0 where Fooocus (through Pillow's
// Image.Exif) puts them. ComfyUI's WebP writer stores its graphs as "prompt:{...}" in Model and
// "workflow:{...}" in Make, so these can be long: each field is read up to MAX_FIELD_BYTES.
import { ExifDamage, TiffBlock, type IfdEntry } from './tiff-ifd.js';
import { decodeUserComment, type UserComment } from './user-comment.js';

export { ExifDamage };

/** What one block holds; a field is absent when its tag is, or when its type is not text. */
export interface ExifText {
  imageDescription?: string;
  make?: string;
  model?: string;
  software?: string;
  userComment?: UserComment;
  /** The maker note when it is short text (Fooocus writes its scheme name, "fooocus" or "a1111"). */
  makerNote?: string;
}

const TAG_IMAGE_DESCRIPTION = 0x010e;
const TAG_MAKE = 0x010f;
const TAG_MODEL = 0x0110;
const TAG_SOFTWARE = 0x0131;
const TAG_EXIF_IFD = 0x8769;
const TAG_USER_COMMENT = 0x9286;
const TAG_MAKER_NOTE = 0x927c;

/** A generator's record is at most this long (a large ComfyUI graph is a few hundred KB). */
export const MAX_FIELD_BYTES = 4 * 1024 * 1024;
/** A maker note longer than this is a camera's binary note, not a generator's scheme name. */
const MAX_TEXT_MAKER_NOTE = 64;

const IFD0_TAGS = [TAG_IMAGE_DESCRIPTION, TAG_MAKE, TAG_MODEL, TAG_SOFTWARE, TAG_EXIF_IFD, TAG_USER_COMMENT, TAG_MAKER_NOTE];
const EXIF_IFD_TAGS = [TAG_USER_COMMENT, TAG_MAKER_NOTE];

/** Printable text, or undefined for a camera's binary maker note. */
function shortText(tiff: TiffBlock, entry: IfdEntry | undefined): string | undefined {
  if (!entry || entry.size > MAX_TEXT_MAKER_NOTE) return undefined;
  const bytes = tiff.bytes(entry, MAX_TEXT_MAKER_NOTE);
  if (!bytes) return undefined;
  const text = Buffer.from(bytes).toString('latin1').replace(/\0+$/, '');
  return /^[\x20-\x7e]+$/.test(text) ? text : undefined;
}

function userComment(tiff: TiffBlock, entry: IfdEntry | undefined): UserComment | undefined {
  const raw = tiff.bytes(entry, MAX_FIELD_BYTES);
  return raw && decodeUserComment(raw, !tiff.little);
}

/**
 * The generator-relevant text fields of a TIFF-structured block. Throws ExifDamage when the
 * block's header or IFD0 cannot be followed; a broken Exif IFD only loses its own fields.
 */
export function readExifText(block: Uint8Array): ExifText {
  const tiff = new TiffBlock(block);
  const ifd0 = tiff.entries(tiff.firstIfd, IFD0_TAGS);
  const out: ExifText = {
    imageDescription: tiff.text(ifd0.get(TAG_IMAGE_DESCRIPTION), MAX_FIELD_BYTES),
    make: tiff.text(ifd0.get(TAG_MAKE), MAX_FIELD_BYTES),
    model: tiff.text(ifd0.get(TAG_MODEL), MAX_FIELD_BYTES),
    software: tiff.text(ifd0.get(TAG_SOFTWARE), MAX_FIELD_BYTES),
    userComment: userComment(tiff, ifd0.get(TAG_USER_COMMENT)),
    makerNote: shortText(tiff, ifd0.get(TAG_MAKER_NOTE)),
  };
  const exifAt = tiff.pointer(ifd0.get(TAG_EXIF_IFD));
  if (exifAt !== undefined) {
    try {
      const exif = tiff.entries(exifAt, EXIF_IFD_TAGS);
      out.userComment ??= userComment(tiff, exif.get(TAG_USER_COMMENT));
      out.makerNote ??= shortText(tiff, exif.get(TAG_MAKER_NOTE));
    } catch (err) {
      // A broken Exif IFD: IFD0's fields are still worth reading. Anything but damage is a bug.
      if (!(err instanceof ExifDamage)) throw err;
    }
  }
  return out;
}
