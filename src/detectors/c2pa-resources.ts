// The pictures a C2PA manifest carries: the claim thumbnail of the active manifest and each
// ingredient's own thumbnail, read from the manifest store's resources through c2pa-rs
// (`WasmReader.resourceToBytes`). The HTML report and the daemon's Verify page draw the
// ingredient tree with them, as Content Credentials Verify does. A second read of the manifest,
// made only for files whose c2pa check found one, and only for those two pages: the scan's
// results (and their JSON) never carry pictures.
import { loadC2paWasm, readerSettings } from '../media/c2pa-wasm.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import type { TrustOptions } from '../types.js';
import { c2paDetails, foundOutcome, INGREDIENT_BREADTH, INGREDIENT_DEPTH, type C2paDetails, type CrJsonStore, type ReaderStore } from './c2pa-manifest.js';
import { trustOf } from './c2pa-trust.js';

/** One picture from the manifest's resource store, as stored (JPEG or PNG, usually). */
export interface ManifestPicture {
  format: string;
  bytes: Uint8Array;
}

export interface C2paResources {
  /** The report details (signer, actions, ingredient tree) of this read. */
  details?: C2paDetails;
  /** The active manifest's claim thumbnail. */
  claim?: ManifestPicture;
  /**
   * Each ingredient's thumbnail, keyed by its place in the details' ingredient tree: "0" is the
   * first ingredient, "0/2" the third ingredient of the first one (same depth and breadth limits).
   */
  ingredients: Map<string, ManifestPicture>;
}

/** A resource larger than this is not read (a claim thumbnail is tens of KB). */
const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

interface Thumbed {
  thumbnail?: { format?: string; identifier?: string };
}
type Manifest = NonNullable<ReaderStore['manifests']>[string] & Thumbed;
type Ingredient = NonNullable<Manifest['ingredients']>[number] & Thumbed;

/** The thumbnails and details of the manifest in `bytes`, or undefined when none can be read. */
export async function readC2paResources(type: string, bytes: Uint8Array, trust: TrustOptions = {}): Promise<C2paResources | undefined> {
  const wasm = await loadC2paWasm();
  let reader: Awaited<ReturnType<typeof wasm.WasmReader.fromBytes>> | undefined;
  try {
    reader = await wasm.WasmReader.fromBytes(type, bytes, readerSettings(trustAnchorText(trust)));
    const store = JSON.parse(reader.json()) as ReaderStore;
    const cr = JSON.parse(reader.crJson()) as CrJsonStore;
    const label = store.active_manifest;
    const manifest = label ? (store.manifests?.[label] as Manifest | undefined) : undefined;
    if (!label || !manifest) return undefined;
    const placed = await trustOf(trust, store.validation_state === 'Trusted', { type, bytes });
    const outcome = foundOutcome(store, cr, { trust: placed });
    const r = reader;
    const picture = (thumb: Thumbed['thumbnail']): ManifestPicture | undefined => {
      if (!thumb?.identifier) return undefined;
      try {
        const data = r.resourceToBytes(thumb.identifier);
        if (!data.length || data.length > MAX_RESOURCE_BYTES) return undefined;
        return { format: thumb.format ?? 'application/octet-stream', bytes: data };
      } catch {
        return undefined; // a resource the store names but cannot give: no picture, no failure
      }
    };
    const ingredients = new Map<string, ManifestPicture>();
    // The same walk as c2pa-manifest.ts ingredientTree, so the keys match the tree's places.
    const walk = (list: Ingredient[], depth: number, seen: Set<string>, prefix: string) => {
      list.slice(0, INGREDIENT_BREADTH).forEach((ingredient, i) => {
        const key = prefix ? `${prefix}/${i}` : String(i);
        const pic = picture(ingredient.thumbnail);
        if (pic) ingredients.set(key, pic);
        const below = ingredient.active_manifest ? (store.manifests?.[ingredient.active_manifest] as Manifest | undefined) : undefined;
        if (!below || !ingredient.active_manifest || depth + 1 >= INGREDIENT_DEPTH || seen.has(ingredient.active_manifest)) return;
        walk((below.ingredients ?? []) as Ingredient[], depth + 1, new Set([...seen, ingredient.active_manifest]), key);
      });
    };
    walk((manifest.ingredients ?? []) as Ingredient[], 0, new Set([label]), '');
    return { details: c2paDetails(outcome?.claims), claim: picture(manifest.thumbnail), ingredients };
  } catch {
    return undefined; // the c2pa check already said why (unavailable, not_found)
  } finally {
    reader?.free();
  }
}
