// SD.Next's settings lines told from AUTOMATIC1111's (generator-sdnext.ts): by `App: SD.Next`
// (modules/processing_info.py since October 2023), or by the keys only SD.Next's create_infotext
// wrote before it (Parser, Operations, Latent sampler; Backend with SD.Next's own values).
import { describe, expect, it } from 'vitest';
import { isSdNextSettings } from '../src/detectors/generator-sdnext.js';

const line = (pairs: Record<string, string>) => new Map(Object.entries({ Steps: '20', Seed: '1', ...pairs }));

describe('isSdNextSettings', () => {
  it.each([
    [{ App: 'SD.Next' }, true],
    [{ App: 'sd.next' }, true],
    [{ App: 'SDNext' }, true],
    [{ App: 'SD Next' }, false],
    [{ App: 'My SD.Next' }, false],
    [{ App: 'SD.Next fork' }, false],
    [{ Parser: 'Full parser' }, true],
    [{ Operations: 'txt2img' }, true],
    [{ 'Latent sampler': 'DPM++ 2M' }, true],
    [{ Backend: 'Original' }, true],
    [{ Backend: 'Diffusers' }, true],
    [{ Backend: 'Legacy' }, true],
    [{ Backend: 'diffusers' }, false],
    [{ Backend: 'ONNX' }, false],
    [{ Version: 'v1.10.1', 'Model hash': 'c0d1994c73' }, false],
  ])('%o: %s', (pairs, want) => {
    expect(isSdNextSettings(line(pairs as Record<string, string>))).toBe(want);
  });
});
