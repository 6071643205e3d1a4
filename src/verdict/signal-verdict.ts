// What a manifest says about AI, read from the C2PA Asset Signals Rubric's signals (issue 38):
// the official rubric classifies each manifest of the file's provenance graph, and the verdict
// follows it, so that the verdict and the signals never disagree. docs/C2PA.md "Signals and the
// verdict" is this mapping as a table. Where the signals say nothing either way (a claim v1
// manifest, whose `c2pa.actions` the local rubric does not read; the legacy Adobe assertion; a
// remote result, which has no crJSON) the caller keeps the rules it had before.
import type { FileSignals, SignalsManifest } from '../detectors/c2pa-manifest.js';
import type { VerdictEvidence } from '../types.js';

export const SIGNAL = {
  fullyGenAI: 'inception:signal_fullyGenAIMedia',
  partlyGenAI: 'inception:signal_partlyGenAICreation',
  captured: 'inception:signal_capturedMedia',
  composition: 'inception:signal_compositionMayContainGenAI',
  screenCapture: 'inception:signal_screenCaptureMayContainGenAI',
  perceptibleGenAI: 'transformation:signal_perceptibleGenAI',
  possiblyGenAI: 'transformation:signal_perceptiblePossiblyGenAI',
} as const;

/** The start of a trusted capture's `content` (the verdict line says "Captured with ..."). */
export const CAPTURED_WITH = 'captured with ';

/** What the signals say, for the verdict's evidence entry. */
export interface SignalReading {
  says: VerdictEvidence['says'];
  content?: string;
  /** The trait that decided it. */
  trait: string;
}

const traitsOf = (m: SignalsManifest | undefined): Set<string> =>
  new Set([...(m?.localInceptions ?? []), ...(m?.localTransformations ?? [])].map((s) => s.trait));

/** Bound on the ingredients followed: a graph is small, but the file says how it is linked. */
const MAX_NODES = 256;

/**
 * The first manifest below `start`, through ingredients that end up in the picture (`parentOf`,
 * `componentOf` or none named: not `inputTo`), whose own signals say AI made it in whole or in
 * part; with the relationship of the active manifest's ingredient it was reached through.
 */
function aiIngredient(manifests: SignalsManifest[], start: number): { relationship: unknown } | undefined {
  const seen = new Set<number>([start]);
  const contained = (m: SignalsManifest | undefined) => (m?.ingredients ?? []).filter((i) => i.relationship !== 'inputTo');
  const queue: { index: number; via: unknown }[] = contained(manifests[start]).map((i) => ({ index: i.index, via: i.relationship }));
  while (queue.length && seen.size < MAX_NODES) {
    const { index, via } = queue.shift()!;
    if (seen.has(index)) continue;
    seen.add(index);
    const node = manifests[index];
    if (!node) continue;
    const traits = traitsOf(node);
    if (traits.has(SIGNAL.fullyGenAI) || traits.has(SIGNAL.partlyGenAI) || traits.has(SIGNAL.perceptibleGenAI)) return { relationship: via };
    for (const i of contained(node)) queue.push({ index: i.index, via });
  }
  return undefined;
}

/**
 * The verdict's reading of the file's signals, strongest first: AI-made (fully GenAI), contains
 * AI-made content (partly GenAI, a perceptible GenAI edit, or such an ingredient in the
 * picture), may contain it (a composition, a screen capture, an edit possibly made with GenAI),
 * a capture (only from a trusted signer: anyone can sign a capture claim). Undefined when the
 * signals say none of these.
 */
export function readSignals(signals: FileSignals | undefined, options: { trusted: boolean; product?: string }): SignalReading | undefined {
  if (!signals || signals.active === undefined) return undefined;
  const manifests = signals.output.manifests;
  const active = traitsOf(manifests[signals.active]);
  if (active.has(SIGNAL.fullyGenAI)) return { says: 'generated', trait: SIGNAL.fullyGenAI };
  if (active.has(SIGNAL.partlyGenAI)) return { says: 'contains', content: 'composite with AI-generated parts', trait: SIGNAL.partlyGenAI };
  if (active.has(SIGNAL.perceptibleGenAI)) return { says: 'contains', content: 'edited with generative AI', trait: SIGNAL.perceptibleGenAI };
  const ingredient = aiIngredient(manifests, signals.active);
  if (ingredient) {
    const content = ingredient.relationship === 'parentOf' ? 'edit of an AI-made picture' : 'composite with an AI-made part';
    return { says: 'contains', content, trait: 'ingredient' };
  }
  if (active.has(SIGNAL.composition)) return { says: 'may_contain', content: 'a composition that may contain AI-generated content', trait: SIGNAL.composition };
  if (active.has(SIGNAL.screenCapture)) return { says: 'may_contain', content: 'a screen capture that may contain AI-generated content', trait: SIGNAL.screenCapture };
  if (active.has(SIGNAL.possiblyGenAI)) return { says: 'may_contain', content: 'edits that may have used generative AI', trait: SIGNAL.possiblyGenAI };
  if (active.has(SIGNAL.captured) && options.trusted) {
    return { says: 'not_ai', content: `${CAPTURED_WITH}${options.product ?? 'a device the manifest does not name'}`, trait: SIGNAL.captured };
  }
  return undefined;
}
