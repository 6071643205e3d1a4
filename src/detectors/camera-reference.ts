// camera_reference: Apple's phone and tablet cameras write EXIF Make "Apple" and a maker note
// that starts with "Apple iOS\0". A match hints at a camera capture (an inverse signal); EXIF is
// editable, so confidence never reaches 1 (CONTRACT: 0.9 / 0.7 found, 0.8 not_found).
import type { Detector, DetectorOutcome, Media } from '../types.js';
import { ExifDamage, readCameraTags, type CameraTags } from '../media/exif-tags.js';

const APPLE_MAKER_NOTE = Buffer.from('Apple iOS\0', 'latin1');
const APPLE_MODEL = /^(iPhone|iPad)\b/;
// iOS writes its version ("17.1", "8.3", "16.4.1"); editors write their own name here.
const IOS_VERSION = /^\d{1,2}(\.\d{1,2}){0,2}$/;

function isAppleMakerNote(prefix: Uint8Array | undefined): boolean {
  if (!prefix || prefix.length < APPLE_MAKER_NOTE.length) return false;
  return Buffer.from(prefix.buffer, prefix.byteOffset, APPLE_MAKER_NOTE.length).equals(APPLE_MAKER_NOTE);
}

export function judgeExif(tags: CameraTags | undefined): DetectorOutcome {
  const notFound: DetectorOutcome = { result: 'not_found', confidence: 0.8 };
  if (!tags || tags.make !== 'Apple' || !isAppleMakerNote(tags.makerNotePrefix)) return notFound;
  const allAgree = APPLE_MODEL.test(tags.model ?? '') && IOS_VERSION.test(tags.software ?? '');
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
    try {
      return judgeExif(readCameraTags(media.bytes, media.type));
    } catch (err) {
      if (!(err instanceof ExifDamage)) throw err;
      return {
        result: 'unavailable',
        confidence: 0,
        reason: `The file is damaged in a way the camera_reference check cannot read: ${err.message}.`,
      };
    }
  },
};
