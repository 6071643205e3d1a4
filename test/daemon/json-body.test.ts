// The detect route's JSON shortcut must accept and refuse exactly what JSON.parse does.
import { describe, expect, it } from 'vitest';
import { decodeBase64Media } from '../../src/engine/base64-media.js';
import { parseDetectJson, RawBase64 } from '../../src/daemon/json-body.js';

const big = Buffer.alloc(200 * 1024, 7).toString('base64');

function viaShortcut(text: string): unknown {
  const parsed = parseDetectJson(Buffer.from(text)) as Record<string, unknown>;
  if (parsed && parsed.media instanceof RawBase64) return { ...parsed, media: parsed.media.bytes.toString('latin1') };
  return parsed;
}

describe('parseDetectJson', () => {
  it.each([
    ['plain', `{"media":"${big}"}`],
    ['with checks before and after', `{"checks":["c2pa"],"media":"${big}","x":{"media":"no"}}`],
    ['whitespace everywhere', ` { "media" : \n "${big}" , "checks" : [ "c2pa" ] } `],
    ['escaped key', `{"med\\u0069a":"${big}"}`],
    ['escape inside the value', `{"media":"${big.slice(0, 1000)}\\/${big.slice(1000)}"}`],
    ['duplicate key (JSON.parse keeps the last)', `{"media":"${big}","media":"AAAA"}`],
    ['short value', '{"media":"AAAA"}'],
    ['nested media is not the media', `{"opts":{"media":"${big}"},"url":"http://x/"}`],
    ['array at the top', `["media","${big}"]`],
    ['quotes and braces inside strings', `{"a":"}{\\"media\\":","media":"${big}"}`],
  ])('%s: same as JSON.parse', (_name, text) => {
    expect(viaShortcut(text)).toEqual(JSON.parse(text));
  });

  it('takes the shortcut for a plain large media value, and not for an escaped one', () => {
    expect((parseDetectJson(Buffer.from(`{"checks":["c2pa"],"media":"${big}"}`)) as any).media).toBeInstanceOf(RawBase64);
    expect(typeof (parseDetectJson(Buffer.from(`{"media":"${big.slice(0, 1000)}\\/${big.slice(1000)}"}`)) as any).media).toBe('string');
  });

  it.each([
    ['unterminated', `{"media":"${big}`],
    ['trailing garbage', `{"media":"${big}"} x`],
    ['missing brace', `{"media":"${big}"`],
    ['bare value after', `{"media":"${big}" "x"}`],
  ])('%s: refused like JSON.parse', (_name, text) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(() => parseDetectJson(Buffer.from(text))).toThrow();
  });
});

describe('decodeBase64Media', () => {
  const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 10]);
  it('standard, URL-safe, unpadded, wrapped', () => {
    for (const text of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64').replace(/(.{4})/g, '$1\r\n')]) {
      expect(decodeBase64Media(text)).toEqual({ bytes });
      expect(decodeBase64Media(Buffer.from(text, 'latin1'))).toEqual({ bytes });
    }
  });
  it('refuses bad characters, misplaced padding and impossible lengths', () => {
    for (const bad of ['AAA!', 'AA=A', 'A', 'AAAAA', 'AAAA=', 'Zm9v\u00e9', '====']) expect(decodeBase64Media(bad), bad).toEqual({ invalid: true });
  });
  it('decodes a large body exactly, in both alphabets, and finds a bad character anywhere in it', () => {
    const big = Buffer.from(Array.from({ length: 1_000_003 }, (_, i) => (i * 7919) & 0xff));
    for (const alphabet of ['base64', 'base64url'] as const) {
      const raw = Buffer.from(big.toString(alphabet), 'latin1');
      const decoded = decodeBase64Media(raw);
      expect('bytes' in decoded && decoded.bytes.equals(big)).toBe(true);
    }
    for (const at of [10, 262_144 + 5, 700_001, 1_333_336]) {
      const raw = Buffer.from(big.toString('base64'), 'latin1');
      raw[at] = 0x21; // '!'
      expect(decodeBase64Media(raw), `bad character at ${at}`).toEqual({ invalid: true });
    }
  });
  it('gives bytes that own their memory (so the pool can transfer them)', () => {
    const decoded = decodeBase64Media(Buffer.from(Buffer.alloc(300_000, 7).toString('base64'), 'latin1')) as { bytes: Buffer };
    expect(decoded.bytes.byteOffset).toBe(0);
    expect(decoded.bytes.buffer.byteLength).toBe(300_000);
  });
  it('says too large from the length alone', () => {
    expect(decodeBase64Media('A'.repeat(Math.ceil((4 * 1_048_576 * 4) / 3) + 4))).toEqual({ tooLarge: true });
  });
});
