// NovelAI-style files signed with a test key (NovelAI signs the RGB pixels followed by the
// Comment as Python's json.dumps writes it, with Ed25519; nai_sig.py), for the generator_metadata
// tests that check which copy verifies and which record is reported.
import { generateKeyPairSync, sign } from 'node:crypto';
import { concat } from '../fixtures/make.js';
import { makePng, patternPixels, stealthBytes, tEXt, writeAlphaBits, type PngPixels } from './generator-fixtures.js';

export const keys = generateKeyPairSync('ed25519');
export const TEST_KEY = keys.publicKey;

/** What Python's json.dumps writes for the settings below (the signed text). */
export const CANONICAL =
  '{"prompt": " a caf\\u00e9 at dusk", "steps": 28, "scale": 5.0, "cfg_rescale": 1e-05, "seed": 3735928559, "big": 123456789012345678901234567890, "noise_schedule": "native"}';

/** The same settings as NovelAI's file might spell them: raw UTF-8, 5.00, 0.00001, no spaces. */
export function storedComment(signature: string): string {
  return `{"prompt":" a café at dusk","steps":28,"scale":5.00,"cfg_rescale":0.00001,"seed":3735928559,"big":123456789012345678901234567890,"noise_schedule":"native","signed_hash":"${signature}"}`;
}

export function rgbOf(p: PngPixels): Uint8Array {
  const n = p.width * p.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) out.set(p.data.subarray(i * p.channels, i * p.channels + 3), i * 3);
  return out;
}

/** A NovelAI-style PNG signed with the test key: text chunks and/or the alpha copy. */
export function novelAiPng(opts: { text?: boolean; alpha?: boolean; channels?: 3 | 4; tamper?: boolean; signed?: boolean; claimBits?: number; before?: Uint8Array[] }) {
  const pixels = patternPixels(64, 64, opts.channels ?? 4);
  const signature = sign(null, concat(rgbOf(pixels), Buffer.from(CANONICAL, 'utf8')), keys.privateKey).toString('base64');
  const comment = opts.signed === false ? storedComment('').replace(',"signed_hash":""', '') : storedComment(signature);
  if (opts.alpha) {
    const json = JSON.stringify({ Description: ' a café at dusk', Software: 'NovelAI', Source: 'NovelAI Diffusion V4.5 4BDE2A90', Comment: comment });
    writeAlphaBits(pixels, stealthBytes('stealth_pngcomp', new TextEncoder().encode(json), opts.claimBits));
  }
  if (opts.tamper) pixels.data[0] = pixels.data[0]! ^ 1; // red of pixel (0,0), after signing
  const chunks = opts.text
    ? [tEXt('Software', 'NovelAI'), tEXt('Source', 'NovelAI Diffusion V4.5 4BDE2A90'), tEXt('Description', ' a café at dusk'), tEXt('Comment', comment)]
    : [];
  return makePng(pixels, { before: [...(opts.before ?? []), ...chunks] });
}
