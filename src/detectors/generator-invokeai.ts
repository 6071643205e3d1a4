// InvokeAI 2.x's PNG records, read from its writer (invoke-ai/InvokeAI ldm/invoke/pngwriter.py,
// save_image_and_prompt_to_png: `Dream` always, `sd-metadata` when metadata is given):
// - `sd-metadata` from ldm/invoke/args.py metadata_dumps: {"model": "stable diffusion",
//   "model_id": opt.model, "model_hash", "app_id", "app_version", "image": {prompt: [{prompt,
//   weight}], seed, ...}}, or "images": [...] for a grid; earlier releases wrote `model_weights`
//   where 2.2 writes `model_id`;
// - `Dream` from Args.dream_prompt_str: the prompt (unquoted in 2.2, quoted before) then switches
//   `-s steps -S seed -W -H -C -A`. A Dream text without those switches (a post-processing run, a
//   release that wrote only the prompt) still is InvokeAI's keyword: it names the tool.
// When both are present the sd-metadata record is reported (it names the model; generator-
// metadata.ts pushes it first and both have the same rank).
import { dreamCandidate } from './generator-a1111.js';
import { RANK, clipPrompt, isObject, modelName, obj, parseJsonObject, seedString, type Candidate } from './generator-fields.js';

export function invokeSdMetadataRecord(text: string, where: string): Candidate | undefined {
  const json = parseJsonObject(text);
  if (!json) return undefined;
  const images = json['images'];
  const image = obj(json, 'image') ?? (Array.isArray(images) && isObject(images[0]) ? images[0] : undefined);
  if (!image) return undefined;
  const p = image['prompt'];
  const record: Candidate['record'] = { tool: 'invokeai', app: 'InvokeAI', where };
  const model = modelName(json['model_weights']) ?? modelName(json['model_id']);
  const seed = seedString(image['seed'], text);
  const prompt = clipPrompt(Array.isArray(p) ? (isObject(p[0]) ? p[0]['prompt'] : undefined) : p);
  if (model) record.model = model;
  if (seed) record.seed = seed;
  if (prompt) record.prompt = prompt;
  return { record, rank: RANK.specific, strength: 'structured' };
}

/** The Dream record, or a record that only names InvokeAI when the text has no switches. */
export function dreamRecord(text: string, where: string): Candidate | undefined {
  const full = dreamCandidate(text, where);
  if (full) return full;
  if (text.trim() === '') return undefined;
  return { record: { tool: 'invokeai', app: 'InvokeAI', where }, rank: RANK.specific, strength: 'named' };
}
