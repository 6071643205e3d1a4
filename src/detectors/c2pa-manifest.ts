// Turns c2pa-rs's reader output into the contract's c2pa match (CONTRACT "Detection result").
import type { C2paClaims, DetectorOutcome, ValidationState } from '../types.js';

/** The parts of c2pa-rs's Reader JSON (`reader.json()`) that the contract reports. */
export interface ReaderStore {
  active_manifest?: string;
  manifests?: Record<string, ReaderManifest>;
  validation_state?: string;
  validation_status?: { code?: string }[];
}

export interface ReaderManifest {
  claim_generator?: string;
  claim_generator_info?: { name?: string; version?: string }[];
  assertions?: { label?: string }[];
  signature_info?: { issuer?: string; common_name?: string; time?: string };
}

/** crJSON (`reader.crJson()`): the claim as stored, with assertion labels exactly as recorded. */
export interface CrJsonStore {
  manifests?: {
    label?: string;
    claim?: Record<string, unknown>;
  }[];
}

const VALIDATION_STATES: Record<string, ValidationState> = {
  Valid: 'valid',
  Invalid: 'invalid',
  Trusted: 'trusted',
};

/** v1 claims carry `claim_generator`; v2 claims only `claim_generator_info` (name/version). */
export function claimGenerator(manifest: ReaderManifest): string {
  if (manifest.claim_generator) return manifest.claim_generator;
  const first = manifest.claim_generator_info?.[0];
  if (!first?.name) return '';
  return first.version ? `${first.name}/${first.version}` : first.name;
}

/** Labels as the claim records them, without the `__N` instance suffix. */
export function recordedLabels(cr: CrJsonStore, activeLabel: string): Set<string> {
  const claim = cr.manifests?.find((m) => m.label === activeLabel)?.claim ?? {};
  const refs = ['assertions', 'created_assertions', 'gathered_assertions'].flatMap((key) => {
    const list = claim[key];
    return Array.isArray(list) ? (list as { url?: unknown }[]) : [];
  });
  const labels = new Set<string>();
  for (const ref of refs) {
    if (typeof ref.url !== 'string') continue;
    const last = ref.url.slice(ref.url.lastIndexOf('/') + 1);
    labels.add(last.replace(/__\d+$/, ''));
  }
  return labels;
}

/**
 * The assertion list c2patool shows (the reader's list: no thumbnails, ingredients or hash
 * bindings it hides), but with each label as recorded: the reader upgrades a v1 `c2pa.actions`
 * to `c2pa.actions.v2`, and the contract keeps `c2pa.actions`.
 */
export function assertionLabels(manifest: ReaderManifest, recorded: Set<string>): string[] {
  return (manifest.assertions ?? []).flatMap((a) => {
    if (!a.label) return [];
    if (recorded.size === 0 || recorded.has(a.label)) return [a.label];
    if (a.label.endsWith('.v2') && recorded.has(a.label.slice(0, -3))) return [a.label.slice(0, -3)];
    return [a.label];
  });
}

export function validationOf(store: ReaderStore): C2paClaims['validation'] {
  const state = VALIDATION_STATES[store.validation_state ?? ''];
  if (!state) return undefined;
  const codes = [...new Set((store.validation_status ?? []).flatMap((s) => (s.code ? [s.code] : [])))];
  return { state, codes };
}

export function foundOutcome(store: ReaderStore, cr: CrJsonStore): DetectorOutcome | undefined {
  const label = store.active_manifest;
  const manifest = label ? store.manifests?.[label] : undefined;
  if (!label || !manifest) return undefined;
  const validation = validationOf(store);
  const claims: C2paClaims = {
    claim_generator: claimGenerator(manifest),
    assertions: assertionLabels(manifest, recordedLabels(cr, label)),
    // No trust anchors are configured in this version, so the signer is never verified.
    signature_verified: false,
  };
  if (validation) claims.validation = validation;
  return {
    result: 'found',
    confidence: 1,
    issuer: manifest.signature_info?.issuer ?? null,
    claims,
  };
}
