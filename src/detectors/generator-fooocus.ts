// FooocusPlus (DavidDragonsage/FooocusPlus), a Fooocus fork, read from its writer:
// - modules/async_worker.py builds the record as (label, key, value) triples: ('Prompt', 'prompt'),
//   ('Seed', 'seed', str(seed)) line 756, ('Base Model', 'base_model'), ('Backend Engine',
//   'backend_engine', task class) line 807, ('Version', 'version', "<ver>.<hotfix>") line 822;
// - its default scheme "simple" (modules/meta_parser.py SIMPLEMetadataParser.to_string, line 1049)
//   keeps the *labels* as keys: {"Backend Engine", "Base Model", "Prompt", "Seed", ...}, sorted;
//   the "fooocus" scheme keeps the keys (base_model, seed, prompt, backend_engine), as Fooocus;
// - modules/private_logger.py writes a PNG's "simple" record as a `Comment` text chunk (line 42),
//   the other schemes as `parameters` beside `fooocus_scheme` (as Fooocus does); a JPEG or WebP
//   gets meta_parser.get_exif (lines 1310-1314): UserComment (0x9286) the record, Software
//   (0x0131) "FooocusPlus <ver>.<hotfix>, Preset: <preset>", MakerNote (0x927C) the scheme name
//   ("simple", "fooocus", "a1111"), all in IFD0 through Pillow's Image.Exif.
// FooocusPlus is reported as tool `fooocus` (its family, as the forks of AUTOMATIC1111 are
// `automatic1111`), app `FooocusPlus`.
import { RANK, clipPrompt, modelName, seedString, type Candidate, type JsonObject } from './generator-fields.js';

const APP = 'FooocusPlus';
/** Software as get_exif writes it. */
const SOFTWARE = /^FooocusPlus\b/;

/** Whether a Software value is FooocusPlus's. */
export function namesFooocusPlus(software: string | undefined): boolean {
  return SOFTWARE.test(software ?? '');
}

/** Whether a JSON record carries FooocusPlus's Backend Engine (either scheme's spelling). */
export function hasBackendEngine(json: JsonObject): boolean {
  return 'Backend Engine' in json || 'backend_engine' in json;
}

/**
 * A FooocusPlus record from its JSON (either scheme), when the JSON carries its Backend Engine or
 * another field (`named`: Software) says FooocusPlus wrote it; undefined otherwise.
 */
export function fooocusPlusCandidate(json: JsonObject | undefined, raw: string, where: string, named: boolean): Candidate | undefined {
  if (!json || (!named && !hasBackendEngine(json))) return undefined;
  const record: Candidate['record'] = { tool: 'fooocus', app: APP, where };
  const model = modelName(json['Base Model'] ?? json['base_model']);
  const seed = seedString(json['Seed'] ?? json['seed'], raw);
  const prompt = clipPrompt(json['Prompt'] ?? json['prompt']);
  if (model) record.model = model;
  if (seed) record.seed = seed;
  if (prompt) record.prompt = prompt;
  return { record, rank: RANK.specific, strength: 'structured' };
}

/** A Fooocus-family record that another field says FooocusPlus wrote, renamed to it. */
export function asFooocusPlus(c: Candidate | undefined, plus: boolean): Candidate | undefined {
  if (!c || !plus || c.record.tool !== 'fooocus') return c;
  return { ...c, record: { ...c.record, app: APP } };
}

/** A Software value that names FooocusPlus, when nothing else of its record was read. */
export function fooocusPlusNameCandidate(software: string | undefined, where: string): Candidate | undefined {
  if (!namesFooocusPlus(software)) return undefined;
  return { record: { tool: 'fooocus', app: APP, where }, rank: RANK.specific, strength: 'named' };
}
