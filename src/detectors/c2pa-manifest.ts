// Turns c2pa-rs's reader output into the contract's c2pa match (CONTRACT "Detection result"),
// plus the details the human report shows (signer, actions, ingredient tree) that the contract
// does not carry. Pure functions: no wasm, no I/O, so the mapping is tested on plain objects.
import type { FileSignals } from '../rubrics/signals.js';

export type { FileSignals, SignalsManifest } from '../rubrics/signals.js';
import type { C2paClaims, C2paTrust, ConformingProduct, DetectorOutcome, ValidationState } from '../types.js';

/** The parts of c2pa-rs's Reader JSON (`reader.json()`) that the contract and the report use. */
export interface ReaderStore {
  active_manifest?: string;
  manifests?: Record<string, ReaderManifest>;
  validation_state?: string;
  validation_status?: ReaderStatus[];
}

export interface ReaderStatus {
  code?: string;
  explanation?: string;
}

export interface ReaderManifest {
  claim_generator?: string;
  claim_generator_info?: { name?: string; version?: string }[];
  title?: string;
  format?: string;
  assertions?: { label?: string; data?: unknown }[];
  ingredients?: ReaderIngredient[];
  signature_info?: { issuer?: string; common_name?: string; time?: string; alg?: string };
}

export interface ReaderIngredient {
  title?: string;
  format?: string;
  relationship?: string;
  active_manifest?: string;
  /** Claim v1 ingredients. */
  validation_status?: ReaderStatus[];
  /** Claim v2 ingredients. */
  validation_results?: { activeManifest?: { failure?: ReaderStatus[] } };
}

/** crJSON (`reader.crJson()`): the claim as stored, with assertion labels exactly as recorded. */
export interface CrJsonStore {
  manifests?: {
    label?: string;
    claim?: Record<string, unknown>;
    /** The signing certificate's subject DN, as c2pa-rs decodes it (`{"CN": ..., "O": ..., "OU": ..., "C": ...}`). */
    signature?: { certificateInfo?: { subject?: Record<string, unknown> } };
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

// ---------------------------------------------------------------------------------------------
// AI origin: the IPTC digital source type named by the actions

export const IPTC_DIGITAL_SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/**
 * The IPTC terms that mean a trained (generative AI) model made the content, as the Content
 * Authenticity Initiative's own reader counts them (c2pa-js `selectGenerativeInfo`). Not
 * `algorithmicMedia`: IPTC defines it as made by an algorithm *without* sampled training data
 * (a fractal, a procedural texture), so it is not AI-generated (issue 18).
 */
export const AI_SOURCE_TYPES: readonly string[] = ['trainedAlgorithmicMedia', 'compositeWithTrainedAlgorithmicMedia'];

/** The legacy Adobe assertion that marked generative-AI output before IPTC source types. */
export const LEGACY_GENERATIVE_AI = 'com.adobe.generative-ai';

/** `http(s)://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia` -> `trainedAlgorithmicMedia`. */
export function sourceTypeTerm(uri: string): string {
  const m = /^https?:\/\/cv\.iptc\.org\/newscodes\/digitalsourcetype\/([A-Za-z]+)\/?$/.exec(uri.trim());
  return m ? m[1]! : uri.trim();
}

export function isAiSourceType(uri: string): boolean {
  return AI_SOURCE_TYPES.includes(sourceTypeTerm(uri));
}

export interface ActionFacts {
  action: string;
  digitalSourceType?: string;
  softwareAgent?: string;
}

const ACTIONS_LABEL = /^c2pa\.actions(\.v2)?(__\d+)?$/;

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function agentName(agent: unknown): string | undefined {
  if (typeof agent === 'string') return agent || undefined;
  const a = record(agent);
  if (!a || typeof a.name !== 'string') return undefined;
  return typeof a.version === 'string' && a.version ? `${a.name} ${a.version}` : a.name;
}

/**
 * Every action of the manifest's `c2pa.actions` / `c2pa.actions.v2` assertions, in order. The
 * source type is the action's `digitalSourceType` or, as older tools wrote it,
 * `parameters["com.adobe.digitalSourceType"]`.
 */
export function actionsOf(manifest: ReaderManifest): ActionFacts[] {
  const out: ActionFacts[] = [];
  for (const assertion of manifest.assertions ?? []) {
    if (!assertion.label || !ACTIONS_LABEL.test(assertion.label)) continue;
    const list = record(assertion.data)?.actions;
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const a = record(item);
      if (!a || typeof a.action !== 'string') continue;
      const params = record(a.parameters);
      const dst = [a.digitalSourceType, params?.['com.adobe.digitalSourceType']].find(
        (v): v is string => typeof v === 'string' && v.trim() !== '',
      );
      const facts: ActionFacts = { action: a.action };
      if (dst) facts.digitalSourceType = dst.trim();
      const agent = agentName(a.softwareAgent);
      if (agent) facts.softwareAgent = agent;
      out.push(facts);
    }
  }
  return out;
}

/**
 * The manifest's digital source type and the action that names it. An AI type named by any
 * action wins (a generative edit makes the result AI-made in part); otherwise the type on
 * `c2pa.created`, then on `c2pa.opened`, then the first action that names one.
 */
export function sourceTypeOf(actions: ActionFacts[]): { type: string; action: string } | undefined {
  const named = actions.filter((a) => a.digitalSourceType);
  const pick =
    named.find((a) => isAiSourceType(a.digitalSourceType!)) ??
    named.find((a) => a.action === 'c2pa.created') ??
    named.find((a) => a.action === 'c2pa.opened') ??
    named[0];
  return pick ? { type: pick.digitalSourceType!, action: pick.action } : undefined;
}

export function hasLegacyGenerativeAi(labels: Iterable<string>): boolean {
  for (const label of labels) if (label.replace(/__\d+$/, '') === LEGACY_GENERATIVE_AI) return true;
  return false;
}

/** Which signal decides `ai_generated` (shown in the human report). */
export type AiSignal =
  | { rule: 'source_type'; ai: boolean; type: string; action?: string }
  | { rule: 'legacy_assertion'; ai: true; type?: string; action?: string };

/**
 * `ai_generated` and why: true for an AI source type or the legacy assertion, false when a type
 * is named and is not an AI one, undefined when nothing is named. Works from the claims alone
 * (a remote result) and names the action when it is known.
 */
export function aiSignal(claims: Pick<C2paClaims, 'digital_source_type' | 'assertions'>, action?: string): AiSignal | undefined {
  const type = claims.digital_source_type;
  if (type && isAiSourceType(type)) return { rule: 'source_type', ai: true, type, action };
  if (hasLegacyGenerativeAi(claims.assertions)) return { rule: 'legacy_assertion', ai: true, type, action };
  if (type) return { rule: 'source_type', ai: false, type, action };
  return undefined;
}

/** `2024-08-06T21:53:37+00:00` -> `2024-08-06T21:53:37Z`; undefined when it is not a time. */
export function isoUtc(time: string | undefined): string | undefined {
  if (!time) return undefined;
  const ms = Date.parse(time);
  if (Number.isNaN(ms)) return undefined;
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

// ---------------------------------------------------------------------------------------------
// Details for the human report (not part of the contract)

export interface IngredientNode {
  title?: string;
  format?: string;
  relationship?: string;
  /** The ingredient carries a C2PA manifest of its own. */
  hasManifest: boolean;
  signer?: string;
  digitalSourceType?: string;
  aiGenerated?: boolean;
  /** Failure codes of the ingredient's own credential, without signingCredential.untrusted. */
  problems?: string[];
  children: IngredientNode[];
  /** Ingredients below the depth limit, not expanded. */
  omitted?: number;
}

export interface C2paDetails {
  signer: { issuer?: string; commonName?: string };
  /** Software named by the actions (softwareAgent), in order, each once. */
  softwareAgents: string[];
  /** Camera make and model from an EXIF assertion, when the manifest has one. */
  device?: string;
  actions: ActionFacts[];
  /** The action that names `digital_source_type`. */
  sourceTypeAction?: string;
  /** Depth-limited ingredient tree. */
  ingredients: IngredientNode[];
  /** c2pa-rs's own words for each failure code. */
  explanations: Record<string, string>;
  /** Trust anchors were in use for this read (the C2PA lists by default; `trust.anchors` says which). */
  trustAnchors: boolean;
  /** What the read was checked against, and where a trusted signer's chain ends. */
  trust: C2paTrust;
  /**
   * The C2PA Asset Signals Rubric's answer for the file (docs/C2PA.md "Signals"), set by the c2pa
   * detector after the read (detectors/c2pa.ts); absent for a remote result.
   */
  signals?: FileSignals;
}

/**
 * Ingredients that end up in the picture: an edit's parent (`parentOf`) and a composite's parts
 * (`componentOf`, also the spec's default when none is named). Not `inputTo`: an input (a
 * reference picture, a prompt image) informs the result without being part of it.
 */
function isContained(node: IngredientNode): boolean {
  return node.relationship !== 'inputTo';
}

/**
 * The first ingredient, depth first through contained ingredients only, whose own manifest says
 * AI made it: the picture then contains AI-made content even when its own manifest names a
 * non-AI action (a Gemini edit, `c2pa.edited` with `composite`, of a `trainedAlgorithmicMedia`
 * parent). Undefined when none does or the tree is unknown (a remote result).
 */
export function aiIngredientOf(nodes: readonly IngredientNode[] | undefined): IngredientNode | undefined {
  for (const node of nodes ?? []) {
    if (!isContained(node)) continue;
    if (node.aiGenerated === true) return node;
    const below = aiIngredientOf(node.children);
    if (below) return below;
  }
  return undefined;
}

export const INGREDIENT_DEPTH = 3;
export const INGREDIENT_BREADTH = 10;

const details = new WeakMap<C2paClaims, C2paDetails>();

/** The report details of a claims object made by this process's engine (absent for remote results). */
export function c2paDetails(claims: C2paClaims | undefined): C2paDetails | undefined {
  return claims ? details.get(claims) : undefined;
}

function deviceOf(manifest: ReaderManifest): string | undefined {
  for (const a of manifest.assertions ?? []) {
    if (!a.label || !/^(stds|c2pa)\.exif(__\d+)?$/.test(a.label)) continue;
    const data = record(a.data) ?? {};
    const field = (name: string) => {
      const key = Object.keys(data).find((k) => k === name || k.endsWith(`:${name}`));
      const v = key ? data[key] : undefined;
      return typeof v === 'string' && v.trim() ? v.trim() : undefined;
    };
    const make = field('Make');
    const model = field('Model');
    if (make && model) return model.toLowerCase().startsWith(make.toLowerCase()) ? model : `${make} ${model}`;
    if (make || model) return make ?? model;
  }
  return undefined;
}

function ingredientProblems(ingredient: ReaderIngredient): string[] {
  const statuses = [...(ingredient.validation_status ?? []), ...(ingredient.validation_results?.activeManifest?.failure ?? [])];
  const codes = statuses.flatMap((s) => (s.code && s.code !== 'signingCredential.untrusted' ? [s.code] : []));
  return [...new Set(codes)];
}

function ingredientTree(store: ReaderStore, list: ReaderIngredient[], depth: number, seen: Set<string>): IngredientNode[] {
  return list.slice(0, INGREDIENT_BREADTH).map((ingredient) => {
    const label = ingredient.active_manifest;
    const manifest = label ? store.manifests?.[label] : undefined;
    const node: IngredientNode = { hasManifest: Boolean(manifest), children: [] };
    if (ingredient.title) node.title = ingredient.title;
    if (ingredient.format) node.format = ingredient.format;
    if (ingredient.relationship) node.relationship = ingredient.relationship;
    if (!manifest || !label) return node;
    if (manifest.signature_info?.issuer) node.signer = manifest.signature_info.issuer;
    const labels = (manifest.assertions ?? []).flatMap((a) => (a.label ? [a.label] : []));
    const source = sourceTypeOf(actionsOf(manifest));
    const signal = aiSignal({ digital_source_type: source?.type, assertions: labels });
    if (source) node.digitalSourceType = source.type;
    if (signal) node.aiGenerated = signal.ai;
    const problems = ingredientProblems(ingredient);
    if (problems.length) node.problems = problems;
    const below = manifest.ingredients ?? [];
    if (depth + 1 >= INGREDIENT_DEPTH || seen.has(label)) {
      if (below.length) node.omitted = below.length;
    } else {
      node.children = ingredientTree(store, below, depth + 1, new Set([...seen, label]));
      if (below.length > INGREDIENT_BREADTH) node.omitted = below.length - INGREDIENT_BREADTH;
    }
    return node;
  });
}

export interface FoundOptions {
  /** What the read was checked against (c2pa-trust.ts trustOf); no anchors when absent. */
  trust?: C2paTrust;
  /**
   * The conforming generator product a signing certificate's subject names (the C2PA Conforming
   * Products List), asked only for a trusted signer: an untrusted one can name itself anything.
   */
  conformingProduct?: (subject: Record<string, unknown>) => ConformingProduct | undefined;
}

/** The active manifest's signing-certificate subject from crJSON, when c2pa-rs decoded one. */
export function signerSubject(cr: CrJsonStore, activeLabel: string): Record<string, unknown> | undefined {
  const subject = cr.manifests?.find((m) => m.label === activeLabel)?.signature?.certificateInfo?.subject;
  return subject && typeof subject === 'object' && !Array.isArray(subject) ? subject : undefined;
}

export function foundOutcome(store: ReaderStore, cr: CrJsonStore, options: FoundOptions = {}): DetectorOutcome | undefined {
  const label = store.active_manifest;
  const manifest = label ? store.manifests?.[label] : undefined;
  if (!label || !manifest) return undefined;
  const validation = validationOf(store);
  const trust: C2paTrust = options.trust ?? { anchors: 'none' };
  const trustAnchors = trust.anchors !== 'none';
  const claims: C2paClaims = {
    claim_generator: claimGenerator(manifest),
    assertions: assertionLabels(manifest, recordedLabels(cr, label)),
    // Verified means: the chain ends at an anchor the operator chose (CONTRACT).
    signature_verified: trustAnchors && validation?.state === 'trusted',
  };
  if (validation) claims.validation = validation;

  const actions = actionsOf(manifest);
  const source = sourceTypeOf(actions);
  if (source) claims.digital_source_type = source.type;
  const readerLabels = (manifest.assertions ?? []).flatMap((a) => (a.label ? [a.label] : []));
  const signal = aiSignal({ digital_source_type: source?.type, assertions: [...claims.assertions, ...readerLabels] });
  if (signal) claims.ai_generated = signal.ai;
  const signedAt = isoUtc(manifest.signature_info?.time);
  if (signedAt) claims.signed_at = signedAt;
  claims.ingredients = manifest.ingredients?.length ?? 0;
  const subject = validation?.state === 'trusted' && options.conformingProduct ? signerSubject(cr, label) : undefined;
  const product = subject && options.conformingProduct!(subject);
  if (product) claims.conforming_product = product;

  const explanations: Record<string, string> = {};
  for (const s of store.validation_status ?? []) {
    if (s.code && s.explanation && !(s.code in explanations)) explanations[s.code] = s.explanation;
  }
  details.set(claims, {
    signer: { issuer: manifest.signature_info?.issuer, commonName: manifest.signature_info?.common_name },
    softwareAgents: [...new Set(actions.flatMap((a) => (a.softwareAgent ? [a.softwareAgent] : [])))],
    device: deviceOf(manifest),
    actions,
    sourceTypeAction: source?.action,
    ingredients: ingredientTree(store, manifest.ingredients ?? [], 0, new Set([label])),
    explanations,
    trustAnchors,
    trust,
  });
  return {
    result: 'found',
    confidence: 1,
    issuer: manifest.signature_info?.issuer ?? null,
    claims,
  };
}

/**
 * The report details of a result's c2pa match as plain data, for a result that crosses a
 * thread or process boundary (the worker pool): structured clone keeps the claims but not the
 * in-process link, so the worker posts this beside the result and the other side calls
 * attachDetails(). Never part of the /v1 result.
 */
export function detailsOfResult(result: { matches: { check: string; claims?: C2paClaims }[] }): C2paDetails | undefined {
  return c2paDetails(result.matches.find((m) => m.check === 'c2pa')?.claims);
}

export function attachDetails(result: { matches: { check: string; claims?: C2paClaims }[] }, value: C2paDetails | undefined): void {
  const claims = result.matches.find((m) => m.check === 'c2pa')?.claims;
  if (claims && value) details.set(claims, value);
}
