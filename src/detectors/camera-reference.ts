// camera_reference: Apple's phone and tablet cameras write EXIF Make "Apple" and a maker note
// that starts with "Apple iOS\0". A match hints at a camera capture (an inverse signal); EXIF is
// editable, so confidence never reaches 1 (CONTRACT: 0.9 / 0.7 found, 0.8 not_found).
import type { Detector, DetectorOutcome, Media } from '../types.js';

const APPLE_MAKER_NOTE = Buffer.from('Apple iOS\0', 'latin1');
const APPLE_MODEL = /^(iPhone|iPad)\b/;
// iOS writes its version ("17.1", "8.3", "16.4.1"); editors write their own name here.
const IOS_VERSION = /^\d{1,2}(\.\d{1,2}){0,2}$/;

interface ExifFacts {
  Make?: unknown;
  Model?: unknown;
  Software?: unknown;
  makerNote?: unknown;
}

/** exifr's lite bundle reads JPEG EXIF and loads in half the time; TIFF files need the full one. */
async function loadExifr(type: string) {
  const bundle = type === 'image/tiff' ? await import('exifr/dist/full.esm.mjs' as string) : await import('exifr/dist/lite.esm.mjs' as string);
  return bundle.default;
}

async function readExif(bytes: Uint8Array, type: string): Promise<ExifFacts | undefined> {
  const exifr = await loadExifr(type);
  return exifr.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    tiff: true,
    ifd0: true,
    exif: true,
    makerNote: true,
    gps: false,
    interop: false,
    ifd1: false,
    userComment: false,
    xmp: false,
    icc: false,
    iptc: false,
    jfif: false,
    ihdr: false,
    translateKeys: true,
    translateValues: false,
    reviveValues: false,
    sanitize: true,
    mergeOutput: true,
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.replace(/\0+$/, '').trim() : undefined;
}

function isAppleMakerNote(value: unknown): boolean {
  if (!(value instanceof Uint8Array) || value.length < APPLE_MAKER_NOTE.length) return false;
  return Buffer.from(value.buffer, value.byteOffset, APPLE_MAKER_NOTE.length).equals(APPLE_MAKER_NOTE);
}

export function judgeExif(exif: ExifFacts | undefined): DetectorOutcome {
  const notFound: DetectorOutcome = { result: 'not_found', confidence: 0.8 };
  if (!exif || text(exif.Make) !== 'Apple' || !isAppleMakerNote(exif.makerNote)) return notFound;
  const model = text(exif.Model) ?? '';
  const software = text(exif.Software) ?? '';
  const allAgree = APPLE_MODEL.test(model) && IOS_VERSION.test(software);
  return { result: 'found', confidence: allAgree ? 0.9 : 0.7 };
}

export const cameraReference: Detector = {
  id: 'camera_reference',
  name: 'Camera reference',
  description:
    "Reads EXIF data for one camera vendor's make and that vendor's maker note, as written by its phone and tablet cameras. A match points to a camera capture. Inverse signal (inverse is true). EXIF can be edited, so a match is a hint, not proof.",
  media_types: ['image/jpeg', 'image/tiff'],
  status: 'available',
  inverse: true,
  async run(media: Media) {
    let exif: ExifFacts | undefined;
    try {
      exif = await readExif(media.bytes, media.type);
    } catch (err) {
      // exifr throws on a file whose EXIF structure it cannot follow; a file with no EXIF at all
      // returns undefined. Neither holds the marker, and the check did run over the bytes.
      if (isDamageError(err)) {
        return {
          result: 'unavailable',
          confidence: 0,
          reason: `The file is damaged in a way the camera_reference check cannot read: ${describe(err)}.`,
        };
      }
      return { result: 'not_found', confidence: 0.8 };
    }
    return judgeExif(exif);
  },
};

function describe(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');
}

// exifr reports "Unknown file format" for bytes it does not take for JPEG/TIFF at all, which
// for our sniffed JPEG/TIFF means a broken header; range errors mean truncated structures.
function isDamageError(err: unknown): boolean {
  return err instanceof RangeError || /unknown file format|out of range|invalid/i.test(describe(err));
}
