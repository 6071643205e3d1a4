// What a c2pa read was checked against, and for a trusted signer where its chain ends: the C2PA
// lists or anchors the user added or gave (C2paTrust in types.ts; the card and the verdict say
// "on the C2PA Trust List" only for the first).
import { loadC2paWasm, readerSettings } from '../media/c2pa-wasm.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import type { C2paTrust, DetectContext } from '../types.js';

/** The kind of anchors in use: the C2PA lists (perhaps with some added by hand), only the user's, or none. */
export function anchorsKind(context: DetectContext): C2paTrust['anchors'] {
  if (context.trustLists?.length) return 'c2pa-lists';
  return context.trustAnchorsPem ? 'own' : 'none';
}

/** c2pa-rs's verdict on the file with the C2PA lists alone as anchors. */
async function trustedByLists(context: DetectContext, file: { type: string; bytes: Uint8Array }): Promise<boolean> {
  const wasm = await loadC2paWasm();
  const reader = await wasm.WasmReader.fromBytes(file.type, file.bytes, readerSettings(trustAnchorText({ trustLists: context.trustLists })));
  try {
    return (JSON.parse(reader.json()) as { validation_state?: string }).validation_state === 'Trusted';
  } finally {
    reader.free();
  }
}

/**
 * The trust facts of one read. `trusted` is c2pa-rs's verdict with every anchor in use; when both
 * the lists and the user's anchors were in use, the file is read again with the lists alone (only
 * then, and only for a trusted signer: one more read in that rare case, none otherwise) to tell
 * which of the two the chain ends at.
 */
export async function trustOf(context: DetectContext, trusted: boolean, file: { type: string; bytes: Uint8Array }): Promise<C2paTrust> {
  const anchors = anchorsKind(context);
  const trust: C2paTrust = { anchors };
  if (anchors === 'c2pa-lists') trust.lists = context.trustLists!.map((l) => ({ ...l }));
  if (!trusted || anchors === 'none') return trust;
  if (anchors === 'own') trust.trustedBy = 'own';
  else if (!context.trustAnchorsPem) trust.trustedBy = 'c2pa-trust-list';
  else trust.trustedBy = (await trustedByLists(context, file)) ? 'c2pa-trust-list' : 'own';
  return trust;
}
