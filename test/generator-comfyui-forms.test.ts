// The other places ComfyUI's graph is written (generator-comfyui-forms.ts), each shaped as the
// writer that generator-comfyui-forms.ts cites writes it: EXIF UserComment JSON
// (ComfyUI_ExtendedImageFormats, Civitai's generator), EXIF Make/Model/ImageDescription with a
// prefix (SaveAnimatedWEBP, ComfyUI-Image-Saver, WAS Image Save, save-image-extended), the rule
// for a graph beside an A1111-style text, and ComfyUI-SaveImageWithMetaData's settings keys.
import { describe, expect, it } from 'vitest';
import { comfyExifTagsCandidate, comfyUserCommentCandidate, graphOverText, isComfySaveNodeSettings } from '../src/detectors/generator-comfyui-forms.js';
import { RANK, type Candidate } from '../src/detectors/generator-fields.js';

const GRAPH = {
  '3': { class_type: 'KSampler', inputs: { seed: 42, model: ['4', 0], positive: ['6', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'm.safetensors' } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat' } },
};
const WORKFLOW = { last_node_id: 6, nodes: [{ id: 3, type: 'KSampler' }], links: [] };
const W = 'exif:UserComment';
const full = (where: string) => ({ record: { tool: 'comfyui', app: 'ComfyUI', where, model: 'm.safetensors', seed: '42', prompt: 'a cat' }, rank: RANK.generic, strength: 'structured' });
const bare = (where: string) => ({ record: { tool: 'comfyui', app: 'ComfyUI', where }, rank: RANK.generic, strength: 'structured' });
const comment = (json: Record<string, unknown>) => comfyUserCommentCandidate(json, JSON.stringify(json), W);

describe('comfyUserCommentCandidate', () => {
  it('ExtendedImageFormats: {"prompt": graph, "workflow": ...}; the prompt as a JSON string too', () => {
    expect(comment({ prompt: GRAPH, workflow: WORKFLOW })).toStrictEqual(full(W));
    expect(comment({ prompt: JSON.stringify(GRAPH) })).toStrictEqual(full(W));
    expect(comment({ prompt: 'not a graph' })).toBeUndefined();
  });

  it('a workflow alone (or beside a prompt that is no graph) says only ComfyUI', () => {
    expect(comment({ workflow: WORKFLOW })).toStrictEqual(bare(W));
    expect(comment({ prompt: { note: 'x' }, workflow: WORKFLOW })).toStrictEqual(bare(W));
    expect(comment({ workflow: { nodes: 'x' } })).toBeUndefined();
    expect(comment({ workflow: 'x' })).toBeUndefined();
  });

  it("Civitai's bare graph: extraMetadata (a JSON string or an object) gives the seed and prompt the walk did not find", () => {
    const graph = { '4': GRAPH['4'], extra: { airs: ['urn:air:sdxl:checkpoint:civitai:1@2'] } };
    const extra = { prompt: 'from extra', seed: 7, resources: [] };
    expect(comment({ ...graph, extraMetadata: JSON.stringify(extra) })?.record).toStrictEqual({ ...full(W).record, seed: '7', prompt: 'from extra' });
    expect(comment({ ...graph, extraMetadata: extra })?.record).toStrictEqual({ ...full(W).record, seed: '7', prompt: 'from extra' });
    expect(comment({ ...GRAPH, extraMetadata: JSON.stringify(extra) })?.record).toStrictEqual(full(W).record);
    expect(comment({ ...graph, extraMetadata: 'not json' })?.record).toStrictEqual({ tool: 'comfyui', app: 'ComfyUI', where: W, model: 'm.safetensors' });
    expect(comment({ ...graph, extraMetadata: JSON.stringify({ steps: 20 }) })?.record).toStrictEqual({ tool: 'comfyui', app: 'ComfyUI', where: W, model: 'm.safetensors' });
    expect(comment({ note: 'x' })).toBeUndefined();
    expect(comment({ extraMetadata: JSON.stringify(extra) })).toBeUndefined();
  });

  it("a seed past 2^53 from the extraMetadata's text, or from the whole comment when it is an object", () => {
    const graph = { '4': GRAPH['4'] };
    const text = '{"prompt": "p", "seed": 18446744073709551615}';
    expect(comment({ ...graph, extraMetadata: text })?.record.seed).toBe('18446744073709551615');
    const raw = `{"4": ${JSON.stringify(GRAPH['4'])}, "extraMetadata": ${text}}`;
    expect(comfyUserCommentCandidate(JSON.parse(raw), raw, W)?.record.seed).toBe('18446744073709551615');
    // Looked up in the extraMetadata's own text, not in the graph's, where another literal of the
    // same double may come first.
    const loader = { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'm.safetensors', note: 0 } };
    const graphFirst = `{"4": ${JSON.stringify(loader).replace('"note":0', '"note":18446744073709551614')}, "extraMetadata": ${JSON.stringify(text)}}`;
    expect(comfyUserCommentCandidate(JSON.parse(graphFirst), graphFirst, W)?.record.seed).toBe('18446744073709551615');
  });
});

describe('comfyExifTagsCandidate', () => {
  const tag = (text: string, where: string) => ({ text, where });
  const graph = JSON.stringify(GRAPH);
  const workflow = JSON.stringify(WORKFLOW);

  it('each form, read from its tag', () => {
    expect(comfyExifTagsCandidate({ model: tag(`prompt:${graph}`, 'exif:Model') })).toStrictEqual(full('exif:Model'));
    expect(comfyExifTagsCandidate({ make: tag(`Prompt:${graph}`, 'exif:Make') })).toStrictEqual(full('exif:Make'));
    expect(comfyExifTagsCandidate({ make: tag(`Prompt: ${graph}`, 'exif:Make') })).toStrictEqual(full('exif:Make'));
    expect(comfyExifTagsCandidate({ make: tag(`workflow:${workflow}`, 'exif:Make') })).toStrictEqual(bare('exif:Make'));
    expect(comfyExifTagsCandidate({ description: tag(`Workflow:${workflow}`, 'exif:ImageDescription') })).toStrictEqual(bare('exif:ImageDescription'));
    expect(comfyExifTagsCandidate({ description: tag(`Workflow: ${workflow}`, 'exif:ImageDescription') })).toStrictEqual(bare('exif:ImageDescription'));
  });

  it('the graph before the workflow; a form that does not read gives way to the next; other text is nothing', () => {
    expect(comfyExifTagsCandidate({ make: tag(`workflow:${workflow}`, 'exif:Make'), model: tag(`prompt:${graph}`, 'exif:Model') })?.record.where).toBe('exif:Model');
    expect(comfyExifTagsCandidate({ make: tag(`workflow:${workflow}`, 'exif:Make'), model: tag('prompt:{broken', 'exif:Model') })?.record.where).toBe('exif:Make');
    expect(comfyExifTagsCandidate({ make: tag(`Prompt:${graph}`, 'exif:Make'), description: tag(`Workflow:${workflow}`, 'exif:ImageDescription') })?.record.where).toBe('exif:Make');
    expect(comfyExifTagsCandidate({ make: tag('workflow:{}', 'exif:Make'), description: tag(`Workflow:${workflow}`, 'exif:ImageDescription') })?.record.where).toBe('exif:ImageDescription');
    expect(comfyExifTagsCandidate({ model: tag(`Prompt:${graph}`, 'exif:Model'), make: tag(`prompt:${graph}`, 'exif:Make'), description: tag(`workflow:${workflow}`, 'exif:ImageDescription') })).toBeUndefined();
    expect(comfyExifTagsCandidate({ make: tag('Canon', 'exif:Make'), model: tag('EOS R5', 'exif:Model') })).toBeUndefined();
    expect(comfyExifTagsCandidate({})).toBeUndefined();
  });
});

describe('graphOverText', () => {
  const text = (tool: string, rank: number = RANK.generic): Candidate => ({
    record: { tool, app: tool, where: 'png:tEXt:parameters', model: 'text-model', seed: '1', prompt: 'text prompt' },
    rank,
    strength: 'structured',
  });
  const graph = (): Candidate => ({ record: { tool: 'comfyui', app: 'ComfyUI', where: 'png:tEXt:prompt', seed: '42' }, rank: RANK.generic, strength: 'structured' });

  it('the graph alone, filled from the text where it has nothing, for an A1111 or ComfyUI text', () => {
    for (const tool of ['automatic1111', 'comfyui']) {
      const g = graph();
      expect(graphOverText(text(tool), g)).toStrictEqual([{ ...g, record: { ...g.record, model: 'text-model', prompt: 'text prompt' } }]);
      expect(g.record).toStrictEqual(graph().record);
    }
  });

  it('only the fields the text has', () => {
    const g = graph();
    const seedOnly: Candidate = { record: { tool: 'automatic1111', app: 'AUTOMATIC1111', where: 'png:tEXt:parameters', seed: '1' }, rank: RANK.generic, strength: 'structured' };
    expect(graphOverText(seedOnly, g)).toStrictEqual([g]);
  });

  it('both unchanged for a more specific text (Fooocus) or another tool; either alone as it is', () => {
    const fooocus = text('fooocus', RANK.specific);
    expect(graphOverText(fooocus, graph())).toStrictEqual([fooocus, graph()]);
    const midjourney = text('midjourney');
    expect(graphOverText(midjourney, graph())).toStrictEqual([midjourney, graph()]);
    const specificA1111 = text('automatic1111', RANK.specific);
    expect(graphOverText(specificA1111, graph())).toStrictEqual([specificA1111, graph()]);
    const swarm = { ...graph(), record: { ...graph().record, tool: 'swarmui' } };
    expect(graphOverText(text('automatic1111'), swarm)).toStrictEqual([text('automatic1111'), swarm]);
    expect(graphOverText(text('automatic1111'), undefined)).toStrictEqual([text('automatic1111')]);
    expect(graphOverText(undefined, graph())).toStrictEqual([graph()]);
    expect(graphOverText(undefined, undefined)).toStrictEqual([]);
  });
});

describe('isComfySaveNodeSettings', () => {
  // nkchocoai/ComfyUI-SaveImageWithMetaData py/capture.py lines 197-217.
  it.each([
    ['Lora_0 Model name', true],
    ['Lora_12 Model name', true],
    ['Lora_1234 Model name', true],
    ['Embedding_0 name', true],
    ['Embedding_12 name', true],
    ['Lora_12345 Model name', false],
    ['Lora_ Model name', false],
    ['xLora_0 Model name', false],
    ['Lora_0 Model names', false],
    ['Embedding_0 names', false],
    ['Lora hashes', false],
  ])('%s: %s', (key, want) => {
    expect(isComfySaveNodeSettings(new Map([['Steps', '20'], [key, 'x']]))).toBe(want);
  });
});
