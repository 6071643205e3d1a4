// What a card shows beyond the result: the file's thumbnail and, for a file whose c2pa check
// found a manifest, the manifest's own pictures and details. Made from the file's bytes, here,
// by whoever holds them (the CLI from the local file, the daemon from the request), each picture
// from a bounded decode (media/thumbnail.ts) and within the caller's limits (PictureLimits: the
// daemon's media budget, the account's turn and its time limit); a picture left out says why.
import { readC2paResources } from '../detectors/c2pa-resources.js';
import { thumbnailDecode, thumbnailOrNone } from '../media/thumbnail.js';
import type { DetectionResult, TrustOptions } from '../types.js';
import type { CardExtras } from './card.js';

/** The limits a caller makes its card's pictures within. */
export interface PictureLimits {
  /**
   * Makes one picture whose decode holds `cost` bytes (thumbnailDecode), within the caller's
   * budget: the daemon takes them from its media budget first. A rejection leaves that picture
   * out, its message in the card's note.
   */
  around?(cost: number, make: () => Promise<string | undefined>): Promise<string | undefined>;
  /** Aborted at the caller's time limit: the pictures not begun by then are left out, and the card says so. */
  signal?: AbortSignal;
}

export interface ExtrasOptions {
  /** The anchors the check used (the pictures' read says the same of the signer). */
  trust?: TrustOptions;
  /** Thumbnails made or being made, by SHA-256 (a folder with copies makes each picture once). */
  cache?: Map<string, Promise<string | undefined>>;
  limits?: PictureLimits;
}

const CACHE_MAX = 4096;

/** The pictures of one card, made one after another within the limits; what was left out, counted by why. */
class Pictures {
  private readonly left = new Map<string, number>();
  constructor(private readonly limits: PictureLimits = {}) {}

  async make(bytes: Uint8Array): Promise<string | undefined> {
    const plan = thumbnailDecode(bytes);
    if ('refused' in plan) return this.leave(`over 3,072 x 3,072 pixels, not decoded (${plan.size})`);
    if (this.limits.signal?.aborted) return this.leave('not made within the time limit');
    if (!this.limits.around) return thumbnailOrNone(bytes);
    try {
      return await this.limits.around(plan.cost, () => thumbnailOrNone(bytes));
    } catch (err) {
      return this.leave(`not made: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private leave(why: string): undefined {
    this.left.set(why, (this.left.get(why) ?? 0) + 1);
    return undefined;
  }

  /** "2 pictures over 3,072 x 3,072 pixels, not decoded (20,000 x 20,000 pixels); ...", or undefined. */
  note(): string | undefined {
    if (!this.left.size) return undefined;
    return [...this.left].map(([why, n]) => `${n} picture${n === 1 ? '' : 's'} ${why}`).join('; ');
  }
}

async function fileThumbnail(pictures: Pictures, bytes: Uint8Array, result: DetectionResult, cache?: ExtrasOptions['cache']): Promise<string | undefined> {
  if (!result.media.type.startsWith('image/')) return undefined;
  const key = result.media.sha256;
  const known = cache?.get(key);
  if (known) return known;
  // thumbnailOrNone answers undefined for what is no picture it reads; anything else it throws
  // is a defect, for the caller to see (and never left in the cache).
  const thumb = pictures.make(bytes);
  if (cache) {
    thumb.catch(() => cache.delete(key));
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, thumb);
  }
  return thumb;
}

export async function cardExtras(bytes: Uint8Array, result: DetectionResult, options: ExtrasOptions = {}): Promise<CardExtras> {
  // A buffer moved to a worker (engine/pool.ts) is empty here: say so, rather than draw nothing.
  if (bytes.byteLength !== result.media.bytes) {
    throw new Error(`cardExtras: ${bytes.byteLength} bytes given for a file of ${result.media.bytes} (moved to a worker, detached?)`);
  }
  const pictures = new Pictures(options.limits);
  const extras: CardExtras = {};
  const thumbnail = await fileThumbnail(pictures, bytes, result, options.cache);
  if (thumbnail) extras.thumbnail = thumbnail;
  const c2pa = result.matches.find((m) => m.check === 'c2pa');
  if (c2pa?.result === 'found') {
    const resources = await readC2paResources(result.media.type, bytes, options.trust);
    if (resources) {
      if (resources.details) extras.details = resources.details;
      if (resources.claim) extras.claimThumbnail = await pictures.make(resources.claim.bytes);
      const ingredientThumbnails: Record<string, string> = {};
      for (const [key, pic] of resources.ingredients) {
        const t = await pictures.make(pic.bytes);
        if (t) ingredientThumbnails[key] = t;
      }
      extras.ingredientThumbnails = ingredientThumbnails;
    }
  }
  const note = pictures.note();
  if (note) extras.picturesNote = note;
  return extras;
}
