// NovelAI comments that name `signed_hash` without carrying one, or carry it with the wrong type:
// every answer is a record with the right signature state, never an error. A comment that only
// mentions the words (in its prompt, as another key's value) has no signature in any container;
// a signed_hash that is a number, null, an object or short base64 is an invalid signature.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import {
  NOVELAI_PUBLIC_KEY_BASE64,
  carriesSignedHash,
  checkNovelAiSignature,
  ed25519PublicKey,
  hasSignedHash,
  novelAiPublicKey,
} from '../src/detectors/novelai-signature.js';
import type { RawPixels } from '../src/media/pixels.js';
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

// ---------------------------------------------------------------------------------------------
// The check itself, with a test key pair: the message nai_sig.py verifies is the RGB samples
// (row-major, alpha dropped) then the UTF-8 of Python's json.dumps of the comment without
// signed_hash. Each pixel below is different, so a sample read from the wrong place or dropped
// changes the message.

const keys = generateKeyPairSync('ed25519');

/** 5 x 3 pixels whose every sample differs (alpha too). */
function pixelsOf(channels: 3 | 4): RawPixels {
  const data = new Uint8Array(5 * 3 * channels);
  for (let i = 0; i < data.length; i++) data[i] = (i * 37 + 11) & 0xff;
  return { width: 5, height: 3, channels, data };
}

/** numpy's image_array[:, :, :3].tobytes(), written out plainly. */
function rgb(p: RawPixels): Buffer {
  const out: number[] = [];
  for (let i = 0; i < p.width * p.height; i++) out.push(p.data[i * p.channels]!, p.data[i * p.channels + 1]!, p.data[i * p.channels + 2]!);
  return Buffer.from(out);
}

/** The base64 signature of `pixels` and the json.dumps text `canonical` under the test key. */
function signatureOf(pixels: RawPixels, canonical: string): string {
  return sign(null, Buffer.concat([rgb(pixels), Buffer.from(canonical, 'utf8')]), keys.privateKey).toString('base64');
}

// json.dumps of {"prompt": " café", "scale": 5.00, "seed": 7} as Python writes it.
const CANONICAL = '{"prompt": " caf\\u00e9", "scale": 5.0, "seed": 7}';

describe('checkNovelAiSignature with a test key', () => {
  for (const channels of [3, 4] as const) {
    it(`verifies RGB${channels === 4 ? 'A (alpha dropped)' : ''} pixels, signed_hash anywhere in the comment`, () => {
      const pixels = pixelsOf(channels);
      const sig = signatureOf(pixels, CANONICAL);
      const comments = [
        `{"prompt":" café","scale":5.00,"seed":7,"signed_hash":"${sig}"}`,
        `{"signed_hash":"${sig}","prompt":" café","scale":5.00,"seed":7}`, // first: index 0
        `{"prompt":" café","signed_hash":"${sig}","scale":5.00,"seed":7}`,
      ];
      for (const comment of comments) {
        expect(carriesSignedHash(comment), comment).toBe(true);
        expect(checkNovelAiSignature(pixels, comment, keys.publicKey), comment).toBe('valid');
      }
    });
  }

  it('verifies the comment held as the JSON of a "Comment" string (Metadata.decoded_comment)', () => {
    const pixels = pixelsOf(4);
    const inner = `{"prompt":" café","scale":5.00,"seed":7,"signed_hash":"${signatureOf(pixels, CANONICAL)}"}`;
    const outer = JSON.stringify({ Comment: inner, Software: 'NovelAI' });
    expect(carriesSignedHash(outer)).toBe(true);
    expect(checkNovelAiSignature(pixels, outer, keys.publicKey)).toBe('valid');
    // The outer object's own signed_hash is not the one checked: the inner comment has none.
    const innerUnsigned = JSON.stringify({ Comment: '{"prompt":" café","seed":7}', signed_hash: signatureOf(pixels, CANONICAL) });
    expect(carriesSignedHash(innerUnsigned)).toBe(false);
    expect(checkNovelAiSignature(pixels, innerUnsigned, keys.publicKey)).toBe('absent');
  });

  it('is invalid when one sample, the comment, or the key differs', () => {
    const pixels = pixelsOf(4);
    const comment = `{"prompt":" café","scale":5.00,"seed":7,"signed_hash":"${signatureOf(pixels, CANONICAL)}"}`;
    for (let at = 0; at < pixels.data.length; at++) {
      const changed = { ...pixels, data: pixels.data.slice() };
      changed.data[at] = changed.data[at]! ^ 1;
      // An alpha sample is not signed; every R, G and B one is.
      expect(checkNovelAiSignature(changed, comment, keys.publicKey), `sample ${at}`).toBe(at % 4 === 3 ? 'valid' : 'invalid');
    }
    expect(checkNovelAiSignature(pixels, comment.replace('"seed":7', '"seed":8'), keys.publicKey)).toBe('invalid');
    expect(checkNovelAiSignature(pixels, comment, generateKeyPairSync('ed25519').publicKey)).toBe('invalid');
    // Under NovelAI's published key (the default), which did not sign it.
    expect(checkNovelAiSignature(pixels, comment)).toBe('invalid');
  });

  it('a signature of another length, or not base64 of 64 bytes, is invalid', () => {
    const pixels = pixelsOf(3);
    const sig = Buffer.from(signatureOf(pixels, CANONICAL), 'base64');
    for (const wrong of [sig.subarray(0, 63), Buffer.concat([sig, Buffer.from([0])]), Buffer.alloc(0)]) {
      const comment = `{"prompt":" café","scale":5.00,"seed":7,"signed_hash":"${wrong.toString('base64')}"}`;
      expect(checkNovelAiSignature(pixels, comment, keys.publicKey), String(wrong.length)).toBe('invalid');
    }
    // The signature's base64 read as UTF-8 text would be 88 bytes: it is decoded as base64.
    const hex = `{"prompt":" café","scale":5.00,"seed":7,"signed_hash":"${sig.toString('hex')}"}`;
    expect(checkNovelAiSignature(pixels, hex, keys.publicKey)).toBe('invalid');
  });

  it('a key that cannot verify Ed25519 is an invalid signature, not an error', () => {
    const pixels = pixelsOf(3);
    const comment = `{"seed":7,"signed_hash":"${signatureOf(pixels, '{"seed": 7}')}"}`;
    expect(checkNovelAiSignature(pixels, comment, keys.publicKey)).toBe('valid');
    expect(checkNovelAiSignature(pixels, comment, generateKeyPairSync('x25519').publicKey)).toBe('invalid');
  });

  it('text without the words is absent (hasSignedHash), even text that is not JSON', () => {
    const pixels = pixelsOf(3);
    for (const text of ['', 'not json', '{"prompt": "a cat"}', '{"signed hash": "x"}', '{"Signed_Hash": "x"}']) {
      expect(hasSignedHash(text), text).toBe(false);
      expect(carriesSignedHash(text), text).toBe(false);
      expect(checkNovelAiSignature(pixels, text, keys.publicKey), text).toBe('absent');
    }
  });
});

describe("NovelAI's published key", () => {
  it('is the 32 bytes of nai_sig.py, as an Ed25519 public key', () => {
    expect(Buffer.from(NOVELAI_PUBLIC_KEY_BASE64, 'base64')).toHaveLength(32);
    for (const key of [novelAiPublicKey(), ed25519PublicKey(NOVELAI_PUBLIC_KEY_BASE64)]) {
      expect(key.asymmetricKeyType).toBe('ed25519');
      expect(key.export({ format: 'jwk' })).toEqual({ kty: 'OKP', crv: 'Ed25519', x: 'Y2JcQAOhLwzwSDUJPNgL04nS0Tbqm7cSRc4xk0vRMic' });
    }
    expect(novelAiPublicKey()).toBe(novelAiPublicKey()); // made once
  });

  it('ed25519PublicKey takes any raw key: one made here verifies its own signatures', () => {
    const raw = Buffer.from(keys.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
    const pixels = pixelsOf(4);
    const comment = `{"prompt":" café","scale":5.00,"seed":7,"signed_hash":"${signatureOf(pixels, CANONICAL)}"}`;
    expect(checkNovelAiSignature(pixels, comment, ed25519PublicKey(raw))).toBe('valid');
  });
});
