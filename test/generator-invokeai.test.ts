// InvokeAI 2.x's PNG records (generator-invokeai.ts), from ldm/invoke/pngwriter.py and args.py
// metadata_dumps: `sd-metadata` {"model", "model_id" (2.2; "model_weights" before), "app_id",
// "app_version", "image": {"prompt": [{prompt, weight}], "seed", ...}} or "images": [...] for a
// grid; and the `Dream` command line.
import { describe, expect, it } from 'vitest';
import { RANK } from '../src/detectors/generator-fields.js';
import { dreamRecord, invokeSdMetadataRecord } from '../src/detectors/generator-invokeai.js';

const WHERE = 'png:tEXt:sd-metadata';
const image = { prompt: [{ prompt: 'a cat on a mat', weight: 1.0 }], steps: 50, cfg_scale: 7.5, seed: 42, width: 512, height: 512, sampler: 'k_lms' };
const meta = (extra: Record<string, unknown>) =>
  JSON.stringify({ model: 'stable diffusion', model_hash: 'cc6cb27103', app_id: 'invoke-ai/InvokeAI', app_version: '2.2.4', ...extra });

describe('invokeSdMetadataRecord', () => {
  it("2.2's model_id and image", () => {
    expect(invokeSdMetadataRecord(meta({ model_id: 'stable-diffusion-1.5', image }), WHERE)).toStrictEqual({
      record: { tool: 'invokeai', app: 'InvokeAI', where: WHERE, model: 'stable-diffusion-1.5', seed: '42', prompt: 'a cat on a mat' },
      rank: RANK.specific,
      strength: 'structured',
    });
  });

  it("earlier releases' model_weights (preferred when both are there), a prompt string, a grid's first image", () => {
    const c = invokeSdMetadataRecord(meta({ model_weights: 'stable-diffusion-1.4', model_id: 'other', images: [{ ...image, prompt: 'a string prompt' }, { seed: 1 }] }), WHERE);
    expect(c?.record).toStrictEqual({ tool: 'invokeai', app: 'InvokeAI', where: WHERE, model: 'stable-diffusion-1.4', seed: '42', prompt: 'a string prompt' });
  });

  it('only what the image has; no image, no record', () => {
    expect(invokeSdMetadataRecord(meta({ image: { prompt: [] } }), WHERE)?.record).toStrictEqual({ tool: 'invokeai', app: 'InvokeAI', where: WHERE });
    expect(invokeSdMetadataRecord(meta({ image: { prompt: ['a cat'] } }), WHERE)?.record).toStrictEqual({ tool: 'invokeai', app: 'InvokeAI', where: WHERE });
    expect(invokeSdMetadataRecord(meta({ images: ['not an object'] }), WHERE)).toBeUndefined();
    expect(invokeSdMetadataRecord(meta({ images: {} }), WHERE)).toBeUndefined();
    expect(invokeSdMetadataRecord(meta({}), WHERE)).toBeUndefined();
    expect(invokeSdMetadataRecord('not json', WHERE)).toBeUndefined();
  });

  it('a seed past 2^53 from the text', () => {
    const text = meta({ image: { seed: 1 } }).replace('"seed":1', '"seed":18446744073709551615');
    expect(invokeSdMetadataRecord(text, WHERE)?.record.seed).toBe('18446744073709551615');
  });
});

describe('dreamRecord', () => {
  it('the Dream record when it has switches; a record that only names InvokeAI when it has none', () => {
    expect(dreamRecord('"a cat" -s 50 -S 42', 'png:tEXt:Dream')).toStrictEqual({
      record: { tool: 'invokeai', app: 'InvokeAI', where: 'png:tEXt:Dream', seed: '42', prompt: 'a cat' },
      rank: RANK.specific,
      strength: 'structured',
    });
    expect(dreamRecord('a cat', 'png:tEXt:Dream')).toStrictEqual({
      record: { tool: 'invokeai', app: 'InvokeAI', where: 'png:tEXt:Dream' },
      rank: RANK.specific,
      strength: 'named',
    });
    expect(dreamRecord(' \n', 'png:tEXt:Dream')).toBeUndefined();
  });
});
