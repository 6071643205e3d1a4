// What a card shows beyond the result: the file's thumbnail and, for a file whose c2pa check
// found a manifest, the manifest's own pictures and details. Made from the file's bytes, here,
// by whoever holds them (the CLI from the local file, the daemon from the request).
import { readC2paResources } from '../detectors/c2pa-resources.js';
import { thumbnailOrNone } from '../media/thumbnail.js';
import type { DetectionResult, TrustOptions } from '../types.js';
import type { CardExtras } from './card.js';

export interface ExtrasOptions {
  /** The anchors the check used (the pictures' read says the same of the signer). */
  trust?: TrustOptions;
  /** Thumbnails made or being made, by SHA-256 (a folder with copies makes each picture once). */
  cache?: Map<string, Promise<string | undefined>>;
}

const CACHE_MAX = 4096;

async function fileThumbnail(bytes: Uint8Array, result: DetectionResult, cache?: ExtrasOptions['cache']): Promise<string | undefined> {
  if (!result.media.type.startsWith('image/')) return undefined;
  const key = result.media.sha256;
  const known = cache?.get(key);
  if (known) return known;
  // thumbnailOrNone answers undefined for what is no picture it reads; anything else it throws
  // is a defect, for the caller to see (and never left in the cache).
  const thumb = thumbnailOrNone(bytes);
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
  const extras: CardExtras = {};
  const thumbnail = await fileThumbnail(bytes, result, options.cache);
  if (thumbnail) extras.thumbnail = thumbnail;
  const c2pa = result.matches.find((m) => m.check === 'c2pa');
  if (c2pa?.result === 'found') {
    const resources = await readC2paResources(result.media.type, bytes, options.trust);
    if (resources) {
      if (resources.details) extras.details = resources.details;
      if (resources.claim) extras.claimThumbnail = await thumbnailOrNone(resources.claim.bytes);
      const ingredientThumbnails: Record<string, string> = {};
      for (const [key, pic] of resources.ingredients) {
        const t = await thumbnailOrNone(pic.bytes);
        if (t) ingredientThumbnails[key] = t;
      }
      extras.ingredientThumbnails = ingredientThumbnails;
    }
  }
  return extras;
}
