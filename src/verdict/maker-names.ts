// How the makers a check can name are called, for the verdict's `maker` and the cards: a
// generator by its own name (the record's `tool` is a lower-case id), a watermark payload by the
// model family and the pipelines that embed it. Raw strings: callers escape them for where they
// go (printable() for a terminal, html.ts for a page).
import type { GeneratorRecord, WatermarkRecord } from '../types.js';

/** How each tool names itself; a tool not listed is shown by its id. */
export const TOOL_NAMES: Record<string, string> = {
  automatic1111: 'AUTOMATIC1111',
  comfyui: 'ComfyUI',
  invokeai: 'InvokeAI',
  novelai: 'NovelAI',
  swarmui: 'SwarmUI',
  fooocus: 'Fooocus',
  ruinedfooocus: 'RuinedFooocus',
  stability_matrix: 'Stability Matrix',
  tensorart: 'Tensor.Art',
  midjourney: 'Midjourney',
  google_ai: 'Google AI',
  openai: 'OpenAI',
  adobe_firefly: 'Adobe Firefly',
};

/** Which generators mark their output with each payload (CONTRACT; docs/DETECTORS.md). */
export const PAYLOAD_NAMES: Record<WatermarkRecord['payload'], { name: string; who: string }> = {
  sdxl48: { name: 'SDXL', who: 'the SDXL and Stable Video Diffusion pipelines' },
  StableDiffusionV1: { name: 'Stable Diffusion v1', who: "Stable Diffusion v1's reference scripts" },
  'StableDiffusionV1-Inpainting': { name: 'Stable Diffusion v1 inpainting', who: "Stable Diffusion v1's inpainting scripts" },
  SDV2: { name: 'Stable Diffusion 2', who: "Stable Diffusion 2's reference scripts" },
  InvokeAI: { name: 'InvokeAI', who: 'InvokeAI' },
};

/** The tool of a record that says AI made the file without naming what (CONTRACT: `tool`). */
export const UNNAMED_TOOL = 'unknown';

/** The tool's name, or the app the record names when that says more (a fork, a version). Raw. */
export function toolDisplayName(record: Pick<GeneratorRecord, 'tool' | 'app'>): string {
  const tool = TOOL_NAMES[record.tool] ?? record.tool;
  return record.app && record.app !== tool ? record.app : tool;
}

/** `SDXL`, `Stable Diffusion 2`, ...; an unknown payload by its id. */
export function payloadName(payload: string): string {
  return PAYLOAD_NAMES[payload as WatermarkRecord['payload']]?.name ?? payload;
}
