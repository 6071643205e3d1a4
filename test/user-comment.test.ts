// user-comment.ts on its own: EXIF UserComment values as the writers lay them out (EXIF 2.32,
// 4.6.5: an 8-byte character code, then the text). piexif (AUTOMATIC1111, Forge) writes
// "UNICODE\0" + UTF-16 big-endian whatever the TIFF order; SwarmUI little-endian; Fooocus the bare
// text; ExifTool falls back to the TIFF block's order when the text does not tell.
import { describe, expect, it } from 'vitest';
import { decodeUserComment, utf16IsBigEndian } from '../src/media/user-comment.js';

const utf16le = (s: string) => Buffer.from(s, 'utf16le');
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
const prefixed = (prefix: string, body: Uint8Array) => Buffer.concat([Buffer.from(prefix, 'latin1'), body]);

describe('decodeUserComment', () => {
  it('UNICODE: big-endian (piexif) and little-endian (SwarmUI) told apart by the text, not the TIFF order', () => {
    const text = 'a cat, Steps: 20, Seed: 7';
    for (const tiffBigEndian of [false, true]) {
      expect(decodeUserComment(prefixed('UNICODE\0', utf16be(text)), tiffBigEndian)).toEqual({ text, encoding: 'unicode-utf16be' });
      expect(decodeUserComment(prefixed('UNICODE\0', utf16le(text)), tiffBigEndian)).toEqual({ text, encoding: 'unicode-utf16le' });
    }
  });

  it('UNICODE: text with no zero byte goes by its byte-order mark, then by the TIFF order', () => {
    const text = '日本語の猫';
    expect(decodeUserComment(prefixed('UNICODE\0', utf16be('\ufeff' + text)), false)).toEqual({ text, encoding: 'unicode-utf16be' });
    expect(decodeUserComment(prefixed('UNICODE\0', utf16le('\ufeff' + text)), true)).toEqual({ text, encoding: 'unicode-utf16le' });
    expect(decodeUserComment(prefixed('UNICODE\0', utf16be(text)), true)).toEqual({ text, encoding: 'unicode-utf16be' });
    expect(decodeUserComment(prefixed('UNICODE\0', utf16le(text)), false)).toEqual({ text, encoding: 'unicode-utf16le' });
  });

  it('UNICODE: an odd last byte is dropped; padding is trimmed', () => {
    const body = Buffer.concat([utf16be('Seed: 7'), Buffer.from([0, 0, 0, 0x20]), Buffer.from([0x41])]);
    expect(decodeUserComment(prefixed('UNICODE\0', body), false)).toEqual({ text: 'Seed: 7', encoding: 'unicode-utf16be' });
    const le = Buffer.concat([utf16le('ab'), Buffer.from([0x63])]);
    expect(decodeUserComment(prefixed('UNICODE\0', le), true)).toEqual({ text: 'ab', encoding: 'unicode-utf16le' });
  });

  it('ASCII (read as UTF-8, as writers put UTF-8 there), JIS (Shift_JIS), undefined, and no prefix', () => {
    expect(decodeUserComment(prefixed('ASCII\0\0\0', Buffer.from('café ✓', 'utf8')), false)).toEqual({ text: 'café ✓', encoding: 'ascii' });
    expect(decodeUserComment(prefixed('JIS\0\0\0\0\0', Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x41])), false)).toEqual({ text: '日本A', encoding: 'jis' });
    expect(decodeUserComment(prefixed('\0'.repeat(8), Buffer.from('naïve', 'utf8')), false)).toEqual({ text: 'naïve', encoding: 'undefined' });
    expect(decodeUserComment(Buffer.from('Steps: 30, Sampler: Euler', 'utf8'), false)).toEqual({ text: 'Steps: 30, Sampler: Euler', encoding: 'none' });
    // Close to a prefix is no prefix: the whole value is the text.
    expect(decodeUserComment(Buffer.from('ASCII\0\0xyz', 'latin1'), false)).toEqual({ text: 'ASCII\0\0xyz', encoding: 'none' });
    expect(decodeUserComment(Buffer.from('UNICODE xyz', 'latin1'), false)).toEqual({ text: 'UNICODE xyz', encoding: 'none' });
    expect(decodeUserComment(Buffer.from('JIS\0\0\0\0 xyz', 'latin1'), false)).toEqual({ text: 'JIS\0\0\0\0 xyz', encoding: 'none' });
    expect(decodeUserComment(Buffer.from('\0\0\0\0\0\0\0 xyz', 'latin1'), false)).toEqual({ text: '\0\0\0\0\0\0\0 xyz', encoding: 'none' });
  });

  it('trailing NULs and white space are trimmed, leading ones kept (but a BOM), inner ones kept', () => {
    expect(decodeUserComment(prefixed('ASCII\0\0\0', Buffer.from('  a \0 b\t\n\r \0\0\u00a0', 'utf8')), false)).toEqual({ text: '  a \0 b', encoding: 'ascii' });
    expect(decodeUserComment(prefixed('ASCII\0\0\0', Buffer.from('\ufeff x\ufeff', 'utf8')), false)).toEqual({ text: ' x', encoding: 'ascii' }); // U+FEFF is white space to \s
    expect(decodeUserComment(prefixed('ASCII\0\0\0', Buffer.from('x' + ' '.repeat(100_000) + 'y', 'utf8')), false)?.text).toHaveLength(100_002);
    // The decoders drop a leading BOM themselves; a second one is dropped here, one inside is text.
    expect(decodeUserComment(prefixed('ASCII\0\0\0', Buffer.from('\ufeff\ufeffx', 'utf8')), false)).toEqual({ text: 'x', encoding: 'ascii' });
    expect(decodeUserComment(prefixed('UNICODE\0', utf16be('\ufeff\ufeffSeed')), false)).toEqual({ text: 'Seed', encoding: 'unicode-utf16be' });
    expect(decodeUserComment(prefixed('ASCII\0\0\0', Buffer.from('a\ufeffb', 'utf8')), false)).toEqual({ text: 'a\ufeffb', encoding: 'ascii' });
  });

  it('an empty comment, or one of only padding, is undefined', () => {
    for (const raw of [Buffer.alloc(0), Buffer.from('ASCII\0\0\0'), Buffer.from('ASCII\0\0\0 \0 \0'), Buffer.alloc(40), prefixed('UNICODE\0', Buffer.alloc(16)), Buffer.from('  \n')]) {
      expect(decodeUserComment(raw, false), JSON.stringify(raw.toString('latin1'))).toBeUndefined();
    }
  });
});

describe('utf16IsBigEndian', () => {
  it('zero bytes at even offsets say big-endian, at odd ones little-endian; NUL pairs say nothing', () => {
    expect(utf16IsBigEndian(utf16be('ab'), false)).toBe(true);
    expect(utf16IsBigEndian(utf16le('ab'), true)).toBe(false);
    // One ASCII unit against many NUL pairs: the unit decides.
    expect(utf16IsBigEndian(Buffer.concat([Buffer.alloc(20), utf16le('a')]), true)).toBe(false);
    expect(utf16IsBigEndian(Buffer.concat([Buffer.alloc(20), utf16be('a')]), false)).toBe(true);
    // A majority, not any: two little-endian ASCII units beat one big-endian one.
    expect(utf16IsBigEndian(Buffer.concat([utf16be('a'), utf16le('bc')]), true)).toBe(false);
    expect(utf16IsBigEndian(Buffer.concat([utf16le('a'), utf16be('bc')]), false)).toBe(true);
  });

  it('a tie goes to the byte-order mark, then to the fallback', () => {
    const tie = Buffer.concat([utf16be('a'), utf16le('b')]);
    for (const fallback of [false, true]) {
      expect(utf16IsBigEndian(tie, fallback)).toBe(fallback);
      expect(utf16IsBigEndian(Buffer.concat([Buffer.from([0xfe, 0xff]), tie]), fallback)).toBe(true);
      expect(utf16IsBigEndian(Buffer.concat([Buffer.from([0xff, 0xfe]), tie]), fallback)).toBe(false);
      expect(utf16IsBigEndian(Buffer.from([0xfe, 0xfe, 0x65, 0xe5]), fallback)).toBe(fallback);
      expect(utf16IsBigEndian(Buffer.from([0xff, 0xff, 0x65, 0xe5]), fallback)).toBe(fallback);
      expect(utf16IsBigEndian(Buffer.alloc(0), fallback)).toBe(fallback);
    }
  });

  it('looks at the first 4096 units only', () => {
    const cjk = utf16le('日'.repeat(4096)); // no zero byte in either order
    for (const fallback of [false, true]) {
      expect(utf16IsBigEndian(Buffer.concat([cjk, utf16le('a')]), fallback)).toBe(fallback);
      expect(utf16IsBigEndian(Buffer.concat([cjk.subarray(2), utf16le('a')]), true)).toBe(false);
      expect(utf16IsBigEndian(Buffer.concat([cjk.subarray(2), utf16be('a')]), false)).toBe(true);
    }
    // A lone last byte is not half a unit.
    expect(utf16IsBigEndian(Buffer.from([0x41, 0x00, 0x00]), true)).toBe(false);
    expect(utf16IsBigEndian(Buffer.from([0x00, 0x41, 0x00]), false)).toBe(true);
  });
});
