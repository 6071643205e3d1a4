// c2pa: reads the embedded C2PA manifest with c2pa-rs (the official WebAssembly build).
import { hasC2paMarker } from '../media/c2pa-markers.js';
import { loadC2paWasm, readerSettings } from '../media/c2pa-wasm.js';
import { anchorsForFile } from '../media/trust-anchor-filter.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import type { DetectContext, Detector, DetectorOutcome, Media } from '../types.js';
import { c2paDetails, foundOutcome, type CrJsonStore, type ReaderStore } from './c2pa-manifest.js';
import { conformingProductOf } from './conforming-products.js';
import { trustOf } from './c2pa-trust.js';

const NOT_FOUND: DetectorOutcome = { result: 'not_found', confidence: 1 };

// c2pa-rs errors that mean "there is no manifest here", as opposed to "could not read it".
const NO_MANIFEST = /JumbfNotFound|ProvenanceMissing|ClaimMissing|JumbfBoxNotFound|NotFound\b/;
const REMOTE_URL = /RemoteManifestUrl\("([^"]*)"\)/;
const UNSUPPORTED_TYPE = /^C2pa\(UnsupportedType\)$/;

export function outcomeForError(err: unknown): DetectorOutcome {
  const message = errorText(err);
  const remote = REMOTE_URL.exec(message);
  if (remote) {
    return {
      result: 'unavailable',
      confidence: 0,
      reason: `The manifest is stored remotely at ${remote[1]} and remote manifests are not fetched.`,
    };
  }
  if (NO_MANIFEST.test(message)) return NOT_FOUND;
  return {
    result: 'unavailable',
    confidence: 0,
    reason: `The file is damaged in a way the c2pa check cannot read: ${plainError(message)}.`,
  };
}

function errorText(err: unknown): string {
  if (typeof err === 'string') return err;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** `C2pa(InvalidAsset("TIFF file has too many subfiles"))` -> `TIFF file has too many subfiles`. */
function plainError(message: string): string {
  const inner = /\("((?:[^"\\]|\\.)*)"\)\)?$/.exec(message);
  const text = inner ? inner[1]!.replace(/\\"/g, '"') : message;
  return text.replace(/\.$/, '').slice(0, 300);
}

/** The full c2pa-rs read, without the marker fast path. */
export async function readManifest(media: Media, context: DetectContext = {}): Promise<DetectorOutcome> {
  const wasm = await loadC2paWasm();
  // The lists are read here, once a marker says there is a manifest to check (never for a file
  // without one); a list that cannot be read fails the check (runCheck says why), not the file.
  const anchors = trustAnchorText(context);
  let reader: { json(): string; crJson(): string; free(): void } | undefined;
  let cr: CrJsonStore;
  let found: DetectorOutcome | undefined;
  let activeLabel: string | undefined;
  try {
    // With trust anchors c2pa-rs validates the signer's chain (and the time stamp's: the TSA list
    // is among them) and reports `Trusted` where it ends at one of them; without, it reports
    // `Valid` plus signingCredential.untrusted.
    // Only the anchors whose subject occurs in the file's manifest store: no other can change the
    // answer, and c2pa-rs parses every anchor it is given on each read (trust-anchor-filter.ts).
    reader = await wasm.WasmReader.fromBytes(media.type, media.bytes, readerSettings(anchors && anchorsForFile(media.bytes, media.type, anchors)));
    const store = JSON.parse(reader.json()) as ReaderStore;
    cr = JSON.parse(reader.crJson()) as CrJsonStore;
    const trust = await trustOf(context, store.validation_state === 'Trusted', media);
    found = foundOutcome(store, cr, { trust, conformingProduct: (subject) => conformingProductOf(subject) });
    if (!found) return NOT_FOUND;
    activeLabel = store.active_manifest;
  } catch (err) {
    return outcomeForError(err);
  } finally {
    reader?.free();
  }
  await attachSignals(found, cr, activeLabel);
  return found;
}

/**
 * The C2PA Asset Signals Rubric over the file's crJSON, into the match's report details (the
 * verdict and the cards read them from there). Loaded only now, when a manifest was found: a
 * file without one never reads the rubric or loads json-formula.
 */
async function attachSignals(found: DetectorOutcome, cr: CrJsonStore, activeLabel: string | undefined): Promise<void> {
  const details = c2paDetails(found.claims);
  if (!details) return;
  const { fileSignals } = await import('../rubrics/signals.js');
  details.signals = fileSignals(cr, activeLabel);
}

/**
 * c2pa-rs's crJSON of a file, the text its reader's crJson() gives with these anchors (the same
 * settings as the c2pa check's read), or undefined when the file carries no manifest. A file
 * c2pa-rs cannot read (damaged, or its manifest stored remotely) throws an Error whose message is
 * the reason the c2pa check gives; one of a media type c2pa-rs does not read, an Error saying so.
 */
export async function readCrJson(media: Pick<Media, 'bytes' | 'type'>, trustAnchorsPem?: string): Promise<string | undefined> {
  if (!hasC2paMarker(media.bytes)) return undefined;
  const wasm = await loadC2paWasm();
  let reader: { crJson(): string; free(): void } | undefined;
  try {
    reader = await wasm.WasmReader.fromBytes(media.type, media.bytes, readerSettings(trustAnchorsPem));
    return reader.crJson();
  } catch (err) {
    // The c2pa check hands c2pa-rs only the media types it lists; --crjson hands it any file that
    // passes the marker test (a text file that names "c2pa"), which is not a damaged one.
    if (UNSUPPORTED_TYPE.test(errorText(err))) throw new Error(`The media type ${media.type} is not read by c2pa-rs.`);
    const outcome = outcomeForError(err);
    if (outcome.result === 'not_found') return undefined;
    throw new Error(outcome.reason ?? 'c2pa-rs cannot read the file.');
  } finally {
    reader?.free();
  }
}

export const c2pa: Detector = {
  id: 'c2pa',
  name: 'C2PA content credentials',
  description:
    'The C2PA content-credentials manifest embedded in a file. It names the tool that made the file and the party that signed it.',
  media_types: [
    'image/jpeg',
    'image/png',
    'image/webp',
    'image/tiff',
    'image/heic',
    'image/heif',
    'image/avif',
    'video/mp4',
    'video/quicktime',
    'audio/mp4',
  ],
  status: 'available',
  inverse: false,
  async run(media: Media, context: DetectContext = {}) {
    // Fast path: no marker bytes, no manifest (test/c2pa-fast-path.test.ts proves it on the corpus).
    if (!hasC2paMarker(media.bytes)) return NOT_FOUND;
    return readManifest(media, context);
  },
};
