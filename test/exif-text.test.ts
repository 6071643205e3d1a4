// exif-text.ts on its own: the text fields generators write into EXIF, from TIFF blocks laid out
// by test/helpers/generator-fixtures.ts (IFD0 and an Exif IFD, both byte orders): where each
// writer puts them (AUTOMATIC1111 / piexif: UserComment in the Exif IFD; Fooocus through Pillow:
// UserComment and MakerNote in IFD0; ComfyUI's WebP: the graphs in Make and Model), which one
// wins when both IFDs hold one, the caps, and what a broken Exif IFD loses.
import { describe, expect, it } from 'vitest';
import { ExifDamage, MAX_FIELD_BYTES, readExifText } from '../src/media/exif-text.js';
import { tiffBlock, userComment, type Tag } from './helpers/generator-fixtures.js';

const ascii = (tag: number, value: string): Tag => ({ tag, type: 2, value });
const undef = (tag: number, value: Uint8Array | string): Tag => ({ tag, type: 7, value: typeof value === 'string' ? Buffer.from(value, 'latin1') : value });

describe('readExifText', () => {
  it('IFD0 text fields and the Exif IFD UserComment (AUTOMATIC1111), in both byte orders', () => {
    for (const bigEndian of [false, true]) {
      const block = tiffBlock({
        bigEndian,
        ifd0: [ascii(0x010e, 'a cat'), ascii(0x010f, 'workflow:{"a":1}'), ascii(0x0110, 'prompt:{"b":2}'), ascii(0x0131, 'ComfyUI')],
        exif: [undef(0x9286, userComment('Steps: 20, Seed: 7', 'utf16be')), undef(0x927c, 'a1111\0\0')],
      });
      expect(readExifText(block), String(bigEndian)).toEqual({
        imageDescription: 'a cat',
        make: 'workflow:{"a":1}',
        model: 'prompt:{"b":2}',
        software: 'ComfyUI',
        userComment: { text: 'Steps: 20, Seed: 7', encoding: 'unicode-utf16be' },
        makerNote: 'a1111',
      });
    }
  });

  it('UserComment and MakerNote in IFD0 (Fooocus) win over the Exif IFD ones', () => {
    const block = tiffBlock({
      ifd0: [undef(0x9286, 'fooocus record'), undef(0x927c, 'fooocus')],
      exif: [undef(0x9286, userComment('exif one', 'ascii')), undef(0x927c, 'a1111')],
    });
    expect(readExifText(block)).toMatchObject({ userComment: { text: 'fooocus record', encoding: 'none' }, makerNote: 'fooocus' });
    const onlyExif = tiffBlock({ ifd0: [ascii(0x0131, 'x')], exif: [undef(0x9286, userComment('exif one', 'ascii')), undef(0x927c, 'a1111')] });
    expect(readExifText(onlyExif)).toMatchObject({ userComment: { text: 'exif one', encoding: 'ascii' }, makerNote: 'a1111' });
  });

  it('a UTF-16 comment that does not tell its order is read in the block order', () => {
    const cjk = '日本語';
    const le = Buffer.from(cjk, 'utf16le');
    const be = Buffer.from(le).swap16();
    const comment = (body: Buffer) => Buffer.concat([Buffer.from('UNICODE\0', 'latin1'), body]);
    expect(readExifText(tiffBlock({ bigEndian: true, ifd0: [], exif: [undef(0x9286, comment(be))] })).userComment).toEqual({ text: cjk, encoding: 'unicode-utf16be' });
    expect(readExifText(tiffBlock({ bigEndian: false, ifd0: [], exif: [undef(0x9286, comment(le))] })).userComment).toEqual({ text: cjk, encoding: 'unicode-utf16le' });
  });

  it('text fields of another type are absent; Exif IFD fields other than the two are not read', () => {
    const block = tiffBlock({
      ifd0: [undef(0x010e, 'desc'), undef(0x010f, 'make'), undef(0x0110, 'model'), undef(0x0131, 'soft')],
      exif: [ascii(0x010e, 'not here'), ascii(0x0131, 'nor here')],
    });
    expect(readExifText(block)).toEqual({});
  });

  it('the maker note is read when it is printable text of at most 64 bytes', () => {
    const note = (value: Uint8Array | string) => readExifText(tiffBlock({ ifd0: [], exif: [undef(0x927c, value)] })).makerNote;
    expect(note('x'.repeat(64))).toBe('x'.repeat(64));
    expect(note('x'.repeat(65))).toBeUndefined();
    expect(note('fooocus\0\0\0')).toBe('fooocus');
    expect(note('foo\0cus')).toBeUndefined(); // a NUL inside: binary
    expect(note(' ~')).toBe(' ~');
    expect(note('caf\xe9')).toBeUndefined();
    expect(note('a\x7f')).toBeUndefined();
    expect(note('a\x1f')).toBeUndefined();
    expect(note('\0\0\0\0')).toBeUndefined();
    expect(note(Buffer.from('Apple iOS\0\0\x01MM', 'latin1'))).toBeUndefined(); // a camera's note
    // Not a byte-sized type: no text.
    expect(readExifText(tiffBlock({ ifd0: [], exif: [{ tag: 0x927c, type: 4, value: 0x41414141 }] })).makerNote).toBeUndefined();
  });

  it(`fields are read up to ${MAX_FIELD_BYTES} bytes`, () => {
    expect(MAX_FIELD_BYTES).toBe(4 * 1024 * 1024);
    const long = 'p'.repeat(MAX_FIELD_BYTES + 10);
    const out = readExifText(tiffBlock({ ifd0: [ascii(0x0110, long)], exif: [undef(0x9286, userComment(long, 'ascii'))] }));
    expect(out.model).toHaveLength(MAX_FIELD_BYTES);
    expect(out.userComment?.text).toHaveLength(MAX_FIELD_BYTES - 8); // the 8-byte prefix counts
  });

  it('a broken Exif IFD loses only its own fields; a broken IFD0 is damage', () => {
    const outside = tiffBlock({ ifd0: [ascii(0x0131, 'kept'), { tag: 0x8769, type: 4, value: 0xfffff }] });
    expect(readExifText(outside)).toEqual({ software: 'kept' });
    const full = Buffer.from(tiffBlock({ ifd0: [ascii(0x0131, 'kept')], exif: [undef(0x9286, userComment('lost', 'ascii'))] }));
    // The Exif IFD claims 5000 entries.
    const exifAt = 8 + 2 + 2 * 12 + 4;
    full.writeUInt16LE(5000, exifAt);
    expect(readExifText(full)).toEqual({ software: 'kept' });
    expect(() => readExifText(Buffer.from('II*\0\xff\xff\0\0', 'latin1'))).toThrow(ExifDamage);
    expect(() => readExifText(Buffer.from('XX*\0\x08\0\0\0\0\0', 'latin1'))).toThrow(ExifDamage);
  });

  it('an Exif IFD pointer of count 0 is not followed', () => {
    const block = Buffer.from(tiffBlock({ ifd0: [ascii(0x0131, 's')], exif: [undef(0x9286, userComment('there', 'ascii'))] }));
    expect(readExifText(block).userComment?.text).toBe('there');
    // IFD0 entries are sorted by tag: Software (0x0131), then the pointer (0x8769).
    block.writeUInt32LE(0, 8 + 2 + 12 + 4);
    expect(readExifText(block)).toEqual({ software: 's' });
  });
});
