// The other places ComfyUI's API graph is written, each read from the code that writes it, and the
// rule for files that carry a graph beside an AUTOMATIC1111-style text.
//
// EXIF UserComment holding JSON (JPEG and WebP):
// - kaanyalova/ComfyUI_ExtendedImageFormats, extended_image_formats.py (ExtendedSaveImage):
//   `imgexif[0x9286] = json.dumps({"prompt": <graph>, "workflow": <UI graph>, ...})` through
//   Pillow's Image.Exif, so the tag sits in IFD0 as plain text without a character-code prefix;
// - Civitai's generator, as civitai/civitai src/utils/metadata/comfy.metadata.ts reads it ("our
//   ugly hack"): the API graph itself, node ids as keys, plus `extra` ({"airs": ["urn:air:..."]})
//   and `extraMetadata` (a JSON string with prompt, seed, resources), in a UTF-16 UserComment;
//   loaders name their model by its AIR (`urn:air:sdxl:checkpoint:civitai:...`), reported as
//   written.
// EXIF Make, Model and ImageDescription (comfyExifTagsCandidate):
// - ComfyUI's SaveAnimatedWEBP (comfy_api/latest/_ui.py get_save_animated_webp_ui, lines 129-131):
//   Model 0x0110 "prompt:{...}", each extra_pnginfo key from Make 0x010f down ("workflow:{...}");
//   alexopus/ComfyUI-Image-Saver does the same in JPEG and WebP (saver/saver.py lines 32-34);
// - WASasquatch/was-node-suite-comfyui "Image Save" for WebP (WAS_Node_Suite.py lines 7407-7418):
//   Make "Prompt:{...}", ImageDescription "Workflow:{...}";
// - audioscavenger/save-image-extended-comfyui (save_image_extended.py genMetadataEXIF, lines
//   694-695): Make "Prompt: {...}", ImageDescription "Workflow: {...}".
//
// A graph beside an A1111-style text: alexopus/ComfyUI-Image-Saver writes PNG `parameters` (an
// A1111 text ending "Version: ComfyUI", nodes.py line 229) with `prompt` and `workflow`
// (saver/saver.py lines 13-20), and in JPEG/WebP that text as UserComment beside the Make/Model
// graph (lines 32-41); other save nodes do the same without the Version. The graph is what
// ComfyUI itself wrote, so it names the tool; the text only fills what the graph walk did not find
// (a model behind a loader node this reader does not know, say).
import { comfyGraphCandidate, comfyPromptCandidate, comfyWorkflowCandidate } from './generator-comfyui.js';
import { RANK, clipPrompt, isObject, parseJsonObject, seedString, type Candidate, type JsonObject } from './generator-fields.js';

/** A ComfyUI record from a UserComment's JSON, in any of the forms above; undefined otherwise. */
export function comfyUserCommentCandidate(json: JsonObject, raw: string, where: string): Candidate | undefined {
  const prompt = json['prompt'];
  if (typeof prompt === 'string') return comfyPromptCandidate(prompt, where);
  if (isObject(prompt)) {
    const c = comfyGraphCandidate(prompt, raw, where);
    if (c) return c;
  }
  if (isObject(json['workflow']) && Array.isArray(json['workflow']['nodes'])) {
    return { record: { tool: 'comfyui', app: 'ComfyUI', where }, rank: RANK.generic, strength: 'structured' };
  }
  const bare = comfyGraphCandidate(json, raw, where);
  if (!bare) return undefined;
  // Civitai's extraMetadata states the prompt and seed the graph walk may not reach.
  const extraText = json['extraMetadata'];
  const extra = typeof extraText === 'string' ? parseJsonObject(extraText) : isObject(extraText) ? extraText : undefined;
  if (extra) {
    const seed = bare.record.seed ?? seedString(extra['seed'], typeof extraText === 'string' ? extraText : raw);
    const prompt = bare.record.prompt ?? clipPrompt(extra['prompt']);
    if (seed) bare.record.seed = seed;
    if (prompt) bare.record.prompt = prompt;
  }
  return bare;
}

interface ExifTag {
  text: string;
  where: string;
}

/** The JSON after `prefix` when `tag` starts with it. */
function after(tag: ExifTag | undefined, prefix: string): string | undefined {
  return tag?.text.startsWith(prefix) ? tag.text.slice(prefix.length) : undefined;
}

/** A ComfyUI record from the EXIF Make/Model/ImageDescription forms above, the graph first. */
export function comfyExifTagsCandidate(tags: { make?: ExifTag; model?: ExifTag; description?: ExifTag }): Candidate | undefined {
  // The API graphs (prompt) before the UI workflows, each form in the order its writers use.
  const forms: [ExifTag | undefined, string, (json: string, where: string) => Candidate | undefined][] = [
    [tags.model, 'prompt:', comfyPromptCandidate],
    [tags.make, 'Prompt:', comfyPromptCandidate],
    [tags.make, 'workflow:', comfyWorkflowCandidate],
    [tags.description, 'Workflow:', comfyWorkflowCandidate],
  ];
  for (const [tag, prefix, read] of forms) {
    const json = after(tag, prefix);
    const c = json !== undefined ? read(json, tag!.where) : undefined;
    if (c) return c;
  }
  return undefined;
}

/** Whether `c` is an AUTOMATIC1111-style text record of the generic rank (not Fooocus's). */
function isGenericText(c: Candidate): boolean {
  return c.rank === RANK.generic && (c.record.tool === 'automatic1111' || c.record.tool === 'comfyui');
}

/**
 * The records to report from an A1111-style text and a ComfyUI graph found in the same file:
 * the graph alone, with the model, seed and prompt the text states where the graph had none;
 * both unchanged when either is missing or the text is a more specific tool's record.
 */
export function graphOverText(text: Candidate | undefined, graph: Candidate | undefined): Candidate[] {
  if (!text || !graph) return [text, graph].filter((c): c is Candidate => c !== undefined);
  if (graph.record.tool !== 'comfyui' || !isGenericText(text)) return [text, graph];
  const record = { ...graph.record };
  for (const key of ['model', 'seed', 'prompt'] as const) {
    const v = text.record[key];
    if (record[key] === undefined && v !== undefined) record[key] = v;
  }
  return [{ ...graph, record }];
}

/**
 * Whether an A1111-style settings line was written by nkchocoai/ComfyUI-SaveImageWithMetaData (or
 * its forks), which writes no graph into JPEG and WebP (py/nodes/node.py: UserComment only) and no
 * Version field: its LoRA and embedding fields are its own (py/capture.py lines 197-217,
 * "Lora_<i> Model name", "Embedding_<i> name"), where AUTOMATIC1111 writes "Lora hashes".
 */
export function isComfySaveNodeSettings(settings: ReadonlyMap<string, string>): boolean {
  for (const key of settings.keys()) if (/^(?:Lora_\d{1,4} Model name|Embedding_\d{1,4} name)$/.test(key)) return true;
  return false;
}
