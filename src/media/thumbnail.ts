// Small thumbnails for the HTML report and the daemon's Verify page: at most 160 px on the long
// side, WebP, as a data: URL (the report is one self-contained file; the Verify page gets the
// card in one answer). Decoded by sharp (libvips), the decoder the pixel checks use, loaded
// lazily; the input's pixel count is bounded, so a 100,000 x 100,000 header costs nothing.
import { loadSharp } from './pixels.js';

/** The long side of a thumbnail, in pixels (issue 25: at most 160). */
export const THUMBNAIL_SIZE = 160;

/** Images with more pixels are not decoded for a thumbnail (a 24,000 x 16,000 scan is; a bomb is not). */
export const THUMBNAIL_MAX_INPUT_PIXELS = 400_000_000;

/** The file could not be made into a thumbnail (not an image sharp reads, damaged, too large). */
export class ThumbnailError extends Error {
  override name = 'ThumbnailError';
}

export interface ThumbnailOptions {
  /** Long side in pixels, at most THUMBNAIL_SIZE (default). */
  size?: number;
  /** WebP quality (default 60: a 160 px picture of 3-6 KB). */
  quality?: number;
}

/**
 * A `data:image/webp;base64,...` URL of `bytes`, fitted inside size x size (never enlarged).
 * Throws only ThumbnailError, whatever the bytes are.
 */
export async function makeThumbnail(bytes: Uint8Array, options: ThumbnailOptions = {}): Promise<string> {
  const size = Math.max(1, Math.min(THUMBNAIL_SIZE, Math.round(options.size ?? THUMBNAIL_SIZE)));
  let sharp: Awaited<ReturnType<typeof loadSharp>>;
  try {
    sharp = await loadSharp();
  } catch (err) {
    throw new ThumbnailError(`the image decoder (sharp) could not be loaded: ${(err as Error).message}`);
  }
  try {
    // failOn 'none': a truncated JPEG still shows what it has. The first page/frame only.
    const out = await sharp(bytes, { limitInputPixels: THUMBNAIL_MAX_INPUT_PIXELS, failOn: 'none', sequentialRead: true, pages: 1 })
      .rotate() // EXIF orientation: the thumbnail stands as the photo does
      .resize(size, size, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: options.quality ?? 60, effort: 2 })
      .toBuffer();
    return `data:image/webp;base64,${out.toString('base64')}`;
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    throw new ThumbnailError(`no thumbnail: ${message.split('\n')[0]!.slice(0, 200)}`);
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
