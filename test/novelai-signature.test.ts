// NovelAI comments that name `signed_hash` without carrying one, or carry it with the wrong type:
// every answer is a record with the right signature state, never an error. A comment that only
// mentions the words (in its prompt, as another key's value) has no signature in any container;
// a signed_hash that is a number, null, an object or short base64 is an invalid signature.
import { describe, expect, it } from 'vitest';
import { judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import { carriesSignedHash, checkNovelAiSignature, hasSignedHash } from '../src/detectors/novelai-signature.js';
import type { DetectorOutcome } from '../src/types.js';
import { jpegWith, makePng, patternPixels, tEXt, tiffBlock, userComment } from './helpers/generator-fixtures.js';

const MENTIONS = [
  '{"prompt": "signed_hash", "seed": 7, "noise_schedule": "native"}',
  '{"prompt": "a cat", "seed": 7, "request_type": "x", "note": "the signed_hash was stripped"}',
  '{"prompt": "a cat", "seed": 7, "request_type": "x", "extra": {"signed_hash": "AAAA"}}',
  '{"Comment": "{\\"prompt\\": \\"a cat\\", \\"seed\\": 7, \\"request_type\\": \\"x\\"}", "signed_hash_note": 1}',
];
const WRONG_TYPES = ['5', '-1.5e3', 'null', 'true', '[]', '{}', '"AAAA"', '""'].map((v) => `{"prompt": "a cat", "seed": 7, "signed_hash": ${v}}`);

function png(comment: string, channels: 3 | 4 = 4): Uint8Array {
  return makePng(patternPixels(16, 16, channels), { before: [tEXt('Software', 'NovelAI'), tEXt('Comment', comment)] });
}

function jpeg(comment: string): Uint8Array {
  return jpegWith({ tiff: tiffBlock({ ifd0: [{ tag: 0x0131, type: 2, value: 'NovelAI Diffusion V4.5' }], exif: [{ tag: 0x9286, type: 7, value: userComment(comment, 'ascii') }] }) });
}

async function judge(bytes: Uint8Array, type: 'image/png' | 'image/jpeg'): Promise<DetectorOutcome> {
  return judgeGeneratorMetadata({ bytes, type, sha256: '' });
}

describe('a comment that mentions signed_hash without the key', () => {
  it('has no signature: not in the check, not in a PNG, not in a JPEG', async () => {
    const pixels = { width: 2, height: 2, channels: 3 as const, data: new Uint8Array(12) };
    for (const comment of MENTIONS) {
      expect(hasSignedHash(comment), comment).toBe(true); // the cheap test sees the words...
      expect(carriesSignedHash(comment), comment).toBe(false); // ...the key is not there
      expect(checkNovelAiSignature(pixels, comment), comment).toBe('absent');
      for (const [bytes, type] of [[png(comment), 'image/png'], [png(comment, 3), 'image/png'], [jpeg(comment), 'image/jpeg']] as const) {
        const out = await judge(bytes, type);
        expect(out, `${type} ${comment}`).toMatchObject({ result: 'found', confidence: 0.85, generator: { tool: 'novelai', seed: '7' } });
        expect(out.generator, `${type} ${comment}`).not.toHaveProperty('signature');
      }
    }
  });
});

describe('a signed_hash that is not a 64-byte base64 signature', () => {
  it('is an invalid signature, in a PNG and in a JPEG', async () => {
    const pixels = { width: 2, height: 2, channels: 4 as const, data: new Uint8Array(16) };
    for (const comment of WRONG_TYPES) {
      expect(carriesSignedHash(comment), comment).toBe(true);
      expect(checkNovelAiSignature(pixels, comment), comment).toBe('invalid');
      for (const [bytes, type] of [[png(comment), 'image/png'], [jpeg(comment), 'image/jpeg']] as const) {
        expect(await judge(bytes, type), `${type} ${comment}`).toMatchObject({
          result: 'found',
          confidence: 0.7,
          generator: { tool: 'novelai', seed: '7', prompt: 'a cat', signature: 'invalid' },
        });
      }
    }
  });

  it('a comment that names signed_hash but is not JSON nai_sig.py reads is invalid, never an error', () => {
    const pixels = { width: 2, height: 2, channels: 3 as const, data: new Uint8Array(12) };
    for (const comment of ['signed_hash', '{"signed_hash"}', '{"signed_hash": }', '[{"signed_hash": "x"}]', '{"Comment": 5, "signed_hash": "x"}', '{"Comment": "[1]", "signed_hash": "x"}']) {
      expect(carriesSignedHash(comment), comment).toBe(true);
      expect(checkNovelAiSignature(pixels, comment), comment).toBe('invalid');
    }
    expect(checkNovelAiSignature(pixels, '{"prompt": "a cat"}')).toBe('absent');
  });
});
