// generator_metadata on the record formats real files carry beyond the basic ones: each fixture is
// built field by field from the code of the tool that writes it (none of these writers runs here:
// they are Python programs inside their apps), and each cites the file and line it follows.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import type { DetectorOutcome } from '../src/types.js';
import {
  infotext,
  iTXt,
  jpegWith,
  pillowText,
  pngWithText,
  pyJsonDumps,
  tEXt,
  tiffBlock,
  userComment,
  webpWith,
  xmpPacket,
} from './helpers/generator-fixtures.js';

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

async function judge(bytes: Uint8Array, type: keyof typeof TYPES = 'png'): Promise<DetectorOutcome> {
  return judgeGeneratorMetadata({ bytes, type: TYPES[type], sha256: '' });
}

async function webp(tiff: Uint8Array): Promise<Uint8Array> {
  const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#446688' } }).webp({ lossless: true }).toBuffer();
  return webpWith(new Uint8Array(image), 8, 8, { tiff });
}

const MAKE = 0x010f;
const MODEL = 0x0110;
const SOFTWARE = 0x0131;
const USER_COMMENT = 0x9286;
const MAKER_NOTE = 0x927c;

// ---------------------------------------------------------------------------------------------
// SD.Next without its App field

describe('SD.Next records written before it added `App: SD.Next`', () => {
  // vladmandic/automatic modules/processing.py create_infotext at 1e8205fb^ (September 2023),
  // lines 468-494: the args dict in this order; None values are dropped; "Parser" (line 476),
  // "Backend" (490), "Version" = installer.git_commit, commit[:7] (installer.py line 811),
  // "Operations" (493). No "App" key: it came with 1e8205fb (October 2023).
  const settings = (version: string): [string, string | number | undefined][] => [
    ['Steps', 20],
    ['Seed', 1620085323],
    ['Sampler', 'DPM++ 2M Karras'],
    ['CFG scale', 6],
    ['Size', '512x768'],
    ['Parser', 'Full parser'],
    ['Model', 'realisticVisionV51_v51VAE'],
    ['Model hash', '15012c538f'],
    ['Backend', 'Diffusers'],
    ['Version', version],
    ['Operations', 'txt2img'],
  ];

  it('is named SD.Next from its Parser, Backend and Operations keys', async () => {
    const text = infotext('a lighthouse on a cliff', 'lowres', settings('2ec6e9e'));
    expect((await judge(pngWithText(tEXt('parameters', text)))).generator).toEqual({
      tool: 'automatic1111',
      app: 'SD.Next',
      where: 'png:tEXt:parameters',
      model: 'realisticVisionV51_v51VAE',
      seed: '1620085323',
      prompt: 'a lighthouse on a cliff',
    });
  });

  it('a commit-hash Version that starts like Forge\'s ("f5...") is still SD.Next', async () => {
    const text = infotext('a lighthouse', 'lowres', settings('f5d2b1c'));
    // Written through piexif as A1111 does in JPEG: UserComment "UNICODE" big-endian in the Exif IFD.
    const tiff = tiffBlock({ ifd0: [], exif: [{ tag: USER_COMMENT, type: 7, value: userComment(text, 'utf16be') }] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ tool: 'automatic1111', app: 'SD.Next', where: 'exif:UserComment' });
  });

  it('one SD.Next-only key is enough: a second pass\'s "Latent sampler" (processing.py 8b24efe1)', async () => {
    const text = infotext('x', 'y', [['Steps', 20], ['Seed', 5], ['Sampler', 'Euler a'], ['Latent sampler', 'DPM++ 2M'], ['Version', 'c9e7f8a']]);
    expect((await judge(pngWithText(tEXt('parameters', text)))).generator?.app).toBe('SD.Next');
  });

  it('AUTOMATIC1111 and Forge texts stay theirs (neither writes these keys)', async () => {
    const a1111 = infotext('x', 'y', [['Steps', 20], ['Seed', 5], ['Sampler', 'Euler a'], ['Version', 'v1.10.1']]);
    const forge = infotext('x', 'y', [['Steps', 20], ['Seed', 5], ['Sampler', 'Euler a'], ['Version', 'f2.0.1v1.10.1-previous-669-gdfdcbab6']]);
    const otherBackend = infotext('x', 'y', [['Steps', 20], ['Seed', 5], ['Backend', 'cuda'], ['Version', 'v1.9.0']]);
    expect((await judge(pngWithText(tEXt('parameters', a1111)))).generator?.app).toBe('AUTOMATIC1111');
    expect((await judge(pngWithText(tEXt('parameters', forge)))).generator?.app).toBe('Stable Diffusion WebUI Forge');
    expect((await judge(pngWithText(tEXt('parameters', otherBackend)))).generator?.app).toBe('AUTOMATIC1111');
  });
});

// ---------------------------------------------------------------------------------------------
// ComfyUI graphs

/** A ComfyUI API graph (the `prompt` the server hands to save nodes): SDXL checkpoint, KSampler. */
const GRAPH = {
  '3': { class_type: 'KSampler', inputs: { seed: 156680208700286, steps: 20, cfg: 8, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'juggernautXL_v9.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a glass teapot on a table', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
  '9': { class_type: 'Image Saver', inputs: { images: ['8', 0], filename: '%time_%seed' } },
};
const WORKFLOW = { last_node_id: 9, last_link_id: 9, nodes: [{ id: 3, type: 'KSampler' }], links: [], version: 0.4 };

describe('ComfyUI graphs beside an AUTOMATIC1111-style text', () => {
  // alexopus/ComfyUI-Image-Saver nodes.py line 229: the A1111 text ends "Version: ComfyUI";
  // saver/saver.py lines 13-20: PNG `parameters`, then each extra_pnginfo key (`workflow`), then
  // `prompt`, all json.dumps(separators=(',', ':')).
  const text = infotext('a glass teapot on a table', 'blurry', [
    ['Steps', 20],
    ['Sampler', 'Euler'],
    ['CFG scale', 8],
    ['Seed', 156680208700286],
    ['Size', '1024x1024'],
    ['Model hash', '0f5b4a4b2c'],
    ['Model', 'juggernautXL_v9'],
    ['Version', 'ComfyUI'],
  ]);

  it('PNG: the graph names ComfyUI (where png:tEXt:prompt), its checkpoint as the loader names it', async () => {
    const png = pngWithText(tEXt('parameters', text), tEXt('workflow', JSON.stringify(WORKFLOW)), tEXt('prompt', JSON.stringify(GRAPH)));
    const out = await judge(png);
    expect(out).toMatchObject({ result: 'found', confidence: 0.85 });
    expect(out.generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'png:tEXt:prompt',
      model: 'juggernautXL_v9.safetensors',
      seed: '156680208700286',
      prompt: 'a glass teapot on a table',
    });
  });

  it('a text without "Version: ComfyUI" loses to the graph too; what the graph lacks comes from the text', async () => {
    const plain = text.replace(', Version: ComfyUI', '');
    const graph = structuredClone(GRAPH) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
    // A loader that names no file this reader can tell (a hub repository and a setting).
    graph['4'] = { class_type: 'SomeCustomLoader', inputs: { repo_id: 'someone/some-model', revision: 'main' } };
    const out = await judge(pngWithText(tEXt('parameters', plain), tEXt('prompt', JSON.stringify(graph))));
    expect(out.generator).toMatchObject({ tool: 'comfyui', where: 'png:tEXt:prompt', model: 'juggernautXL_v9', seed: '156680208700286' });
  });

  it('JPEG: UserComment text (piexif "unicode") beside Make "workflow:" and Model "prompt:" (saver.py lines 32-41)', async () => {
    const dumps = (v: unknown) => JSON.stringify(v); // separators=(',', ':') is JSON.stringify's layout
    const tiff = tiffBlock({
      bigEndian: true, // piexif.dump writes big-endian TIFF
      ifd0: [
        { tag: MAKE, type: 2, value: `workflow:${dumps(WORKFLOW)}` },
        { tag: MODEL, type: 2, value: `prompt:${dumps(GRAPH)}` },
      ],
      exif: [{ tag: USER_COMMENT, type: 7, value: userComment(text, 'utf16be') }],
    });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'exif:Model',
      model: 'juggernautXL_v9.safetensors',
      seed: '156680208700286',
      prompt: 'a glass teapot on a table',
    });
  });

  it('nkchocoai/ComfyUI-SaveImageWithMetaData JPEG: an A1111 text alone, told by its Lora_<i> fields', async () => {
    // py/capture.py gen_pnginfo_dict (lines 74-134): Steps, Sampler, CFG scale, Seed, Size, Model,
    // Model hash, VAE, then gen_loras (lines 197-201) "Lora_<i> Model name/Model hash/Strength
    // model/Strength clip", then Hashes; gen_parameters_str (line 137) joins "k: v" with ", ";
    // py/nodes/node.py lines 149-158: piexif UserComment "unicode" in the Exif IFD, no graph.
    const text = infotext('a koi pond', 'lowres', [
      ['Steps', 28],
      ['Sampler', 'DPM++ 2M Karras'],
      ['CFG scale', 6.5],
      ['Seed', 640271075062843],
      ['Size', '832x1216'],
      ['Model', 'animagineXLV31_v31.safetensors'],
      ['Model hash', 'e3c47aedb0'],
      ['Lora_0 Model name', 'koi.safetensors'],
      ['Lora_0 Model hash', '7d9b2c1a0f'],
      ['Lora_0 Strength model', 0.8],
      ['Lora_0 Strength clip', 0.8],
    ]);
    const tiff = tiffBlock({ bigEndian: true, ifd0: [], exif: [{ tag: USER_COMMENT, type: 7, value: userComment(text, 'utf16be') }] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'exif:UserComment',
      model: 'animagineXLV31_v31.safetensors',
      seed: '640271075062843',
      prompt: 'a koi pond',
    });
  });

  it('a graph never overrides a more specific tool (SwarmUI writes both too)', async () => {
    const swarm = JSON.stringify({ sui_image_params: { prompt: 'p', model: 'm', seed: 3 } });
    expect((await judge(pngWithText(tEXt('parameters', swarm), tEXt('prompt', JSON.stringify(GRAPH))))).generator?.tool).toBe('swarmui');
  });
});

describe('ComfyUI graphs in EXIF UserComment (JPEG, WebP)', () => {
  // kaanyalova/ComfyUI_ExtendedImageFormats extended_image_formats.py, ExtendedSaveImage.save_images:
  // exif = {"prompt": prompt, "workflow": extra_pnginfo["workflow"]}; imgexif = img.getexif();
  // imgexif[0x9286] = json.dumps(exif): Pillow puts the str in IFD0, no character-code prefix.
  const record = pyJsonDumps({ prompt: GRAPH, workflow: WORKFLOW });

  it('ExtendedImageFormats JPEG: {"prompt": graph, "workflow": ...} in IFD0 UserComment', async () => {
    const tiff = tiffBlock({ ifd0: [pillowText(USER_COMMENT, record)] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'exif:UserComment',
      model: 'juggernautXL_v9.safetensors',
      seed: '156680208700286',
      prompt: 'a glass teapot on a table',
    });
  });

  it('ExtendedImageFormats WebP, and a workflow-only record', async () => {
    const tiff = tiffBlock({ ifd0: [pillowText(USER_COMMENT, record)] });
    expect((await judge(await webp(tiff), 'webp')).generator).toMatchObject({ tool: 'comfyui', where: 'exif:UserComment', seed: '156680208700286' });
    const workflowOnly = tiffBlock({ ifd0: [pillowText(USER_COMMENT, pyJsonDumps({ workflow: WORKFLOW }))] });
    expect((await judge(jpegWith({ tiff: workflowOnly }), 'jpeg')).generator).toEqual({ tool: 'comfyui', app: 'ComfyUI', where: 'exif:UserComment' });
  });

  it("Civitai's generator: the bare graph with `extra.airs` and `extraMetadata`, UTF-16 in the Exif IFD", async () => {
    // civitai/civitai src/utils/metadata/comfy.metadata.ts canParse: the UserComment decoded as
    // UTF-16, JSON.parse'd into {extra, extraMetadata, ...workflow}: the node ids are top-level
    // keys; `extra.airs` lists the resources; loaders name them by AIR (parse: `.startsWith('urn:air:')`).
    const ckpt = 'urn:air:sdxl:checkpoint:civitai:133005@782002';
    const graph = structuredClone(GRAPH) as Record<string, unknown>;
    graph['4'] = { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } };
    delete graph['9'];
    const civitai = JSON.stringify({
      ...graph,
      extra: { airs: [ckpt] },
      extraMetadata: JSON.stringify({ prompt: 'a glass teapot on a table', seed: 156680208700286, steps: 20, resources: [] }),
    });
    const tiff = tiffBlock({ ifd0: [], exif: [{ tag: USER_COMMENT, type: 7, value: userComment(civitai, 'utf16be') }] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'exif:UserComment',
      model: ckpt,
      seed: '156680208700286',
      prompt: 'a glass teapot on a table',
    });
  });

  it("Civitai's extraMetadata gives the seed and prompt a graph walk cannot reach", async () => {
    const graph = { '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'urn:air:flux1:checkpoint:civitai:618692@691639' } } };
    const civitai = JSON.stringify({ ...graph, extra: { airs: [] }, extraMetadata: JSON.stringify({ prompt: 'a fox', seed: 99 }) });
    const tiff = tiffBlock({ ifd0: [], exif: [{ tag: USER_COMMENT, type: 7, value: userComment(civitai, 'utf16be') }] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ seed: '99', prompt: 'a fox' });
  });

  it("ComfyUI's own SaveAnimatedWEBP with two extra_pnginfo keys: Make, then ImageDescription (comfy_api/latest/_ui.py 129-131)", async () => {
    const tiff = tiffBlock({
      ifd0: [
        { tag: 0x010e, type: 2, value: `extra:${pyJsonDumps({ a: 1 })}` },
        { tag: MAKE, type: 2, value: `workflow:${pyJsonDumps(WORKFLOW)}` },
        { tag: MODEL, type: 2, value: `prompt:${pyJsonDumps(GRAPH)}` },
      ],
    });
    expect((await judge(await webp(tiff), 'webp')).generator).toMatchObject({ tool: 'comfyui', where: 'exif:Model', model: 'juggernautXL_v9.safetensors' });
  });

  it('WAS Image Save WebP: Make "Prompt:{...}", ImageDescription "Workflow:{...}" (WAS_Node_Suite.py 7407-7418)', async () => {
    const tiff = tiffBlock({
      ifd0: [pillowText(0x010e, `Workflow:${pyJsonDumps(WORKFLOW)}`), pillowText(MAKE, `Prompt:${pyJsonDumps(GRAPH)}`)],
    });
    expect((await judge(await webp(tiff), 'webp')).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'exif:Make',
      model: 'juggernautXL_v9.safetensors',
      seed: '156680208700286',
      prompt: 'a glass teapot on a table',
    });
  });

  it('save-image-extended JPEG: Make "Prompt: {...}" with a space (save_image_extended.py 694-695); a workflow alone in ImageDescription', async () => {
    const tiff = tiffBlock({ ifd0: [pillowText(0x010e, `Workflow: ${pyJsonDumps(WORKFLOW)}`), pillowText(MAKE, `Prompt: ${pyJsonDumps(GRAPH)}`)] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ tool: 'comfyui', where: 'exif:Make', seed: '156680208700286' });
    const workflowOnly = tiffBlock({ ifd0: [pillowText(0x010e, `Workflow: ${pyJsonDumps(WORKFLOW)}`), pillowText(MAKE, 'Canon')] });
    expect((await judge(jpegWith({ tiff: workflowOnly }), 'jpeg')).generator).toEqual({ tool: 'comfyui', app: 'ComfyUI', where: 'exif:ImageDescription' });
  });

  it('JSON that is not a graph is no ComfyUI record', async () => {
    const tiff = tiffBlock({ ifd0: [pillowText(USER_COMMENT, pyJsonDumps({ title: 'holiday', '1': { inputs: {} } }))] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).result).toBe('not_found');
  });
});

describe('models and seeds beyond the basic nodes', () => {
  it('Flux through SamplerCustomAdvanced: RandomNoise.noise_seed, the UNet through the guider, KSamplerSelect not taken for the sampler', async () => {
    // ComfyUI comfy_extras/nodes_custom_sampler.py: SamplerCustomAdvanced(noise, guider, sampler,
    // sigmas, latent_image), RandomNoise(noise_seed), BasicGuider(model, conditioning),
    // KSamplerSelect(sampler_name); nodes_flux.py FluxGuidance(conditioning, guidance);
    // nodes.py UNETLoader(unet_name, weight_dtype). KSamplerSelect has the lower id here.
    const flux = {
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a red bicycle', clip: ['11', 0] } },
      '8': { class_type: 'KSamplerSelect', inputs: { sampler_name: 'euler' } },
      '10': { class_type: 'VAELoader', inputs: { vae_name: 'ae.safetensors' } },
      '12': { class_type: 'UNETLoader', inputs: { unet_name: 'flux1-dev.safetensors', weight_dtype: 'default' } },
      '13': { class_type: 'SamplerCustomAdvanced', inputs: { noise: ['25', 0], guider: ['22', 0], sampler: ['8', 0], sigmas: ['17', 0], latent_image: ['27', 0] } },
      '17': { class_type: 'BasicScheduler', inputs: { scheduler: 'simple', steps: 20, denoise: 1, model: ['30', 0] } },
      '22': { class_type: 'BasicGuider', inputs: { model: ['30', 0], conditioning: ['26', 0] } },
      '25': { class_type: 'RandomNoise', inputs: { noise_seed: 219670278747233 } },
      '26': { class_type: 'FluxGuidance', inputs: { guidance: 3.5, conditioning: ['6', 0] } },
      '30': { class_type: 'ModelSamplingFlux', inputs: { max_shift: 1.15, base_shift: 0.5, width: 1024, height: 1024, model: ['12', 0] } },
    };
    expect((await judge(pngWithText(tEXt('prompt', JSON.stringify(flux))))).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'png:tEXt:prompt',
      model: 'flux1-dev.safetensors',
      seed: '219670278747233',
      prompt: 'a red bicycle',
    });
  });

  it("efficiency nodes: Eff. Loader SDXL's base_ckpt_name reached through KSampler SDXL (Eff.)'s sdxl_tuple", async () => {
    // jags111/efficiency-nodes-comfyui efficiency_nodes.py line 220 ("base_ckpt_name"), line 2256
    // (KSampler SDXL (Eff.): "sdxl_tuple", "noise_seed"), class names lines 4267, 4269. The graph
    // also has a refiner loader first, which must not be taken for the model.
    const eff = {
      '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_refiner_1.0.safetensors' } },
      '4': { class_type: 'Eff. Loader SDXL', inputs: { base_ckpt_name: 'sdxl_base_v10.safetensors', refiner_ckpt_name: 'None', positive: 'a snowy pass', negative: 'blur' } },
      '5': { class_type: 'KSampler SDXL (Eff.)', inputs: { sdxl_tuple: ['4', 0], noise_seed: 42424242, steps: 25, cfg: 7, latent_image: ['4', 1] } },
    };
    expect((await judge(pngWithText(tEXt('prompt', JSON.stringify(eff))))).generator).toMatchObject({ model: 'sdxl_base_v10.safetensors', seed: '42424242' });
  });

  // Custom loaders at the end of the sampler's model chain (issue 40, item 21), each graph with
  // the node's own input names. Before, none named a model, or named another loader's file.
  it("kijai's WanVideoWrapper: WanVideoSampler's model from WanVideoModelLoader's `model`, a file name", async () => {
    // ComfyUI-WanVideoWrapper nodes_model_loading.py WanVideoModelLoader INPUT_TYPES: "model"
    // (diffusion_models list), "base_precision", "quantization", "load_device", optional "lora";
    // nodes.py WanVideoSampler: "model" (WANVIDEOMODEL), "image_embeds", "steps", "cfg", "shift",
    // "seed", "scheduler"; WanVideoVAELoader "model_name" (a VAE, not on the chain).
    const wan = {
      '11': { class_type: 'WanVideoModelLoader', inputs: { model: 'Wan2_1-T2V-14B_fp8_e4m3fn.safetensors', base_precision: 'bf16', quantization: 'fp8_e4m3fn', load_device: 'offload_device', lora: ['12', 0] } },
      '12': { class_type: 'WanVideoLoraSelect', inputs: { lora: 'detailz-wan.safetensors', strength: 1 } },
      '16': { class_type: 'WanVideoTextEncode', inputs: { positive_prompt: 'a cat surfing', negative_prompt: 'blurry', t5: ['22', 0] } },
      '27': { class_type: 'WanVideoSampler', inputs: { model: ['11', 0], text_embeds: ['16', 0], image_embeds: ['37', 0], steps: 30, cfg: 6, shift: 5, seed: 1057359483639287, force_offload: true, scheduler: 'unipc' } },
      '38': { class_type: 'WanVideoVAELoader', inputs: { model_name: 'Wan2_1_VAE_bf16.safetensors', precision: 'bf16' } },
    };
    expect((await judge(pngWithText(tEXt('prompt', JSON.stringify(wan))))).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'png:tEXt:prompt',
      model: 'Wan2_1-T2V-14B_fp8_e4m3fn.safetensors',
      seed: '1057359483639287',
    });
  });

  it("nunchaku's NunchakuFluxDiTLoader `model_path` through its LoRA loader, not the graph's other checkpoint", async () => {
    // nunchaku-tech/ComfyUI-nunchaku docs/source/nodes/models.rst (NunchakuFluxDiTLoader inputs:
    // model_path, cache_threshold, attention, cpu_offload, device_id, data_type, i2f_mode) and
    // NunchakuFluxLoraLoader (model, lora_name, lora_strength); the sampler as in ComfyUI's Flux
    // graphs (SamplerCustomAdvanced, BasicGuider). A CheckpointLoaderSimple left in the graph,
    // with a lower id, was taken for the model before.
    const nunchaku = {
      '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse in fog', clip: ['44', 0] } },
      '13': { class_type: 'SamplerCustomAdvanced', inputs: { noise: ['25', 0], guider: ['22', 0], sampler: ['16', 0], sigmas: ['17', 0], latent_image: ['27', 0] } },
      '22': { class_type: 'BasicGuider', inputs: { model: ['46', 0], conditioning: ['6', 0] } },
      '25': { class_type: 'RandomNoise', inputs: { noise_seed: 824113912 } },
      '45': { class_type: 'NunchakuFluxDiTLoader', inputs: { model_path: 'svdq-int4-flux.1-dev', cache_threshold: 0, attention: 'nunchaku-fp16', cpu_offload: 'auto', device_id: 0, data_type: 'bfloat16', i2f_mode: 'enabled' } },
      '46': { class_type: 'NunchakuFluxLoraLoader', inputs: { model: ['45', 0], lora_name: 'flux-turbo-alpha.safetensors', lora_strength: 1 } },
    };
    expect((await judge(pngWithText(tEXt('prompt', JSON.stringify(nunchaku))))).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'png:tEXt:prompt',
      model: 'svdq-int4-flux.1-dev',
      seed: '824113912',
      prompt: 'a lighthouse in fog',
    });
  });

  it('a loader whose input has a name of its own: the model file it holds (ComfyUI-Model-Visual-Loader)', async () => {
    // a63976659/ComfyUI-Model-Visual-Loader nodes/visual_unet.py: class UNET加载器, inputs
    // "UNET名称" (diffusion_models list) and "权重类型" (weight dtype), returning MODEL.
    const visual = {
      '3': { class_type: 'KSampler', inputs: { seed: 99, steps: 20, cfg: 1, model: ['30', 0], positive: ['6', 0] } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a paper boat' } },
      '12': { class_type: 'UNET加载器', inputs: { 'UNET名称': 'flux1-dev-fp8.safetensors', '权重类型': 'fp8_e4m3fn' } },
      '30': { class_type: 'ModelSamplingFlux', inputs: { max_shift: 1.15, base_shift: 0.5, width: 1024, height: 1024, model: ['12', 0] } },
    };
    // Not Latin-1: ComfyUI's SaveImage (PIL PngInfo.add_text) writes it as iTXt.
    expect((await judge(pngWithText(iTXt('prompt', JSON.stringify(visual))))).generator).toMatchObject({ model: 'flux1-dev-fp8.safetensors', seed: '99', prompt: 'a paper boat' });
  });

  it("city96/ComfyUI-GGUF's UnetLoaderGGUF unet_name (nodes.py lines 140, 315) through a LoRA", async () => {
    const gguf = {
      '3': { class_type: 'KSampler', inputs: { seed: 7, model: ['11', 0], positive: ['6', 0] } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a harbor' } },
      '10': { class_type: 'UnetLoaderGGUF', inputs: { unet_name: 'flux1-dev-Q4_K_S.gguf' } },
      '11': { class_type: 'LoraLoaderModelOnly', inputs: { lora_name: 'x.safetensors', strength_model: 1, model: ['10', 0] } },
    };
    expect((await judge(pngWithText(tEXt('prompt', JSON.stringify(gguf))))).generator).toMatchObject({ model: 'flux1-dev-Q4_K_S.gguf', seed: '7' });
  });
});

// ---------------------------------------------------------------------------------------------
// FooocusPlus

describe('FooocusPlus', () => {
  // DavidDragonsage/FooocusPlus modules/async_worker.py lines 741-822 build (label, key, value)
  // triples; the default "simple" scheme (meta_parser.py SIMPLEMetadataParser.to_string, line
  // 1049) keys by label and json.dumps(dict(sorted(...))): Python's separators.
  const simple = pyJsonDumps(
    Object.fromEntries(
      Object.entries({
        Prompt: 'a cabin in the pines',
        'Negative Prompt': '',
        Performance: 'Speed',
        Steps: 30,
        Resolution: '(1152, 896)',
        Seed: '8311419264781329',
        'Base Model': 'juggernautXL_juggXIByRundiffusion.safetensors',
        'Guidance Scale': 4,
        'Backend Engine': 'SDXL-Fooocus',
        'Metadata Scheme': 'Fooocus',
        Preset: 'Default',
        Version: '1.0.0.Hotfix 4',
        'Full Prompt': ['a cabin in the pines, cinematic'],
        'Base Model Hash': 'd91d35736d',
      }).sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
  );
  const expected = { tool: 'fooocus', app: 'FooocusPlus', model: 'juggernautXL_juggXIByRundiffusion.safetensors', seed: '8311419264781329', prompt: 'a cabin in the pines' };

  it('PNG: a `Comment` JSON with Backend Engine (private_logger.py line 42)', async () => {
    expect((await judge(pngWithText(tEXt('Comment', simple)))).generator).toEqual({ ...expected, where: 'png:tEXt:Comment' });
  });

  it('JPEG and WebP: IFD0 UserComment, Software "FooocusPlus <ver>, Preset: ...", MakerNote "simple" (meta_parser.py 1310-1314)', async () => {
    const tiff = tiffBlock({
      ifd0: [pillowText(SOFTWARE, 'FooocusPlus 1.0.0.Hotfix 4, Preset: Default'), pillowText(USER_COMMENT, simple), pillowText(MAKER_NOTE, 'simple')],
    });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toEqual({ ...expected, where: 'exif:UserComment' });
    expect((await judge(await webp(tiff), 'webp')).generator).toEqual({ ...expected, where: 'exif:UserComment' });
  });

  it('its a1111 scheme in JPEG: the A1111 text is named FooocusPlus by Software', async () => {
    const text = infotext('a cabin', '', [['Steps', 30], ['Sampler', 'DPM++ 2M SDE Karras'], ['Seed', 77], ['Size', '1152x896'], ['Model', 'juggernautXL'], ['Version', '1.0.0.Hotfix 4']]);
    const tiff = tiffBlock({ ifd0: [pillowText(SOFTWARE, 'FooocusPlus 1.0.0.Hotfix 4, Preset: Default'), pillowText(USER_COMMENT, text), pillowText(MAKER_NOTE, 'a1111')] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ tool: 'fooocus', app: 'FooocusPlus', where: 'exif:UserComment', seed: '77', model: 'juggernautXL' });
  });

  it('its fooocus scheme in PNG: `parameters` JSON with backend_engine beside fooocus_scheme', async () => {
    const json = pyJsonDumps({ backend_engine: 'SDXL-Fooocus', base_model: 'juggernautXL.safetensors', prompt: 'a cabin', seed: '5', version: '1.0.0.Hotfix 4' });
    expect((await judge(pngWithText(tEXt('parameters', json), tEXt('fooocus_scheme', 'fooocus')))).generator).toMatchObject({ tool: 'fooocus', app: 'FooocusPlus', seed: '5' });
  });

  it('a Comment JSON without Backend Engine is not FooocusPlus', async () => {
    expect((await judge(pngWithText(tEXt('Comment', pyJsonDumps({ Prompt: 'x', Seed: '1' }))))).result).toBe('not_found');
  });
});

// ---------------------------------------------------------------------------------------------
// Dynamic Prompts' template lines after the settings line

describe('AUTOMATIC1111 with the Dynamic Prompts extension', () => {
  // adieyal/sd-dynamic-prompts in every release up to 2.17.0 (the last tag; on main until 34ec7fd, December 2023): callbacks.py
  // register_pnginfo_saver (at 2817d2e, lines 24-42) hands the saved `parameters` text to
  // pnginfo_saver.py PngInfoSaver.update_pnginfo (lines 54-66), which appends
  // `\nTemplate: {p.prompt}` when the template is not empty, then `\nNegative Template: {p.negative_prompt}`
  // likewise: after A1111's settings line, each template as typed (wildcards, variants, newlines).
  // A1111 writes the same text to a JPEG's UserComment (modules/images.py save_image_with_geninfo).
  // Its own test builds the text so: tests/prompts/ui/test_pnginfo_saver.py build_parameters.
  const settings: [string, string | number][] = [
    ['Steps', 35], ['Sampler', 'Heun'], ['CFG scale', 9], ['Seed', 77777], ['Size', '640x640'], ['Model hash', 'd8691b4d16'], ['Model', 'dreamshaper_8'],
  ];
  const expanded = infotext('a red fox in the snow, golden hour', 'blurry, lowres', settings);
  const record = {
    tool: 'automatic1111',
    app: 'AUTOMATIC1111',
    where: 'png:tEXt:parameters',
    model: 'dreamshaper_8',
    seed: '77777',
    prompt: 'a red fox in the snow, golden hour',
  };

  it('both templates after the settings line, each over several lines: the record, its seed and the prompt used', async () => {
    const text = `${expanded}\nTemplate: a {red|grey} __animals/fox__ in the snow,\n{golden hour|dusk}\nNegative Template: blurry, lowres\n__negatives__`;
    expect((await judge(pngWithText(tEXt('parameters', text)))).generator).toEqual(record);
  });

  it('the positive template alone, and the negative alone (an empty template is not written)', async () => {
    expect((await judge(pngWithText(tEXt('parameters', `${expanded}\nTemplate: a {red|grey} fox, Steps: 1, Seed: 2, Size: 3`)))).generator).toEqual(record);
    expect((await judge(pngWithText(tEXt('parameters', `${expanded}\nNegative Template: {blurry|noisy}, lowres`)))).generator).toEqual(record);
  });

  it('JPEG: the same text in the Exif UserComment', async () => {
    const text = `${expanded}\nTemplate: a {red|grey} fox in the snow\nNegative Template: blurry`;
    const tiff = tiffBlock({ ifd0: [], exif: [{ tag: USER_COMMENT, type: 7, value: userComment(text, 'utf16be') }] });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toEqual({ ...record, where: 'exif:UserComment' });
  });

  it('main from 34ec7fd: the templates are settings of the line (dynamic_prompting.py lines 519-524, quoted by A1111 when they hold a comma)', async () => {
    const line = `${expanded}, Template: "a {red|grey} fox, in the snow", Negative Template: blurry`;
    expect((await judge(pngWithText(tEXt('parameters', line)))).generator).toEqual(record);
  });

  it('a line that only looks like a template line, with no settings line before it, is no record', async () => {
    expect((await judge(pngWithText(tEXt('parameters', 'a fox\nTemplate: a {red|grey} fox')))).result).toBe('not_found');
    expect((await judge(pngWithText(tEXt('parameters', 'a fox\nSteps: 20, Seed: 5\nTemplate: x')))).result).toBe('not_found');
  });
});

// ---------------------------------------------------------------------------------------------
// InvokeAI 2.x and Midjourney

describe('InvokeAI 2.x Dream and sd-metadata', () => {
  it('a Dream chunk without switches names InvokeAI (a field that names the tool: 0.75)', async () => {
    const out = await judge(pngWithText(tEXt('Dream', '"a castle on a hill"')));
    expect(out).toEqual({ result: 'found', confidence: 0.75, generator: { tool: 'invokeai', app: 'InvokeAI', where: 'png:tEXt:Dream' } });
  });

  it("sd-metadata's model_id (args.py metadata_dumps, 2.2.4), preferred over Dream; a grid's `images`", async () => {
    // invoke-ai/InvokeAI ldm/invoke/args.py metadata_dumps: {model, model_id: opt.model, model_hash,
    // app_id, app_version, image: {...}} (or images: [...] for a grid); pngwriter.py writes
    // `Dream` first, then `sd-metadata`. dream_prompt_str: unquoted prompt, "-s 50 -S <seed> ...".
    const image = { type: 'txt2img', postprocessing: null, sampler: 'k_lms', prompt: [{ prompt: 'a castle on a hill', weight: 1 }], seed: 2980747362, variations: [], steps: 50, cfg_scale: 7.5, width: 512, height: 512 };
    const meta = { model: 'stable diffusion', model_id: 'stable-diffusion-1.5', model_hash: 'cc6cb27103', app_id: 'invoke-ai/InvokeAI', app_version: 'v2.2.4', image };
    const dream = 'a castle on a hill -s 50 -S 2980747362 -W 512 -H 512 -C 7.5 -A k_lms';
    const png = pngWithText(tEXt('Dream', dream), tEXt('sd-metadata', pyJsonDumps(meta)));
    expect((await judge(png)).generator).toEqual({
      tool: 'invokeai',
      app: 'InvokeAI',
      where: 'png:tEXt:sd-metadata',
      model: 'stable-diffusion-1.5',
      seed: '2980747362',
      prompt: 'a castle on a hill',
    });
    const grid = { ...meta, image: undefined, images: [image, { ...image, seed: 1 }] };
    expect((await judge(pngWithText(tEXt('sd-metadata', pyJsonDumps(grid))))).generator).toMatchObject({ model: 'stable-diffusion-1.5', seed: '2980747362' });
  });
});

describe("Midjourney's XMP job id without its Description", () => {
  // What a midjourney.com download carries, field by field, as the tools that read it take it:
  // picteus/picteus extensions/instances/midjourney/src/instructions.ts (MidjourneyConstants:
  // tEXt `Creation Time`, `Author`, `Description` "... Job ID: <uuid>", and the iTXt
  // `XML:com.adobe.xmp` packet whose rdf:Description holds the attributes
  // iptcExt:DigImageGUID and iptcExt:DigitalSourceType, parseMetadata) with the values of its
  // main.test.ts (DigImageGUID = the Job ID, DigitalSourceType
  // https://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia); the packet's layout
  // (prefix `iptcExt` bound to the IPTC Extension namespace, exiv2's x:xmptk, one self-closing
  // rdf:Description) as such a PNG's packet is printed in a public write-up. Ktiseos-Nyx/
  // Dataset-Tools dataset_tools/vendored_sdpr/format/midjourney.py reads the same
  // iptcExt:DigImageGUID as its XMP_DIGITAL_GUID signature.
  const JOB = 'd95be554-d446-4c51-ad75-e00d9f9bbb35';
  const AI_TYPE = 'https://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
  const packet = (guid: string, type: string) =>
    [
      '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
      '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">',
      ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
      '  <rdf:Description rdf:about=""',
      '    xmlns:iptcExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"',
      `   iptcExt:DigImageGUID="${guid}"`,
      `   iptcExt:DigitalSourceType="${type}"/>`,
      ' </rdf:RDF>',
      '</x:xmpmeta>',
      '<?xpacket end="w"?>',
    ].join('\n');
  const description = `https://s.mj.run/jhiJzyVBla8 Editorial fashion, photo by Tim Walker --chaos 16 --ar 4:5 Job ID: ${JOB}`;
  const hint = {
    result: 'found',
    confidence: 0.65,
    generator: { tool: 'midjourney', app: 'Midjourney', where: 'xmp:Iptc4xmpExt:DigImageGUID' },
    note: `Named Midjourney from XMP Iptc4xmpExt:DigImageGUID ${JOB} (a job id, as Midjourney writes it) beside DigitalSourceType trainedAlgorithmicMedia; both are IPTC fields that any tool could write.`,
  };

  it('the whole download reads from its Description, as before (0.85, no note)', async () => {
    const png = pngWithText(tEXt('Creation Time', 'Thu, 20 Jun 2024 22:50:03 GMT'), tEXt('Author', 'Grand Daron'), tEXt('Description', description), iTXt('XML:com.adobe.xmp', packet(JOB, AI_TYPE)));
    expect(await judge(png)).toEqual({
      result: 'found',
      confidence: 0.85,
      generator: { tool: 'midjourney', app: 'Midjourney', where: 'png:tEXt:Description', prompt: description.slice(0, description.indexOf(' Job ID:')) },
    });
  });

  it('the XMP alone names Midjourney as a hint (0.65), in PNG iTXt and JPEG APP1, with the job id in the note', async () => {
    expect(await judge(pngWithText(iTXt('XML:com.adobe.xmp', packet(JOB, AI_TYPE))))).toEqual(hint);
    expect(await judge(pngWithText(iTXt('XML:com.adobe.xmp', packet(JOB, AI_TYPE), true)))).toEqual(hint);
    expect(await judge(jpegWith({ xmp: packet(JOB, AI_TYPE) }), 'jpeg')).toEqual(hint);
    // The Author and Creation Time that survive beside it change nothing.
    expect(await judge(pngWithText(tEXt('Author', 'Grand Daron'), iTXt('XML:com.adobe.xmp', packet(JOB, AI_TYPE))))).toEqual(hint);
  });

  it('any record that names a tool wins over the hint', async () => {
    const credit = packet(JOB, AI_TYPE).replace(' rdf:about=""', ' rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:Credit="Made with Google AI"');
    expect((await judge(jpegWith({ xmp: credit }), 'jpeg')).generator).toEqual({ tool: 'google_ai', app: 'Google AI', where: 'xmp:photoshop:Credit' });
    const a1111 = infotext('a cat', '', [['Steps', 20], ['Seed', 1], ['Size', '512x512']]);
    expect((await judge(pngWithText(tEXt('parameters', a1111), iTXt('XML:com.adobe.xmp', packet(JOB, AI_TYPE))))).generator?.tool).toBe('automatic1111');
  });

  it("Imagen on Vertex AI's XMP: DigitalSourceType beside photoshop:Credit \"AI-Generated with Google\" names Google AI (issue 40, item 20)", async () => {
    // The packet as the held-out Vertex AI files carry it: the IPTC source type and the credit on
    // one rdf:Description, no C2PA manifest; the composite type with the same credit likewise.
    const ns = { Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/', photoshop: 'http://ns.adobe.com/photoshop/1.0/' };
    for (const type of [AI_TYPE, AI_TYPE.replace('trained', 'compositeWithTrained')]) {
      const xmp = xmpPacket(ns, `Iptc4xmpExt:DigitalSourceType="${type}" photoshop:Credit="AI-Generated with Google"`);
      for (const [bytes, kind] of [[jpegWith({ xmp }), 'jpeg'], [pngWithText(iTXt('XML:com.adobe.xmp', xmp)), 'png']] as const) {
        expect(await judge(bytes, kind), `${kind} ${type}`).toEqual({ result: 'found', confidence: 0.75, generator: { tool: 'google_ai', app: 'Google AI', where: 'xmp:photoshop:Credit' } });
      }
    }
    // "AI generated with Google" spelled without the hyphen too; a credit that only mentions Google does not.
    const credit = (c: string) => jpegWith({ xmp: xmpPacket(ns, `Iptc4xmpExt:DigitalSourceType="${AI_TYPE}" photoshop:Credit="${c}"`) });
    expect((await judge(credit('AI generated with Google'), 'jpeg')).generator?.tool).toBe('google_ai');
    expect((await judge(credit('Photo: Google Maps'), 'jpeg')).generator?.tool).toBe('unknown');
  });

  it('without the AI source type, or with a GUID that is no job id, it names nobody (as before)', async () => {
    // IPTC Extension's "Digital Image GUID" is set by any creator or editor: alone it names no tool.
    const ns = { Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/' };
    expect((await judge(pngWithText(iTXt('XML:com.adobe.xmp', xmpPacket(ns, `Iptc4xmpExt:DigImageGUID="${JOB}"`))))).result).toBe('not_found');
    const capture = 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture';
    expect((await judge(jpegWith({ xmp: packet(JOB, capture) }), 'jpeg')).result).toBe('not_found');
    const unnamed = { result: 'found', confidence: 0.6, generator: { tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' } };
    // A composite is not the type Midjourney writes; a GUID of another shape is not a job id.
    expect(await judge(jpegWith({ xmp: packet(JOB, AI_TYPE.replace('trained', 'compositeWithTrained')) }), 'jpeg')).toEqual(unnamed);
    for (const guid of ['urn:uuid:d95be554-d446-4c51-ad75-e00d9f9bbb35', `${JOB}x`, `{${JOB}}`, JOB.replace(/-/g, ''), 'xmp.iid:0f1e2d3c4b5a4968']) {
      expect(await judge(jpegWith({ xmp: packet(guid, AI_TYPE) }), 'jpeg'), guid).toEqual(unnamed);
    }
  });

  it('a DigImageGUID of a million characters, or its element left open on 2 MB of spaces, answers at once (1 s is a generous bound)', async () => {
    const t0 = performance.now();
    // In a PNG: a JPEG's APP1 segment holds at most 64 KB.
    const out = await judge(pngWithText(iTXt('XML:com.adobe.xmp', packet('0123456789abcdef-'.repeat(60_000), AI_TYPE))));
    expect(out.generator).toEqual({ tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' });
    // An element left open, then 2 MB of spaces (the packet's cap), beside the AI source type.
    const open = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:iptcExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" iptcExt:DigitalSourceType="${AI_TYPE}"><iptcExt:DigImageGUID ${' '.repeat(2 * 1024 * 1024 - 400)}x`;
    const t1 = performance.now();
    expect((await judge(pngWithText(iTXt('XML:com.adobe.xmp', open, true)))).generator).toEqual({ tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' });
    expect(performance.now() - t1).toBeLessThan(1000);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile input through the new readers: bounded, correct answers (1 s is a generous bound for
// work that takes milliseconds; a quadratic walk would take minutes)

describe('hostile records in the new places', () => {
  async function timedJudge(bytes: Uint8Array, type: keyof typeof TYPES): Promise<{ out: DetectorOutcome; ms: number }> {
    const t0 = performance.now();
    const out = await judge(bytes, type);
    return { out, ms: performance.now() - t0 };
  }

  it('JSON nested 100,000 deep as a WebP UserComment graph, its extraMetadata, and a FooocusPlus Comment', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const records = [`{"prompt": ${deep}}`, JSON.stringify({ '1': { class_type: 'X', inputs: {} }, extraMetadata: deep }), `{"workflow": ${deep}}`];
    for (const r of records) {
      const tiff = tiffBlock({ ifd0: [pillowText(USER_COMMENT, r)] });
      const { out, ms } = await timedJudge(await webp(tiff), 'webp'); // a WebP EXIF chunk is not capped at 64 KB
      expect(['found', 'not_found']).toContain(out.result);
      expect(ms).toBeLessThan(1000);
    }
    const { out, ms } = await timedJudge(pngWithText(tEXt('Comment', `{"Backend Engine": "x", "Seed": ${deep}}`)), 'png');
    expect(out.generator).toEqual({ tool: 'fooocus', app: 'FooocusPlus', where: 'png:tEXt:Comment' });
    expect(ms).toBeLessThan(1000);
  });

  it('a 10,000-node graph whose model, guider and sdxl_tuple links run in a cycle', async () => {
    const graph: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) {
      const next = String((i + 1) % 10_000);
      graph[String(i)] = { class_type: i === 0 ? 'SamplerCustomAdvanced' : 'Patch', inputs: { noise: [next, 0], guider: [next, 0], sdxl_tuple: [next, 0], model: [next, 0], conditioning: [next, 0] } };
    }
    const tiff = tiffBlock({ ifd0: [pillowText(USER_COMMENT, JSON.stringify({ prompt: graph }))] });
    const { out, ms } = await timedJudge(await webp(tiff), 'webp');
    expect(out.generator).toEqual({ tool: 'comfyui', app: 'ComfyUI', where: 'exif:UserComment' });
    expect(ms).toBeLessThan(1000);
  });

  it('SD.Next keys in a 64 KB settings line of junk pairs', async () => {
    const junk = Array.from({ length: 4000 }, (_, i) => `K${i}: v`).join(', ');
    const text = `p\nNegative prompt: n\nSteps: 1, Seed: 2, ${junk}, Parser: Full parser`;
    const { out, ms } = await timedJudge(pngWithText(tEXt('parameters', text)), 'png');
    expect(out.generator?.tool).toBe('automatic1111');
    expect(ms).toBeLessThan(1000);
  });
});
