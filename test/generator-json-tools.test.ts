// The tools that write one JSON object of their own (generator-json-tools.ts), each object shaped
// as its writer shapes it (field names cross-checked with enslo/sd-metadata's parsers).
import { describe, expect, it } from 'vitest';
import { RANK } from '../src/detectors/generator-fields.js';
import {
  fooocusCandidate,
  invokeMetadataCandidate,
  jsonToolCandidate,
  ruinedFooocusCandidate,
  stabilityMatrixCandidate,
  swarmCandidate,
  tensorArtCandidate,
} from '../src/detectors/generator-json-tools.js';

const W = 'png:tEXt:parameters';
const full = (tool: string, app: string, where = W) => ({
  record: { tool, app, where, model: 'm.safetensors', seed: '42', prompt: 'a cat' },
  rank: RANK.specific,
  strength: 'structured',
});

describe('SwarmUI', () => {
  it('sui_image_params', () => {
    const text = JSON.stringify({ sui_image_params: { prompt: 'a cat', model: 'm.safetensors', seed: 42, steps: 20 }, sui_extra_data: {} });
    expect(swarmCandidate(text, W)).toStrictEqual(full('swarmui', 'SwarmUI'));
    expect(swarmCandidate(JSON.stringify({ sui_image_params: 'x' }), W)).toBeUndefined();
    expect(swarmCandidate(JSON.stringify({ prompt: 'a cat' }), W)).toBeUndefined();
  });
});

describe('Fooocus', () => {
  // modules/meta_parser.py FooocusMetadataParser: prompt, full_prompt, base_model, seed, version "Fooocus v2.5.5".
  const record = { prompt: 'a cat', full_prompt: ['a cat, detailed'], base_model: 'm.safetensors', seed: '42', version: 'Fooocus v2.5.5' };

  it('named by its version, or by full_prompt with base_model, or by another field', () => {
    expect(fooocusCandidate(JSON.stringify(record), W, false)).toStrictEqual(full('fooocus', 'Fooocus'));
    expect(fooocusCandidate(JSON.stringify({ ...record, version: 'fooocus 2.1' }), W, false)?.record.tool).toBe('fooocus');
    const { version: _v, ...noVersion } = record;
    expect(fooocusCandidate(JSON.stringify(noVersion), W, false)?.record.tool).toBe('fooocus');
    const { full_prompt: _f, ...neither } = noVersion;
    expect(fooocusCandidate(JSON.stringify(neither), W, false)).toBeUndefined();
    expect(fooocusCandidate(JSON.stringify(neither), W, true)?.record.tool).toBe('fooocus');
    const { base_model: _b, ...promptOnly } = noVersion;
    expect(fooocusCandidate(JSON.stringify(promptOnly), W, false)).toBeUndefined();
    expect(fooocusCandidate(JSON.stringify({ ...neither, version: 'v1 Fooocus' }), W, false)).toBeUndefined();
    expect(fooocusCandidate(JSON.stringify({ ...neither, version: 'Fooocusplus' }), W, false)).toBeUndefined();
    expect(fooocusCandidate('not json', W, true)).toBeUndefined();
  });
});

describe('RuinedFooocus, Stability Matrix, Tensor.Art, InvokeAI 3.x', () => {
  it('RuinedFooocus: software "RuinedFooocus", Prompt, base_model_name, seed', () => {
    const text = JSON.stringify({ software: 'RuinedFooocus', Prompt: 'a cat', base_model_name: 'm.safetensors', seed: 42 });
    expect(ruinedFooocusCandidate(text, W)).toStrictEqual(full('ruinedfooocus', 'RuinedFooocus'));
    expect(ruinedFooocusCandidate(JSON.stringify({ software: 'Fooocus', Prompt: 'a cat' }), W)).toBeUndefined();
    expect(ruinedFooocusCandidate('not json', W)).toBeUndefined();
  });

  it('Stability Matrix parameters-json: PositivePrompt, ModelName, Seed', () => {
    const text = JSON.stringify({ PositivePrompt: 'a cat', NegativePrompt: 'x', ModelName: 'm.safetensors', Seed: 42 });
    expect(stabilityMatrixCandidate(text, 'png:tEXt:parameters-json')).toStrictEqual(full('stability_matrix', 'Stability Matrix', 'png:tEXt:parameters-json'));
    expect(stabilityMatrixCandidate('not json', W)).toBeUndefined();
  });

  it('Tensor.Art generation_data: prompt, seed, baseModel.modelFileName', () => {
    const text = JSON.stringify({ prompt: 'a cat', seed: '42', baseModel: { modelFileName: 'm.safetensors', hash: 'x' } });
    expect(tensorArtCandidate(text, 'png:tEXt:generation_data')).toStrictEqual(full('tensorart', 'Tensor.Art', 'png:tEXt:generation_data'));
    expect(tensorArtCandidate(JSON.stringify({ prompt: 'a cat', baseModel: 'm' }), W)?.record).toStrictEqual({ tool: 'tensorart', app: 'Tensor.Art', where: W, prompt: 'a cat' });
    expect(tensorArtCandidate('not json', W)).toBeUndefined();
    expect(tensorArtCandidate('{"seed": 3}', W)?.record).toStrictEqual({ tool: 'tensorart', app: 'Tensor.Art', where: W, seed: '3' });
  });

  it('InvokeAI invokeai_metadata: positive_prompt, seed, model as model_name, name or a string', () => {
    const W3 = 'png:tEXt:invokeai_metadata';
    for (const model of [{ model_name: 'm.safetensors', base_model: 'sd-1' }, { name: 'm.safetensors', key: 'k' }, 'm.safetensors']) {
      expect(invokeMetadataCandidate(JSON.stringify({ positive_prompt: 'a cat', seed: 42, model }), W3)).toStrictEqual(full('invokeai', 'InvokeAI', W3));
    }
    expect(invokeMetadataCandidate(JSON.stringify({ positive_prompt: 'a cat', model: { model_name: 'a', name: 'b' } }), W3)?.record.model).toBe('a');
    expect(invokeMetadataCandidate(JSON.stringify({ positive_prompt: 'a cat', model: ['m'] }), W3)?.record).toStrictEqual({ tool: 'invokeai', app: 'InvokeAI', where: W3, prompt: 'a cat' });
    expect(invokeMetadataCandidate('not json', W3)).toBeUndefined();
  });

  it('a seed past 2^53 from the text', () => {
    const text = '{"PositivePrompt": "a", "Seed": 18446744073709551615}';
    expect(stabilityMatrixCandidate(text, W)?.record.seed).toBe('18446744073709551615');
  });
});

describe('jsonToolCandidate', () => {
  it('SwarmUI, then RuinedFooocus, then Fooocus', () => {
    const both = { sui_image_params: { prompt: 'a cat' }, software: 'RuinedFooocus', version: 'Fooocus v2' };
    expect(jsonToolCandidate(JSON.stringify(both), W, both, false)?.record.tool).toBe('swarmui');
    const { sui_image_params: _s, ...ruined } = both;
    expect(jsonToolCandidate(JSON.stringify(ruined), W, ruined, false)?.record.tool).toBe('ruinedfooocus');
    const fooocus = { version: 'Fooocus v2', prompt: 'a cat' };
    expect(jsonToolCandidate(JSON.stringify(fooocus), W, fooocus, false)?.record.tool).toBe('fooocus');
    expect(jsonToolCandidate('{}', W, {}, true)?.record.tool).toBe('fooocus');
    expect(jsonToolCandidate('{}', W, {}, false)).toBeUndefined();
    expect(jsonToolCandidate('', W, undefined, true)).toBeUndefined();
    // The caller's parse is the answer: no object given, no record, whatever the text.
    expect(jsonToolCandidate(JSON.stringify(both), W, undefined, true)).toBeUndefined();
  });
});
