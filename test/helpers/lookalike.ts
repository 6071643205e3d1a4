// Issue 38's lookalikes: the manifests OpenAI and a Pixel phone write, signed twice with
// certificates that carry the same names (O=OpenAI OpCo, LLC / CN=OpenAI Media Service;
// O=Google LLC / CN=Pixel Camera): once under a root the test passes as a trust anchor (the
// "genuine" file), once under a home-made root nobody trusts (the lookalike). Written to `dir`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePki, signC2pa, tinyJpeg, tinyPng, type Pki } from '../fixtures/make.js';

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/** The subjects the C2PA Conforming Products List names (OpenAI Media Service, Pixel Camera). */
export const OPENAI_LEAF = '/C=US/O=OpenAI OpCo, LLC/CN=OpenAI Media Service';
export const PIXEL_LEAF = '/C=US/O=Google LLC/CN=Pixel Camera';

/** A manifest definition whose one assertion is its actions (c2pa.actions.v2). */
export function actionsManifest(generator: { name: string; version?: string }, title: string, format: string, actions: object[]): object {
  return { claim_generator_info: [generator], title, format, assertions: [{ label: 'c2pa.actions.v2', data: { actions } }] };
}

/** What OpenAI's image service writes: GPT-4o made it (trainedAlgorithmicMedia), the API converted it. */
export function openAiManifest(): object {
  return actionsManifest({ name: 'ChatGPT' }, 'image.png', 'image/png', [
    { action: 'c2pa.created', digitalSourceType: `${IPTC}trainedAlgorithmicMedia`, softwareAgent: { name: 'GPT-4o' } },
    { action: 'c2pa.converted', softwareAgent: { name: 'OpenAI API' } },
  ]);
}

/** A Pixel phone's capture: computationalCapture by Pixel Camera. */
export function pixelManifest(): object {
  return actionsManifest({ name: 'Pixel Camera', version: '9.6' }, 'PXL_20260901.jpg', 'image/jpeg', [
    { action: 'c2pa.created', digitalSourceType: `${IPTC}computationalCapture`, softwareAgent: { name: 'Pixel Camera' } },
  ]);
}

/** What Google's media services write for a Gemini picture: no software agent anywhere, a library as claim generator. */
export function googleManifest(): object {
  return actionsManifest({ name: 'Google C2PA Core Generator Library', version: '851316892:851316892' }, 'image.png', 'image/png', [
    { action: 'c2pa.created', digitalSourceType: `${IPTC}trainedAlgorithmicMedia`, description: 'Created by Google Generative AI.' },
    { action: 'c2pa.edited', digitalSourceType: `${IPTC}trainedAlgorithmicMedia`, description: 'Applied imperceptible SynthID watermark.' },
  ]);
}

export interface LookalikeSet {
  /** The root to pass as a trust anchor (PEM), and its file. */
  anchorPem: string;
  anchorFile: string;
  /** name -> file: openai-genuine.png, openai-lookalike.png, pixel-genuine.jpg, pixel-lookalike.jpg. */
  file: Record<'openai-genuine' | 'openai-lookalike' | 'pixel-genuine' | 'pixel-lookalike', string>;
  bytes: Record<string, Uint8Array>;
}

/** Four PKIs (two names, each under the trusted root and under a home-made one) and the four files. */
export async function makeLookalikes(dir: string): Promise<LookalikeSet> {
  mkdirSync(dir, { recursive: true });
  const pki = (name: string, leaf: string, root: string): Pki => makePki(join(dir, name), { leaf, root });
  // The trusted root and the home-made one even share a name: only the anchor tells them apart.
  const trustedRoot = '/C=US/O=Provenance Test Trust List/CN=trusted test root';
  const homeMadeRoot = '/C=US/O=Provenance Test Trust List/CN=trusted test root';
  const openaiGenuine = pki('openai-genuine', OPENAI_LEAF, trustedRoot);
  const pixelGenuine = pki('pixel-genuine', PIXEL_LEAF, trustedRoot);
  const openaiHome = pki('openai-home', OPENAI_LEAF, homeMadeRoot);
  const pixelHome = pki('pixel-home', PIXEL_LEAF, homeMadeRoot);
  const bytes: Record<string, Uint8Array> = {
    'openai-genuine': await signC2pa(tinyPng({ seed: 381 }), 'image/png', openAiManifest(), openaiGenuine, { signedAt: true }),
    'openai-lookalike': await signC2pa(tinyPng({ seed: 381 }), 'image/png', openAiManifest(), openaiHome, { signedAt: true }),
    'pixel-genuine': await signC2pa(tinyJpeg({ seed: 382 }), 'image/jpeg', pixelManifest(), pixelGenuine, { signedAt: true }),
    'pixel-lookalike': await signC2pa(tinyJpeg({ seed: 382 }), 'image/jpeg', pixelManifest(), pixelHome, { signedAt: true }),
  };
  const file = {} as LookalikeSet['file'];
  for (const [name, b] of Object.entries(bytes)) {
    const path = join(dir, `${name}.${name.startsWith('openai') ? 'png' : 'jpg'}`);
    writeFileSync(path, b);
    file[name as keyof LookalikeSet['file']] = path;
  }
  // Both genuine PKIs' roots as one anchor file: each file chains to one of them.
  const anchorPem = openaiGenuine.rootPem + pixelGenuine.rootPem;
  const anchorFile = join(dir, 'anchors.pem');
  writeFileSync(anchorFile, anchorPem);
  return { anchorPem, anchorFile, file, bytes };
}
