// A file's Content Credentials as the C2PA's conformance program reads them (issue 38): c2pa-rs's
// crJSON, and the C2PA Asset Rubrics evaluated over it (src/rubrics). Shared by `check --crjson`
// / `check --rubric` (commands/c2pa-output.ts) and the library's crJson() and rubric().
import { readCrJson } from '../detectors/c2pa.js';
import { trustListFiles } from '../config/trust-lists.js';
import { packageDataFile } from '../media/package-data.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import { trustAnchorsPem } from './trust-anchors.js';
import { sniffMediaType } from '../media/sniff.js';
import type { ConformanceOutput } from '../rubrics/conformance.js';
import { isRubricName, RUBRIC_NAMES, type RubricName } from '../rubrics/rubric-files.js';
import type { SignalsOutput } from '../rubrics/signals.js';

export type { ConformanceEntry, ConformanceOutcome, ConformanceOutput } from '../rubrics/conformance.js';
export type { SignalHit, SignalsManifest, SignalsOutput } from '../rubrics/signals.js';
export { isRubricName, RUBRIC_NAMES, type RubricName } from '../rubrics/rubric-files.js';

export interface CrJsonSettings {
  /** PEM anchors c2pa-rs validates signers (and time stamps) against; none: no trust list. */
  trustAnchorsPem?: string;
}

/** c2pa-rs's crJSON text of a file's bytes; undefined when it carries no manifest. */
export async function crJsonText(bytes: Uint8Array, settings: CrJsonSettings = {}): Promise<string | undefined> {
  return readCrJson({ bytes, type: await sniffMediaType(bytes) }, settings.trustAnchorsPem);
}

/** The official output of the rubric of that name over a crJSON document. */
export async function rubricOutput(crJson: unknown, name: RubricName): Promise<SignalsOutput | ConformanceOutput> {
  if (!isRubricName(name)) throw new TypeError(`unknown rubric "${String(name)}"; the rubrics are ${RUBRIC_NAMES.join(', ')}.`);
  const { loadRubric } = await import('../rubrics/shipped-rubrics.js');
  if (name === 'signals') {
    const { evaluateSignals } = await import('../rubrics/signals.js');
    return evaluateSignals(crJson, await loadRubric(name));
  }
  const { evaluateConformance } = await import('../rubrics/conformance.js');
  return evaluateConformance(crJson, await loadRubric(name));
}

/** Options of the library's crJson() and rubric(). */
export interface CrJsonOptions {
  /** C2PA trust anchors: PEM text or the path of a PEM file (as check()'s `trustAnchors`: they replace the C2PA lists, used by default). */
  trustAnchors?: string;
  signal?: AbortSignal;
}

/** The library's crJson(): the file's crJSON document, or null when it carries no manifest. */
export async function crJsonOfBytes(bytes: Uint8Array, options: CrJsonOptions = {}): Promise<Record<string, unknown> | null> {
  // The same anchors as check(): the given ones replace the C2PA lists, else the lists.
  const pem = trustAnchorsPem(options.trustAnchors);
  const text = await crJsonText(bytes, { trustAnchorsPem: pem ?? trustAnchorText({ trustLists: trustListFiles(packageDataFile('c2pa')) }) });
  options.signal?.throwIfAborted();
  return text === undefined ? null : (JSON.parse(text) as Record<string, unknown>);
}
