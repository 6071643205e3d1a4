// The detect route's JSON shortcut must accept and refuse exactly what JSON.parse does.
import { describe, expect, it } from 'vitest';
import { decodeBase64Media } from '../../src/engine/base64-media.js';
import { parseDetectJson, RawBase64 } from '../../src/daemon/media/json-body.js';

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
    // `{"media": "$(base64 photo.jpg)"}` in a shell: base64 wraps at 76 columns with raw line
    // breaks, which the base64 decoder would skip as wrapping.
    ['raw line breaks in the value', `{"media":"${big.replace(/(.{76})/g, '$1\n')}"}`],
    ['a raw CR LF in the value', `{"media":"${big.slice(0, 5000)}\r\n${big.slice(5000)}"}`],
    ['a raw tab in the value', `{"media":"${big.slice(0, 99_000)}\t${big.slice(99_000)}"}`],
  ])('%s: refused like JSON.parse', (_name, text) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(() => parseDetectJson(Buffer.from(text))).toThrow();
  });
});

/** What parseDetectJson gives, checked against JSON.parse; the bytes it kept raw, or undefined. */
function rawMedia(text: string): string | undefined {
  const parsed = parseDetectJson(Buffer.from(text)) as Record<string, unknown>;
  expect(parsed.media instanceof RawBase64 ? { ...parsed, media: parsed.media.bytes.toString('latin1') } : parsed).toEqual(JSON.parse(text));
  return parsed.media instanceof RawBase64 ? parsed.media.bytes.toString('latin1') : undefined;
}

describe('parseDetectJson: when the shortcut takes media (the rest always equals JSON.parse)', () => {
  it('from 65,536 characters of value on; 65,535 are parsed the ordinary way', () => {
    const at = 'A'.repeat(64 * 1024);
    expect(rawMedia(`{"media":"${at}"}`)).toBe(at);
    expect(rawMedia(`{"media":"${at.slice(1)}"}`)).toBeUndefined();
    expect(rawMedia('{"media":"AAAA"}')).toBeUndefined();
  });

  it('a short media value far into a large body is parsed the ordinary way', () => {
    expect(rawMedia(`{"note":"${big}","media":"AAAA"}`)).toBeUndefined();
    expect(rawMedia(`{"media":"AAAA","note":"${big}"}`)).toBeUndefined();
  });

  it.each([
    ['alone', `{"media":"${big}"}`],
    ['after a string holding escaped quotes', `{"note":"say \\"hi\\" \\"","media":"${big}"}`],
    ['after a string ending in an escaped backslash', `{"note":"C:\\\\","media":"${big}"}`],
    ['after a string ending in an escaped backslash and an escaped quote', `{"note":"a\\\\\\"","media":"${big}"}`],
    ['after an empty string', `{"note":"","media":"${big}"}`],
    ['with a backslash in a later string', `{"media":"${big}","note":"a\\nb"}`],
    ['after keys and values of every kind', `{"a":1,"b":true,"c":null,"d":"x","checks":["c2pa","camera_reference"],"media":"${big}"}`],
    ['after nested objects and arrays', `{"a":{"b":[1,{"c":"d"},[]]},"e":[[]],"media":"${big}"}`],
    ['with media keys nested before and after', `{"opts":{"media":"x"},"media":"${big}","more":[{"media":"y"}]}`],
    ['under an escaped key', `{"med\\u0069a":"${big}"}`],
    ['with whitespace everywhere', ` {\t"checks" : [ "c2pa" ] ,\r\n "media" :\n "${big}" } `],
    // Line breaks and tabs outside the value are JSON's whitespace: only those inside it count.
    ['with a line break right before and right after the value', `{"media":\n"${big}"\n}`],
    ['with a tab right before the value and CR LF right after it', `{"media":\t"${big}"\r\n}`],
  ])('taken: %s', (_name, text) => {
    expect(rawMedia(text)).toBe(big);
  });

  it.each([
    ['an escape inside the value', `{"media":"${big.slice(0, 1000)}\\/${big.slice(1000)}"}`],
    ['media given twice', `{"media":"${big}","media":"AAAA"}`],
    ['media given twice, the second spelled with an escape', `{"media":"AAAA","med\\u0069a":"${big}"}`],
    ['a large value under another key', `{"media":"AAAA","note":"${big}"}`],
    ['media an array holding the string', `{"media":["${big}"]}`],
    ['media an object holding the string', `{"media":{"media":"${big}"}}`],
    ['media only nested', `{"opts":{"media":"${big}"},"url":"http://x/"}`],
    ['a top-level array', `["media","${big}"]`],
    ['a top-level array naming media after a comma', `["x","media","${big}"]`],
  ])('not taken: %s', (_name, text) => {
    expect(rawMedia(text)).toBeUndefined();
  });

  it.each([
    ['a string left open at depth 2', '[["abc'],
    ['a string left open in a nested object', '{"a":{"b":"abc'],
    ['a key left open', '{"med'],
    ['a string left open after a comma', '[1, "abc'],
    ['a large media value left open', `{"media":"${big}`],
    ['a lone quote', '"'],
  ])('%s: refused like JSON.parse', (_name, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseDetectJson(Buffer.from(text))).toThrow(SyntaxError);
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
