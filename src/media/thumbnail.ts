// Small thumbnails for the HTML report and the daemon's Verify page: at most 160 px on the long
// side, WebP, as a data: URL (the report is one self-contained file; the Verify page gets the
// card in one answer). Decoded by sharp (libvips), the decoder the pixel checks use, loaded
// lazily, within the pixel checks' bounds (pixel-memory.ts): a decode of at most
// MAX_DECODED_PIXELS, told from the header before sharp is asked (a baseline JPEG or a WebP is
// decoded shrunk, up to 1/8, so a large photo still gets its picture), with sharp's own
// limitInputPixels behind it for the forms the header reader does not read, and its cost taken
// from the process's decoded-pixel gate while it decodes. A manifest carrying eleven 20,000 x
// 20,000 PNG thumbnails took `check --html` 10.8 s and 477 MB, and a daemon to 1.5 GB (issue 40).
import { findJpegSegment, isStartOfFrame } from './jpeg-segments.js';
import { isWebp, MAX_DECODED_PIXELS } from './pixel-memory.js';
import { pictureSize } from './picture-size.js';
import { decodeGate, loadSharp } from './pixels.js';

/** The long side of a thumbnail, in pixels (issue 25: at most 160). */
export const THUMBNAIL_SIZE = 160;

/** Images with more pixels are never decoded for a thumbnail, even shrunk on load (a 24,000 x 16,000 JPEG is; a bomb is not). */
export const THUMBNAIL_MAX_INPUT_PIXELS = 400_000_000;

/** The most a baseline JPEG or a WebP is shrunk while it is decoded (libjpeg's 1/8 scale). */
export const SHRINK_ON_LOAD = 8;

/**
 * Bytes a thumbnail's decode holds per decoded pixel, at most: one 8-bit RGBA frame. Measured as
 * the peak RSS (VmHWM) over the process's before, sharp 0.34, one libvips thread: a 3,072 x 3,072
 * RGBA PNG of noise 23 MB (2.4 a pixel), the same as a WebP 11 MB, as a JPEG turned by its EXIF
 * orientation 2 MB; an 8,000 x 8,000 JPEG, shrunk on load, 6 MB.
 */
export const THUMBNAIL_PIXEL_BYTES = 4;

/** The file could not be made into a thumbnail (not an image sharp reads, damaged, too large). */
export class ThumbnailError extends Error {
  override name = 'ThumbnailError';
  /** true: refused by its size before any decode (the card says so, rather than showing nothing). */
  readonly tooLarge: boolean;
  constructor(message: string, tooLarge = false) {
    super(message);
    this.tooLarge = tooLarge;
  }
}

export interface ThumbnailOptions {
  /** Long side in pixels, at most THUMBNAIL_SIZE (default). */
  size?: number;
  /** WebP quality (default 60: a 160 px picture of 3-6 KB). */
  quality?: number;
}

/** What a thumbnail of a picture would decode: its pixels and the bytes they hold, or why it is not made. */
export type ThumbnailDecode = { pixels: number; cost: number; inputLimit: number } | { refused: string; size: string };

function stillType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/webp' | undefined {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return isWebp(bytes) ? 'image/webp' : undefined;
}

/** A JPEG libjpeg can decode shrunk without the whole picture's coefficients (a progressive one holds them all). */
function baselineJpeg(bytes: Uint8Array): boolean {
  const sof = findJpegSegment(bytes, (s) => isStartOfFrame(s.marker));
  return sof !== undefined && (sof.marker === 0xc0 || sof.marker === 0xc1);
}

/**
 * What making a thumbnail of `bytes` would decode, from its header alone: pixels shrunk on load
 * for a baseline JPEG or a WebP, else every pixel; refused past MAX_DECODED_PIXELS. A form whose
 * size is not read here (GIF, TIFF, AVIF, ...) is counted at the bound, and sharp refuses it past
 * it (inputLimit).
 */
export function thumbnailDecode(bytes: Uint8Array): ThumbnailDecode {
  const type = stillType(bytes);
  const size = type && pictureSize(bytes, type);
  const shrinks = type === 'image/webp' || (type === 'image/jpeg' && baselineJpeg(bytes));
  const inputLimit = shrinks ? THUMBNAIL_MAX_INPUT_PIXELS : MAX_DECODED_PIXELS;
  if (!size) return { pixels: MAX_DECODED_PIXELS, cost: MAX_DECODED_PIXELS * THUMBNAIL_PIXEL_BYTES, inputLimit };
  const { width, height } = size;
  let shrink = 1;
  while (shrinks && shrink < SHRINK_ON_LOAD && Math.max(width, height) / (shrink * 2) >= THUMBNAIL_SIZE) shrink *= 2;
  const pixels = Math.ceil(width / shrink) * Math.ceil(height / shrink);
  if (width * height > inputLimit || pixels > MAX_DECODED_PIXELS) {
    const size = `${width.toLocaleString('en-US')} x ${height.toLocaleString('en-US')} pixels`;
    return { refused: `${size}, more than a picture is decoded at (3,072 x 3,072)`, size };
  }
  return { pixels, cost: pixels * THUMBNAIL_PIXEL_BYTES, inputLimit };
}

/**
 * A `data:image/webp;base64,...` URL of `bytes`, fitted inside size x size (never enlarged).
 * Throws only ThumbnailError, whatever the bytes are.
 */
export async function makeThumbnail(bytes: Uint8Array, options: ThumbnailOptions = {}): Promise<string> {
  const size = Math.max(1, Math.min(THUMBNAIL_SIZE, Math.round(options.size ?? THUMBNAIL_SIZE)));
  const plan = thumbnailDecode(bytes);
  if ('refused' in plan) throw new ThumbnailError(`not pictured: ${plan.refused}`, true);
  let sharp: Awaited<ReturnType<typeof loadSharp>>;
  try {
    sharp = await loadSharp();
  } catch (err) {
    throw new ThumbnailError(`the image decoder (sharp) could not be loaded: ${(err as Error).message}`);
  }
  // The decode counts in the process's gate, with the pixel checks' decodes (on its workers too).
  const release = await decodeGate().acquire(plan.cost);
  try {
    // failOn 'none': a truncated JPEG still shows what it has. The first page/frame only.
    const out = await sharp(bytes, { limitInputPixels: plan.inputLimit, failOn: 'none', sequentialRead: true, pages: 1 })
      .rotate() // EXIF orientation: the thumbnail stands as the photo does
      .resize(size, size, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: options.quality ?? 60, effort: 2 })
      .toBuffer();
    return `data:image/webp;base64,${out.toString('base64')}`;
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    throw new ThumbnailError(`no thumbnail: ${message.split('\n')[0]!.slice(0, 200)}`);
  } finally {
    release();
  }
}

/** makeThumbnail, or undefined when the bytes are not a picture it can read. */
export async function thumbnailOrNone(bytes: Uint8Array, options?: ThumbnailOptions): Promise<string | undefined> {
  try {
    return await makeThumbnail(bytes, options);
  } catch (err) {
    if (err instanceof ThumbnailError) return undefined;
    throw err;
  }
}
