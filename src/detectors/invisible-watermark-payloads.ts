// The messages generators embed with invisible-watermark's dwtDct method, as bit arrays in the
// order the encoder writes them (numpy.unpackbits: most significant bit of each byte first).
import type { WatermarkPayload } from '../types.js';

/** SDXL / Stable Video Diffusion (Stability-AI/generative-models sgm/inference/helpers.py and
 * diffusers' StableDiffusionXLWatermarker): a fixed 48-bit message "chosen at random". */
const SDXL_MESSAGE = 0xb3ec907bb19en;

function messageBits(value: bigint, length: number): Uint8Array {
  const bits = new Uint8Array(length);
  for (let i = 0; i < length; i++) bits[i] = Number((value >> BigInt(length - 1 - i)) & 1n);
  return bits;
}

function byteBits(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const bits = new Uint8Array(bytes.length * 8);
  for (let i = 0; i < bits.length; i++) bits[i] = (bytes[i >> 3]! >> (7 - (i & 7))) & 1;
  return bits;
}

/** Each payload's bits. The byte payloads are what the generators pass to
 * `set_watermark('bytes', ...)`: CompVis and runwayml txt2img/inpainting scripts, Stability-AI's
 * stablediffusion (SD 2) scripts, and InvokeAI. */
export const PAYLOAD_BITS: Readonly<Record<WatermarkPayload, Uint8Array>> = {
  sdxl48: messageBits(SDXL_MESSAGE, 48),
  StableDiffusionV1: byteBits('StableDiffusionV1'),
  'StableDiffusionV1-Inpainting': byteBits('StableDiffusionV1-Inpainting'),
  SDV2: byteBits('SDV2'),
  InvokeAI: byteBits('InvokeAI'),
};
