// Records of the tools that write one JSON object of their own (field names from each tool's
// writer, cross-checked against enslo/sd-metadata's parsers):
// - SwarmUI: {"sui_image_params": {prompt, model, seed, ...}, "sui_extra_data", "sui_models"} as
//   PNG `parameters` or EXIF UserComment (UTF-16LE in its JPEG/WebP);
// - Fooocus (modules/meta_parser.py, "fooocus" scheme): {prompt, base_model, seed, version} as
//   PNG `parameters` beside a `fooocus_scheme` chunk, or EXIF UserComment beside MakerNote
//   "fooocus" and Software "Fooocus v...";
// - RuinedFooocus: PNG `parameters` {"software": "RuinedFooocus", Prompt, base_model_name, seed};
// - Stability Matrix: PNG `parameters-json` {PositivePrompt, ModelName, Seed} (and `smproj`);
// - Tensor.Art: PNG `generation_data` {prompt, seed, baseModel: {modelFileName}};
// - InvokeAI: 3.x+ `invokeai_metadata` {positive_prompt, seed, model: {model_name | name}}
//   (2.x's `sd-metadata` and `Dream`: generator-invokeai.ts).
import type { GeneratorRecord } from '../types.js';
import { RANK, clipPrompt, isObject, modelName, obj, parseJsonObject, seedString, str, type Candidate, type JsonObject } from './generator-fields.js';

function candidate(record: GeneratorRecord, fields: { model?: unknown; seed?: unknown; prompt?: unknown }, raw: string): Candidate {
  const model = modelName(fields.model);
  const seed = seedString(fields.seed, raw);
  const prompt = clipPrompt(fields.prompt);
  if (model) record.model = model;
  if (seed) record.seed = seed;
  if (prompt) record.prompt = prompt;
  return { record, rank: RANK.specific, strength: 'structured' };
}

export function swarmCandidate(text: string, where: string, json = parseJsonObject(text)): Candidate | undefined {
  const params = obj(json, 'sui_image_params');
  if (!params) return undefined;
  return candidate({ tool: 'swarmui', app: 'SwarmUI', where }, { model: params['model'], seed: params['seed'], prompt: params['prompt'] }, text);
}

/** Fooocus's JSON scheme. `named` says another field already named Fooocus (scheme, Software). */
export function fooocusCandidate(text: string, where: string, named: boolean, json = parseJsonObject(text)): Candidate | undefined {
  if (!json) return undefined;
  const version = str(json['version']);
  const looksLikeIt = /^Fooocus\b/i.test(version ?? '') || ('full_prompt' in json && 'base_model' in json);
  if (!named && !looksLikeIt) return undefined;
  return candidate({ tool: 'fooocus', app: 'Fooocus', where }, { model: json['base_model'], seed: json['seed'], prompt: json['prompt'] }, text);
}

export function ruinedFooocusCandidate(text: string, where: string, json = parseJsonObject(text)): Candidate | undefined {
  if (!json || json['software'] !== 'RuinedFooocus') return undefined;
  return candidate({ tool: 'ruinedfooocus', app: 'RuinedFooocus', where }, { model: json['base_model_name'], seed: json['seed'], prompt: json['Prompt'] }, text);
}

export function stabilityMatrixCandidate(text: string, where: string): Candidate | undefined {
  const json = parseJsonObject(text);
  if (!json) return undefined;
  return candidate({ tool: 'stability_matrix', app: 'Stability Matrix', where }, { model: json['ModelName'], seed: json['Seed'], prompt: json['PositivePrompt'] }, text);
}

export function tensorArtCandidate(text: string, where: string): Candidate | undefined {
  const json = parseJsonObject(text);
  if (!json) return undefined;
  return candidate({ tool: 'tensorart', app: 'Tensor.Art', where }, { model: obj(json, 'baseModel')?.['modelFileName'], seed: json['seed'], prompt: json['prompt'] }, text);
}

function invokeModel(v: unknown): unknown {
  if (typeof v === 'string') return v;
  if (!isObject(v)) return undefined;
  return v['model_name'] ?? v['name'];
}

export function invokeMetadataCandidate(text: string, where: string): Candidate | undefined {
  const json = parseJsonObject(text);
  if (!json) return undefined;
  return candidate({ tool: 'invokeai', app: 'InvokeAI', where }, { model: invokeModel(json['model']), seed: json['seed'], prompt: json['positive_prompt'] }, text);
}

/** Which of the JSON tools wrote `json` (read at `where`), trying the unmistakable ones first. */
export function jsonToolCandidate(text: string, where: string, json: JsonObject | undefined, fooocusNamed: boolean): Candidate | undefined {
  if (!json) return undefined;
  return (
    swarmCandidate(text, where, json) ??
    ruinedFooocusCandidate(text, where, json) ??
    fooocusCandidate(text, where, fooocusNamed, json)
  );
}
