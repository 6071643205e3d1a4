// Writes the examples of what AI generators leave in a file (issue 23), made by the project's
// own code, so `provenance check examples/` shows the two AI checks finding something:
// - examples/comfyui.png: a picture with the `prompt` and `workflow` text chunks ComfyUI's
//   SaveImage node writes (the API-format graph and the editor's graph);
// - examples/sdxl-watermark.png: a smooth synthetic 256x256 picture (the smallest a mark is read
//   in; smooth, so the PNG stays small) marked with the SDXL pipelines'
//   48-bit dwtDct message by the tests' own embedder (test/helpers/dwt-dct-encoder.ts).
// Deterministic: running it again writes the same bytes. `node scripts/run-ts.mjs scripts/make-ai-examples.ts`
import { writeFileSync } from 'node:fs';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { embedDwtDct, toPng, type Picture } from '../test/helpers/dwt-dct-encoder.js';
import { makePng, tEXt } from '../test/helpers/generator-fixtures.js';

/** The API-format graph ComfyUI saves as `prompt`: a text-to-image run of a Flux checkpoint. */
const PROMPT = {
  '3': {
    inputs: { seed: 91050358797301, steps: 20, cfg: 1, sampler_name: 'euler', scheduler: 'simple', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] },
    class_type: 'KSampler',
    _meta: { title: 'KSampler' },
  },
  '4': { inputs: { ckpt_name: 'flux1-dev.safetensors' }, class_type: 'CheckpointLoaderSimple', _meta: { title: 'Load Checkpoint' } },
  '5': { inputs: { width: 128, height: 128, batch_size: 1 }, class_type: 'EmptyLatentImage', _meta: { title: 'Empty Latent Image' } },
  '6': { inputs: { text: 'a lighthouse on a cliff at dawn, long exposure, photorealistic', clip: ['4', 1] }, class_type: 'CLIPTextEncode', _meta: { title: 'CLIP Text Encode (Prompt)' } },
  '7': { inputs: { text: '', clip: ['4', 1] }, class_type: 'CLIPTextEncode', _meta: { title: 'CLIP Text Encode (Prompt)' } },
  '8': { inputs: { samples: ['3', 0], vae: ['4', 2] }, class_type: 'VAEDecode', _meta: { title: 'VAE Decode' } },
  '9': { inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] }, class_type: 'SaveImage', _meta: { title: 'Save Image' } },
};

/** The editor's graph ComfyUI saves as `workflow` (shortened to the nodes' types and links). */
const WORKFLOW = {
  last_node_id: 9,
  last_link_id: 9,
  nodes: Object.entries(PROMPT).map(([id, node]) => ({ id: Number(id), type: node.class_type, widgets_values: Object.values(node.inputs).filter((v) => !Array.isArray(v)) })),
  links: [],
  groups: [],
  config: {},
  extra: {},
  version: 0.4,
};

/** Gradients in every channel, no texture: a sunset-like sky that compresses well. */
function smoothPicture(width: number, height: number): Picture {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 3;
      data[p] = Math.round(200 - (y * 90) / height + (x * 20) / width);
      data[p + 1] = Math.round(120 + (y * 40) / height);
      data[p + 2] = Math.round(90 + (y * 120) / height - (x * 30) / width);
    }
  }
  return { width, height, data };
}

writeFileSync(
  'examples/comfyui.png',
  makePng({ ...smoothPicture(128, 128), channels: 3 }, { before: [tEXt('prompt', JSON.stringify(PROMPT)), tEXt('workflow', JSON.stringify(WORKFLOW))] }),
);
writeFileSync('examples/sdxl-watermark.png', await toPng(embedDwtDct(smoothPicture(256, 256), PAYLOAD_BITS.sdxl48)));
console.log('wrote examples/comfyui.png and examples/sdxl-watermark.png');
