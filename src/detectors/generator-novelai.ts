// NovelAI's records. The file-level copy is PNG text chunks (Software "NovelAI", Source naming the
// model, Description the prompt, Comment a JSON of the generation settings with `signed_hash`),
// or in a WebP the EXIF fields nai_sig.py maps to them (Software -> Source, ImageDescription ->
// Description, UserComment -> Comment). The alpha-channel copy ("stealth_pngcomp") is one JSON
// object with the same keys, Comment a JSON string inside it.
import type { GeneratorRecord } from '../types.js';
import { RANK, clipPrompt, modelName, parseJsonObject, seedString, str, type Candidate, type JsonObject } from './generator-fields.js';

/** Keys only NovelAI's generation settings have (with `signed_hash`). */
const NOVELAI_KEYS = ['signed_hash', 'noise_schedule', 'uncond_scale', 'v4_prompt', 'legacy_v3_extend', 'request_type'];

export interface NovelAiFields {
  software?: string;
  source?: string;
  description?: string;
  /** The Comment JSON text. */
  comment?: string;
}

/** The generation settings: the Comment JSON, or the JSON of its own "Comment" string. */
function settingsOf(comment: string | undefined): JsonObject | undefined {
  const json = parseJsonObject(comment);
  const inner = json && typeof json['Comment'] === 'string' ? parseJsonObject(json['Comment']) : undefined;
  return inner ?? json;
}

/** A NovelAI record from its fields, or undefined when they do not name NovelAI. */
export function novelAiCandidate(fields: NovelAiFields, where: string): Candidate | undefined {
  const settings = settingsOf(fields.comment);
  const namesIt = /^NovelAI\b/.test(fields.software ?? '');
  const looksLikeIt = settings !== undefined && NOVELAI_KEYS.some((k) => k in settings);
  if (!namesIt && !looksLikeIt) return undefined;
  const record: GeneratorRecord = { tool: 'novelai', app: 'NovelAI', where };
  const model = modelName(fields.source);
  const seed = settings && seedString(settings['seed'], fields.comment);
  const prompt = clipPrompt(settings?.['prompt']) ?? clipPrompt(fields.description);
  if (model) record.model = model;
  if (seed) record.seed = seed;
  if (prompt) record.prompt = prompt;
  const candidate: Candidate = { record, rank: RANK.specific, strength: settings ? 'structured' : 'named' };
  if (fields.comment && settings) candidate.novelAiComment = fields.comment;
  return candidate;
}

/** The fields of an alpha-channel payload that is NovelAI's JSON, or undefined when it is not. */
export function alphaNovelAiFields(text: string): NovelAiFields | undefined {
  const json = parseJsonObject(text);
  if (!json) return undefined;
  return {
    software: str(json['Software']),
    source: str(json['Source']),
    description: str(json['Description']),
    comment: typeof json['Comment'] === 'string' ? json['Comment'] : undefined,
  };
}
