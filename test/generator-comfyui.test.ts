// ComfyUI's API graph and UI workflow (generator-comfyui.ts): the sampler, its seed (through links
// to primitive and RandomNoise nodes), the model (up the chain of `model`, `sdxl_tuple` and
// `guider` links to a loader) and the positive text, each walk bounded. Node and input names are
// those of ComfyUI's nodes.py and comfy_extras/nodes_custom_sampler.py, and of the custom nodes
// generator-comfyui.ts cites.
import { describe, expect, it } from 'vitest';
import { comfyGraphCandidate, comfyPromptCandidate, comfyWorkflowCandidate } from '../src/detectors/generator-comfyui.js';
import { RANK } from '../src/detectors/generator-fields.js';

type Graph = Record<string, unknown>;
const W = 'png:tEXt:prompt';
const read = (graph: Graph) => comfyPromptCandidate(JSON.stringify(graph), W)?.record;
const base = { tool: 'comfyui', app: 'ComfyUI', where: W };

// nodes.py's default workflow: CheckpointLoaderSimple -> KSampler, CLIPTextEncode positive/negative.
const DEFAULT: Graph = {
  '3': { class_type: 'KSampler', inputs: { seed: 156680208700286, steps: 20, cfg: 8, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'beautiful scenery', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'watermark', clip: ['4', 1] } },
};

describe('the API graph', () => {
  it("the default workflow: the sampler's seed, the checkpoint, the positive text", () => {
    const c = comfyPromptCandidate(JSON.stringify(DEFAULT), W)!;
    expect(c).toStrictEqual({
      record: { ...base, model: 'v1-5-pruned-emaonly.safetensors', seed: '156680208700286', prompt: 'beautiful scenery' },
      rank: RANK.generic,
      strength: 'structured',
    });
  });

  it('node ids that are numbers in a link, links of any length, and what is not a node', () => {
    const g: Graph = {
      '0': null,
      '1': 'not a node',
      '2': { class_type: '', inputs: {} },
      '3': { class_type: 'KSampler', inputs: 'not inputs' },
      '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } },
      '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'b.safetensors' } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'p' } },
      '9': { class_type: 'KSampler', inputs: { seed: 7, model: [5], positive: [6, 0] } },
    };
    expect(read(g)).toStrictEqual({ ...base, model: 'b.safetensors', seed: '7', prompt: 'p' });
    // A link with no id, or an id of another type, links to nothing: the first loader is taken.
    const notIds = { ...g, '9': { class_type: 'KSampler', inputs: { seed: 7, model: [], positive: [true] } }, true: { class_type: 'CLIPTextEncode', inputs: { text: 'no' } } };
    expect(read(notIds)).toStrictEqual({ ...base, model: 'a.safetensors', seed: '7' });
    expect(read({ '1': 'x' })).toBeUndefined();
    expect(comfyPromptCandidate('not json', W)).toBeUndefined();
    expect(comfyGraphCandidate({}, '{}', W)).toBeUndefined();
  });

  it.each(['seed', 'noise_seed', 'value', 'int', 'Value', 'seed_value'])('a seed linked to a node whose %s holds it', (key) => {
    const g: Graph = {
      '3': { class_type: 'KSampler', inputs: { seed: ['8', 0], model: ['4', 0], positive: ['6', 0] } },
      '4': DEFAULT['4'],
      '6': DEFAULT['6'],
      '8': { class_type: 'PrimitiveNode', inputs: { [key]: 12345 } },
    };
    expect(read(g)?.seed).toBe('12345');
  });

  it('a seed key read in order, even when it holds null; noise followed to RandomNoise', () => {
    const g = (inputs: Record<string, unknown>): Graph => ({ '3': { class_type: 'SamplerCustom', inputs }, '8': { class_type: 'RandomNoise', inputs: { noise_seed: 99 } } });
    expect(read(g({ noise: ['8', 0] }))?.seed).toBe('99');
    expect(read(g({ seed: 5, noise_seed: 6 }))?.seed).toBe('5');
    expect(read(g({ seed: null, noise: ['8', 0] }))?.seed).toBeUndefined();
    expect(read(g({ noise: ['missing', 0] }))?.seed).toBeUndefined();
    expect(read({ '3': { class_type: 'KSampler', inputs: { seed: ['8', 0] } }, '8': { class_type: 'Note', inputs: { text: 'x' } } })?.seed).toBeUndefined();
  });

  it('links are followed 32 nodes deep, and no further', () => {
    const chain = (primitives: number, input: string): Graph => {
      const g: Graph = { '1': { class_type: 'KSampler', inputs: { seed: ['2', 0], [input]: ['2', 0] } } };
      for (let i = 2; i <= primitives + 1; i++) {
        const last = i === primitives + 1;
        g[String(i)] = { class_type: 'X', inputs: { value: last ? 77 : [String(i + 1), 0], model: last ? undefined : [String(i + 1), 0], ckpt_name: last ? 'deep.safetensors' : undefined, text: last ? 'deep' : undefined, conditioning: last ? undefined : [String(i + 1), 0] } };
      }
      return g;
    };
    expect(read(chain(31, 'model'))?.seed).toBe('77');
    expect(read(chain(32, 'model'))?.seed).toBeUndefined();
    // The prompt and the model are walked from the node the sampler links to: 32 nodes after it.
    expect(read(chain(32, 'positive'))?.prompt).toBe('deep');
    expect(read(chain(33, 'positive'))?.prompt).toBeUndefined();
    // Past that, the model is the first loader in the graph.
    const models = (n: number): Graph => {
      const g: Graph = {
        '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'first.safetensors' } },
        '2': { class_type: 'KSampler', inputs: { seed: 1, model: ['3', 0] } },
      };
      for (let i = 3; i < n + 3; i++) g[String(i)] = { class_type: 'LoraLoader', inputs: { model: [String(i + 1), 0] } };
      g[String(n + 3)] = { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'deep.safetensors' } };
      return g;
    };
    expect(read(models(31))?.model).toBe('deep.safetensors');
    expect(read(models(32))?.model).toBe('first.safetensors');
  });

  it.each([
    ['ckpt_name', 'model'],
    ['unet_name', 'model'],
    ['base_ckpt_name', 'sdxl_tuple'],
    ['unet_name', 'guider'],
  ])('the model from %s, reached through the sampler\'s %s', (loaderInput, link) => {
    const g: Graph = {
      '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'decoy.safetensors' } },
      '3': { class_type: 'KSampler', inputs: { seed: 1, [link]: ['9', 0] } },
      '9': { class_type: 'Loader', inputs: { [loaderInput]: 'm.safetensors' } },
    };
    expect(read(g)?.model).toBe('m.safetensors');
  });

  it('loader inputs in order, blank names skipped; model links in order', () => {
    const g = (loader: Record<string, unknown>, sampler: Record<string, unknown> = { seed: 1, model: ['9', 0] }): Graph => ({
      '3': { class_type: 'KSampler', inputs: sampler },
      '8': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'other.safetensors' } },
      '9': { class_type: 'Loader', inputs: loader },
    });
    expect(read(g({ ckpt_name: 'c', unet_name: 'u', base_ckpt_name: 'b' }))?.model).toBe('c');
    expect(read(g({ ckpt_name: ' ', unet_name: 'u', base_ckpt_name: 'b' }))?.model).toBe('u');
    expect(read(g({ unet_name: 'u', base_ckpt_name: 'b' }))?.model).toBe('u');
    expect(read(g({ ckpt_name: 'c' }, { seed: 1, model: ['9', 0], sdxl_tuple: ['8', 0] }))?.model).toBe('c');
    expect(read(g({ ckpt_name: 'c' }, { seed: 1, sdxl_tuple: ['9', 0], guider: ['8', 0] }))?.model).toBe('c');
    expect(read(g({}, { seed: 1, model: ['9', 0] }))?.model).toBe('other.safetensors');
    expect(read({ '3': { class_type: 'KSampler', inputs: { seed: 1 } } })).toStrictEqual({ ...base, seed: '1' });
  });

  // Custom loaders (issue 40, item 21; the whole files with the loaders' own input names are in
  // generator-records.test.ts): the node at the end of the chain names the model.
  it('the node that takes no model in: model, model_path or gguf_name, else the first input holding a model file', () => {
    const g = (loader: Record<string, unknown>): Graph => ({
      '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'decoy.safetensors' } },
      '3': { class_type: 'KSampler', inputs: { seed: 1, model: ['5', 0] } },
      '5': { class_type: 'LoraLoaderModelOnly', inputs: { lora_name: 'style.safetensors', model: ['9', 0] } },
      '9': { class_type: 'CustomLoader', inputs: loader },
    });
    expect(read(g({ model: 'm', model_path: 'p', gguf_name: 'g' }))?.model).toBe('m');
    expect(read(g({ model_path: 'p', gguf_name: 'g' }))?.model).toBe('p');
    expect(read(g({ gguf_name: 'g', other: 'x.safetensors' }))?.model).toBe('g');
    // The known inputs of any loader come first, wherever they are in the node.
    expect(read(g({ model: 'm', ckpt_name: 'c' }))?.model).toBe('c');
    for (const ext of ['safetensors', 'SFT', 'ckpt', 'gguf', 'pt', 'pth', 'bin']) {
      expect(read(g({ weight_dtype: 'fp8', precision: 3, file: `flux.${ext}` }))?.model, ext).toBe(`flux.${ext}`);
    }
    // A value that is no model file's name is not taken: the first loader in the graph is.
    expect(read(g({ weight_dtype: 'fp8_e4m3fn', file: 'flux.safetensors.txt', other: 'safetensors' }))?.model).toBe('decoy.safetensors');
  });

  it('"None", the empty choice of a loader of several kinds, names nothing', () => {
    const g = (loader: Record<string, unknown>): Graph => ({
      '3': { class_type: 'KSampler', inputs: { seed: 1, model: ['9', 0] } },
      '9': { class_type: 'Loader', inputs: loader },
    });
    expect(read(g({ ckpt_name: 'None', unet_name: 'flux1-dev.safetensors' }))?.model).toBe('flux1-dev.safetensors');
    expect(read(g({ ckpt_name: 'None', unet_name: 'None', gguf_name: 'flux1-dev-Q8_0.gguf' }))?.model).toBe('flux1-dev-Q8_0.gguf');
    expect(read(g({ ckpt_name: 'None', model: 'None', other: 'None' }))?.model).toBeUndefined();
    // Nor as the first loader in the graph.
    expect(read({ '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'None' } }, '3': { class_type: 'KSampler', inputs: { seed: 1 } } })?.model).toBeUndefined();
  });

  it('a model link that leads nowhere ends the walk without naming that node\'s own files', () => {
    const g: Graph = {
      '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'first.safetensors' } },
      '3': { class_type: 'KSampler', inputs: { seed: 1, model: ['5', 0] } },
      '5': { class_type: 'LoraLoaderModelOnly', inputs: { lora_name: 'style.safetensors', model: ['404', 0] } },
    };
    expect(read(g)?.model).toBe('first.safetensors');
    // An AnimateDiff-style patch names a motion model but takes the model in: walked through.
    const ad: Graph = {
      '3': { class_type: 'KSampler', inputs: { seed: 1, model: ['5', 0] } },
      '5': { class_type: 'ADE_AnimateDiffLoaderWithContext', inputs: { model_name: 'mm_sd_v15_v2.ckpt', model: ['9', 0] } },
      '9': { class_type: 'Loader', inputs: { model_path: 'sd15' } },
    };
    expect(read(ad)?.model).toBe('sd15');
  });

  it('the prompt: text or text_g, through conditioning, conditioning_1, positive or a linked text; the guider when there is no positive', () => {
    const g = (enc: Record<string, unknown>, sampler: Record<string, unknown> = { seed: 1, positive: ['6', 0] }): Graph => ({
      '3': { class_type: 'KSampler', inputs: sampler },
      '6': { class_type: 'Enc', inputs: enc },
      '7': { class_type: 'CLIPTextEncode', inputs: { text: 'linked' } },
      '8': { class_type: 'PrimitiveString', inputs: { value: 'x' } },
    });
    expect(read(g({ text: 'a', text_g: 'b' }))?.prompt).toBe('a');
    expect(read(g({ text_g: 'b' }))?.prompt).toBe('b');
    expect(read(g({ conditioning: ['7', 0], conditioning_1: ['8', 0] }))?.prompt).toBe('linked');
    expect(read(g({ conditioning_1: ['7', 0], positive: ['8', 0] }))?.prompt).toBe('linked');
    expect(read(g({ positive: ['7', 0] }))?.prompt).toBe('linked');
    expect(read(g({ text: ['7', 0] }))?.prompt).toBe('linked');
    expect(read(g({ text: 'a' }, { seed: 1, guider: ['6', 0] }))?.prompt).toBe('a');
    expect(read(g({ text: 'a' }, { seed: 1, positive: ['6', 0], guider: ['7', 0] }))?.prompt).toBe('a');
    expect(read(g({ text: '  ' }))?.prompt).toBeUndefined();
  });

  it("the sampler: a KSampler or SamplerCustom with a seed or noise input, before any other node with a seed; KSamplerSelect is none", () => {
    const g: Graph = {
      '1': { class_type: 'Other', inputs: { seed: 1 } },
      '2': { class_type: 'KSamplerSelect', inputs: { sampler_name: 'euler' } },
      '3': { class_type: 'KSamplerAdvanced', inputs: { noise_seed: 2 } },
    };
    expect(read(g)?.seed).toBe('2');
    expect(read({ ...g, '3': { class_type: 'SamplerCustomAdvanced', inputs: { noise: ['4', 0] } }, '4': { class_type: 'RandomNoise', inputs: { noise_seed: 3 } } })?.seed).toBe('3');
    expect(read({ ...g, '3': { class_type: 'MyKSampler', inputs: { noise_seed: 2 } } })?.seed).toBe('1');
    // A KSampler with a plain seed before another node that also has one (Impact Pack's FaceDetailer,
    // say, with the lower id).
    expect(read({ '1': { class_type: 'FaceDetailer', inputs: { seed: 1 } }, '3': { class_type: 'KSampler', inputs: { seed: 3 } } })?.seed).toBe('3');
    expect(read({ '2': g['2'], '5': { class_type: 'Other', inputs: { noise_seed: 5 } } })?.seed).toBe('5');
    // A node with only a noise link is a sampler only by its class.
    expect(read({ '2': g['2'], '5': { class_type: 'Other', inputs: { noise: ['6', 0] } }, '6': { class_type: 'RandomNoise', inputs: { noise_seed: 6 } } })?.seed).toBe('6');
  });

  it(`reads the first 10,000 nodes`, () => {
    const g: Graph = {};
    for (let i = 1; i <= 10_000; i++) g[String(i)] = { class_type: 'Note', inputs: {} };
    g['10001'] = { class_type: 'KSampler', inputs: { seed: 5 } };
    expect(read(g)).toStrictEqual(base);
    delete g['1'];
    expect(read(g)?.seed).toBe('5');
  });

  it('a seed past 2^53 as the JSON text writes it', () => {
    const text = JSON.stringify(DEFAULT).replace('156680208700286', '18446744073709551615');
    expect(comfyPromptCandidate(text, W)?.record.seed).toBe('18446744073709551615');
  });
});

describe('the UI workflow', () => {
  it('a workflow with its nodes list says only that ComfyUI made the file', () => {
    expect(comfyWorkflowCandidate(JSON.stringify({ last_node_id: 9, nodes: [], links: [] }), 'png:tEXt:workflow')).toStrictEqual({
      record: { tool: 'comfyui', app: 'ComfyUI', where: 'png:tEXt:workflow' },
      rank: RANK.generic,
      strength: 'structured',
    });
    expect(comfyWorkflowCandidate(JSON.stringify({ nodes: {} }), 'w')).toBeUndefined();
    expect(comfyWorkflowCandidate('not json', 'w')).toBeUndefined();
  });
});
