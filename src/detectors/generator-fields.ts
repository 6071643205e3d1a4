// Small helpers shared by the per-tool record parsers: bounded JSON, exact seeds, prompts cut to
// the contract's length, and the candidate record they all produce.
import type { GeneratorRecord } from '../types.js';

/** JSON longer than this is not parsed (a large ComfyUI graph is a few hundred KB). */
export const MAX_JSON_CHARS = 4 * 1024 * 1024;
/** CONTRACT: `prompt` is at most 500 characters. */
export const MAX_PROMPT_CHARS = 500;

export type JsonObject = Record<string, unknown>;

/**
 * `text` parsed as a JSON object, or undefined. V8's JSON.parse is iterative (100,000 levels of
 * nesting parse without a stack overflow); any error it throws is caught. Walkers over the result
 * read fixed paths or bounded loops, never recurse over it.
 */
export function parseJsonObject(text: string | undefined): JsonObject | undefined {
  if (!text || text.length > MAX_JSON_CHARS) return undefined;
  const start = text.trimStart();
  if (!start.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(start);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

/** A key's value when it is an object. */
export function obj(v: unknown, key: string): JsonObject | undefined {
  if (!isObject(v)) return undefined;
  const x = v[key];
  return isObject(x) ? x : undefined;
}

const BIG_INTEGER = /-?\d{16,}/g;

/**
 * A seed as a decimal string. Seeds go past 2^53 (ComfyUI's are 64-bit), where JSON.parse rounds
 * them: then the literal is looked up in the raw JSON `raw` (the first integer literal of 16+
 * digits that parses to the same double).
 */
export function seedString(v: unknown, raw?: string): string | undefined {
  if (typeof v === 'string') return /^-?\d{1,40}$/.test(v.trim()) ? v.trim() : undefined;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v !== 'number' || !Number.isInteger(v)) return undefined;
  if (Number.isSafeInteger(v)) return String(v);
  if (raw) {
    BIG_INTEGER.lastIndex = 0;
    for (const m of raw.matchAll(BIG_INTEGER)) if (Number(m[0]) === v) return m[0];
  }
  return BigInt(v).toString();
}

/**
 * A prompt as written (NovelAI's start with a space), cut to MAX_PROMPT_CHARS, never inside a
 * surrogate pair; undefined when blank.
 */
export function clipPrompt(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const s = v;
  if (s.length <= MAX_PROMPT_CHARS) return s;
  let end = MAX_PROMPT_CHARS;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return s.slice(0, end);
}

/** A model name as written (a file name, a title); undefined when empty or absurdly long. */
export function modelName(v: unknown): string | undefined {
  const s = str(v);
  return s && s.length <= 1024 ? s : undefined;
}

/**
 * How much a record says, which sets the match's confidence (generator-metadata.ts):
 * `structured` the tool's own full record (parameters, graph, JSON of its shape); `named` a field
 * that only names the tool (a Software value, a credit line, a keyword whose value is unreadable);
 * `inferred` fields whose form points to a tool without naming it (Midjourney's job id in XMP
 * DigImageGUID beside the AI source type); `unnamed` AI provenance stated without a tool (an IPTC
 * digital source type alone).
 */
export type Strength = 'structured' | 'named' | 'inferred' | 'unnamed';

/** A record found in the file, before the detector picks one. */
export interface Candidate {
  record: GeneratorRecord;
  /** Lower is more specific; see generator-metadata.ts for the order. */
  rank: number;
  strength: Strength;
  /** NovelAI only: the Comment JSON text whose signed_hash is checked, per copy. */
  novelAiComment?: string;
  /** A sentence for the match's `note` when this record is the one reported (how a hint was read). */
  note?: string;
}

/** Ranks: the order in which records are preferred when a file holds several. */
export const RANK = {
  /** Tools whose record is unmistakable and that also write others' generic chunks (SwarmUI and
   * Tensor.Art write a ComfyUI graph, Stability Matrix and Fooocus an AUTOMATIC1111-style text). */
  specific: 10,
  /** The generic formats: AUTOMATIC1111 parameters, a ComfyUI graph, a Midjourney description. */
  generic: 20,
  /** A line that names the tool and says nothing more (Google's credit, a Software value). */
  credit: 30,
  /** Fields whose form points to a tool that they do not name (Midjourney's XMP job id). */
  inferred: 35,
  /** AI provenance without a tool (IPTC DigitalSourceType alone). */
  unnamed: 40,
} as const;
