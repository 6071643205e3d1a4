// What running `checks` on a file may hold in decoded pixels, told from its header bytes alone,
// before it goes to a worker: the daemon takes this from its media budget (`--media-memory`)
// along with the file's own bytes (issue 34: two decode bombs of a few KB each took a daemon
// with a 256 MiB budget to 1.45 GB). It is an upper bound of what the checks decode: the
// figures and bounds are the checks' own (media/pixel-memory.ts, invisible-watermark.ts).
import { MAX_WATERMARK_PIXELS } from '../detectors/invisible-watermark.js';
import { decodeCost, isWebp, MAX_DECODED_PIXELS } from '../media/pixel-memory.js';
import { pictureSize } from '../media/picture-size.js';

/** The checks that decode pixels, and the file types they decode. */
const PIXEL_CHECKS = ['generator_metadata', 'invisible_watermark'];

function stillType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/webp' | undefined {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return isWebp(bytes) ? 'image/webp' : undefined;
}

/**
 * Bytes of decoded pixels the checks may hold for `bytes`: 0 for a file no pixel check decodes
 * (another type, a picture over every check's bound, no pixel check selected); for a header not
 * read here (sharp reads more forms than picture-size.ts), the most the bounds allow.
 */
export function pixelReservation(bytes: Uint8Array, checks: readonly string[]): number {
  const type = stillType(bytes);
  if (!type || !checks.some((c) => PIXEL_CHECKS.includes(c))) return 0;
  // generator_metadata decodes PNG and WebP only (their alpha channel, NovelAI's signature), up
  // to MAX_DECODED_PIXELS; invisible_watermark decodes any of the three up to its own bound.
  const generator = type !== 'image/jpeg' && checks.includes('generator_metadata');
  const bound = generator ? MAX_DECODED_PIXELS : checks.includes('invisible_watermark') ? MAX_WATERMARK_PIXELS : 0;
  const size = pictureSize(bytes, type);
  const webp = type === 'image/webp';
  if (!size) return decodeCost(bound, 1, webp);
  return size.width * size.height > bound ? 0 : decodeCost(size.width, size.height, webp);
}
