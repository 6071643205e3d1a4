// One file's pixel check (invisible_watermark) on a thread of its own, beside the rest of its
// checks: `provenance check FILE` runs in one thread (a pool of workers would only add their start
// to a single file), and there the pixel check came last and alone: loading sharp (its native
// module and libvips, some 100 ms), the decode and the readings all after the C2PA read. On a
// second thread they overlap it, and a cold check of a signed photo costs about what its C2PA
// read costs (issue 32; docs/PERFORMANCE.md, cold start). Only for pictures the check will read
// (by type and header size): refusing the others takes no decoder and is quicker in this thread.
import { MAX_WATERMARK_PIXELS, MIN_WATERMARK_PIXELS } from '../detectors/invisible-watermark.js';
import { pictureSize } from '../media/picture-size.js';
import type { Match, Media } from '../types.js';
import type { DetectOptions, PixelRunner } from './detect.js';
import type { DetectPool } from './pool.js';

const PIXEL_CHECK = 'invisible_watermark';
const READ_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

export class PixelOffload implements PixelRunner {
  #pool: Promise<DetectPool> | undefined;

  /** Whether `media`'s pixel check is worth a thread: a picture of a size the check decodes. */
  worth(media: Media): boolean {
    if (!READ_TYPES.has(media.type)) return false;
    const size = pictureSize(media.bytes, media.type);
    // A header read here only in its plain forms: others go to the thread, which asks sharp.
    if (!size) return true;
    const pixels = size.width * size.height;
    return pixels >= MIN_WATERMARK_PIXELS && pixels <= MAX_WATERMARK_PIXELS;
  }

  /**
   * The pixel check's match for `bytes`, from the thread; undefined when the thread could not
   * give one (it failed to start, or died), and the caller then runs the check itself.
   */
  async run(bytes: Uint8Array, options: DetectOptions): Promise<Match | undefined> {
    try {
      // The pool module loads only now (its own lazy bundle), and one worker is enough.
      this.#pool ??= import('./pool.js').then(({ DetectPool }) => new DetectPool({ size: 1 }));
      const pool = await this.#pool;
      // A copy (Uint8Array.from: a Buffer's slice() would be a view): the pool moves whole
      // buffers to the worker, and this thread still reads them.
      const { result } = await pool.run({ source: PIXEL_CHECK, bytes: Uint8Array.from(bytes) }, { ...options, checks: [PIXEL_CHECK] });
      return result.matches.find((m) => m.check === PIXEL_CHECK);
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) await (await pool.catch(() => undefined))?.close();
  }
}
