// ComfyUI's records: the `prompt` API graph ({"id": {"class_type", "inputs"}}) and the `workflow`
// UI graph ({"nodes": [...]}), as PNG text chunks, or in a WebP's EXIF as "prompt:{...}" (Model)
// and "workflow:{...}" (Make), from SaveAnimatedWEBP in comfy_extras/nodes_images.py.
// The seed is the sampler node's (`seed`, or `noise_seed` for the advanced and custom samplers,
// followed through a link to a primitive or RandomNoise node); the model is the checkpoint or UNet
// loader found by following the sampler's `model` input up the chain (LoRA loaders, patches).
// Every walk is a bounded loop over the parsed graph, never a recursion.
//
// Loaders and samplers beyond ComfyUI's own nodes, each read from the code that defines it:
// - SamplerCustomAdvanced (comfy_extras/nodes_custom_sampler.py) has no `model`, `seed` or
//   `positive`: its `noise` links to RandomNoise (`noise_seed`), its `guider` to BasicGuider /
//   CFGGuider (`model`, `conditioning` / `positive`). KSamplerSelect, which only picks a sampler
//   name, is not taken for the sampler;
// - efficiency nodes (jags111/efficiency-nodes-comfyui efficiency_nodes.py): "Eff. Loader SDXL"
//   names its checkpoint `base_ckpt_name` (line 220), and "KSampler SDXL (Eff.)" reaches it
//   through `sdxl_tuple` (line 2256) where other samplers have `model`;
// - UNETLoader (nodes.py) and city96/ComfyUI-GGUF's UnetLoaderGGUF (nodes.py lines 140, 185):
//   `unet_name`;
// - custom loaders at the end of the sampler's model chain (a node that takes no model in), by
//   the inputs they name their file by: kijai's WanVideoModelLoader `model` (a file name where
//   other nodes have a link; nodes_model_loading.py, its sampler WanVideoSampler takes `model`
//   and `seed`, nodes.py), nunchaku-tech/ComfyUI-nunchaku's NunchakuFluxDiTLoader and ComfyUI's
//   own DiffusersLoader `model_path`, GGUF loaders' `gguf_name` (calcuis/gguf), and otherwise the
//   first input whose value is a model file's name (a loader's input may have any name, such as
//   ComfyUI-Model-Visual-Loader's `UNET名称`). A name input left at "None" (the empty choice of
//   loaders that offer several kinds) names nothing. Reroute nodes need no following: ComfyUI's
//   frontend leaves them out of the API graph and links through them.
//
// Other writers put the same API graph elsewhere (generator-comfyui-forms.ts reads them).
import type { GeneratorRecord } from '../types.js';
import { RANK, clipPrompt, isObject, modelName, parseJsonObject, seedString, str, type Candidate, type JsonObject } from './generator-fields.js';

/** Graphs with more nodes than this are read only up to it. */
const MAX_NODES = 10_000;
/** Links followed from the sampler to a loader or a seed source. */
const MAX_HOPS = 32;

interface Node {
  id: string;
  classType: string;
  inputs: JsonObject;
}

function nodesOf(graph: JsonObject): Map<string, Node> {
  const nodes = new Map<string, Node>();
  for (const id of Object.keys(graph)) {
    if (nodes.size >= MAX_NODES) break;
    const v = graph[id];
    if (!isObject(v)) continue;
    const classType = str(v['class_type']);
    const inputs = v['inputs'];
    if (classType && isObject(inputs)) nodes.set(id, { id, classType, inputs });
  }
  return nodes;
}

/** The node an input links to (`["4", 0]`), when it is a link. */
function linked(nodes: Map<string, Node>, input: unknown): Node | undefined {
  if (!Array.isArray(input) || input.length < 1) return undefined;
  const id = input[0];
  return typeof id === 'string' || typeof id === 'number' ? nodes.get(String(id)) : undefined;
}

const SEED_INPUTS = ['seed', 'noise_seed', 'value', 'int', 'Value', 'seed_value'];

function findSeed(nodes: Map<string, Node>, sampler: Node, raw: string): string | undefined {
  let node: Node | undefined = sampler;
  for (let hop = 0; node && hop < MAX_HOPS; hop++) {
    const n: Node = node;
    const key = SEED_INPUTS.find((k) => n.inputs[k] !== undefined) ?? (n.inputs['noise'] !== undefined ? 'noise' : undefined);
    if (!key) return undefined;
    const v = n.inputs[key];
    if (!Array.isArray(v)) return seedString(v, raw);
    node = linked(nodes, v);
  }
  return undefined;
}

/** The inputs that name a loader's model file, wherever the node is. */
const LOADER_INPUTS = ['ckpt_name', 'unet_name', 'base_ckpt_name'];
/** The inputs custom loaders name their file by, read only at the end of the model chain. */
const END_LOADER_INPUTS = ['model', 'model_path', 'gguf_name'];
/** A model file's name, as a loader lists it from its models folder. */
const MODEL_FILE = /\.(?:safetensors|sft|ckpt|gguf|pt|pth|bin)$/i;
/** The inputs through which a node takes its model, in the order they are followed. */
const MODEL_LINKS = ['model', 'sdxl_tuple', 'guider'];

/** A loader input's file name; "None" is the empty choice, no name. */
function fileName(v: unknown): string | undefined {
  const name = modelName(v);
  return name === 'None' ? undefined : name;
}

function loaderName(node: Node): string | undefined {
  for (const k of LOADER_INPUTS) {
    const name = fileName(node.inputs[k]);
    if (name) return name;
  }
  return undefined;
}

/** The file a custom loader at the end of the chain names, by a known input or by its value. */
function endLoaderName(node: Node): string | undefined {
  for (const k of END_LOADER_INPUTS) {
    const name = fileName(node.inputs[k]);
    if (name) return name;
  }
  for (const v of Object.values(node.inputs)) {
    const name = fileName(v);
    if (name && MODEL_FILE.test(name)) return name;
  }
  return undefined;
}

function modelLink(node: Node): unknown {
  for (const k of MODEL_LINKS) if (node.inputs[k] !== undefined) return node.inputs[k];
  return undefined;
}

function findModel(nodes: Map<string, Node>, sampler: Node | undefined): string | undefined {
  let node = sampler && linked(nodes, modelLink(sampler));
  for (let hop = 0; node && hop < MAX_HOPS; hop++) {
    const name = loaderName(node);
    if (name) return name;
    const link = modelLink(node);
    // A node that takes no model in is where the model comes from; a link that leads nowhere
    // (a node left out) ends the walk without naming the node's other files.
    if (!Array.isArray(link)) {
      const end = endLoaderName(node);
      if (end) return end;
      break;
    }
    node = linked(nodes, link);
  }
  // No chain to follow (a custom sampler, a broken link): the first loader in the graph.
  for (const n of nodes.values()) {
    const name = loaderName(n);
    if (name) return name;
  }
  return undefined;
}

function findPrompt(nodes: Map<string, Node>, sampler: Node): string | undefined {
  let node = linked(nodes, sampler.inputs['positive'] ?? sampler.inputs['guider']);
  for (let hop = 0; node && hop < MAX_HOPS; hop++) {
    const text = node.inputs['text'] ?? node.inputs['text_g'];
    if (typeof text === 'string') return clipPrompt(text);
    node = linked(nodes, node.inputs['conditioning'] ?? node.inputs['conditioning_1'] ?? node.inputs['positive'] ?? text);
  }
  return undefined;
}

/** A sampler: its seed or its noise source is among its inputs (not KSamplerSelect's kind). */
function samples(n: Node): boolean {
  return n.inputs['seed'] !== undefined || n.inputs['noise_seed'] !== undefined || n.inputs['noise'] !== undefined;
}

/** Samplers in id order (numeric ids ascending, as JSON.parse orders integer-like keys). */
function firstSampler(nodes: Map<string, Node>): Node | undefined {
  for (const n of nodes.values()) if (/^(KSampler|SamplerCustom)/.test(n.classType) && samples(n)) return n;
  for (const n of nodes.values()) if (n.inputs['seed'] !== undefined || n.inputs['noise_seed'] !== undefined) return n;
  return undefined;
}

/** A record from a ComfyUI `prompt` graph's text at `where`, or undefined when it is not one. */
export function comfyPromptCandidate(text: string, where: string): Candidate | undefined {
  const graph = parseJsonObject(text);
  return graph && comfyGraphCandidate(graph, text, where);
}

/**
 * A record from a parsed API graph (`raw` is the JSON text it came from, for seeds past 2^53), or
 * undefined when no node in it has a class_type and inputs.
 */
export function comfyGraphCandidate(graph: JsonObject, raw: string, where: string): Candidate | undefined {
  const nodes = nodesOf(graph);
  if (nodes.size === 0) return undefined;
  const record: GeneratorRecord = { tool: 'comfyui', app: 'ComfyUI', where };
  const sampler = firstSampler(nodes);
  const model = findModel(nodes, sampler);
  const seed = sampler && findSeed(nodes, sampler, raw);
  const prompt = sampler && findPrompt(nodes, sampler);
  if (model) record.model = model;
  if (seed) record.seed = seed;
  if (prompt) record.prompt = prompt;
  return { record, rank: RANK.generic, strength: 'structured' };
}

/** A record from a ComfyUI `workflow` (UI graph) at `where`: only that ComfyUI made it. */
export function comfyWorkflowCandidate(text: string, where: string): Candidate | undefined {
  const workflow = parseJsonObject(text);
  if (!workflow || !Array.isArray(workflow['nodes'])) return undefined;
  return { record: { tool: 'comfyui', app: 'ComfyUI', where }, rank: RANK.generic, strength: 'structured' };
}
