// The EXIF reader pinned field by field (issue 18, "Tests that pin behaviour"): hand-laid TIFF
// blocks in both byte orders that each differ from a plain one in one place (a bound, an entry
// count, a field type, a duplicate), with the exact answer or the exact damage message. Where
// exifr reads the same block, its answer is the reference too.
import { describe, expect, it } from 'vitest';
// @ts-expect-error exifr ships no types for this entry point
import exifr from 'exifr/dist/full.esm.mjs';
import { cameraReference } from '../src/detectors/camera-reference.js';
import { ExifDamage, readCameraTags } from '../src/media/exif-tags.js';
import { APPLE_MAKER_NOTE, concat, exifApp1, tinyJpeg } from './fixtures/make.js';

const BYTE = 1;
const ASCII = 2;
const SHORT = 3;
const LONG = 4;
const UNDEFINED = 7;
const IFD = 13;

const MAKE = 0x010f;
const MODEL = 0x0110;
const SOFTWARE = 0x0131;
const EXIF_IFD = 0x8769;
const MAKER_NOTE = 0x927c;
const IMAGE_WIDTH = 0x0100;

const latin1 = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));

/**
 * One IFD entry. `value` is the field's bytes: inline when 4 bytes or fewer, else placed after
 * the IFDs with its offset in the entry. `field` instead writes the 4-byte value/offset field
 * as it is (an offset pointing anywhere); 'exif' is the offset of the Exif IFD.
 */
interface Field {
  tag: number;
  type: number;
  count?: number;
  value?: Uint8Array;
  field?: number | 'exif';
}

const ascii = (tag: number, text: string): Field => ({ tag, type: ASCII, value: latin1(`${text}\0`) });

/**
 * A TIFF block: header, IFD0 at 8, the Exif IFD (when given) right after it, then the values
 * that do not fit in their entries. `declared` overrides IFD0's entry count; `noNextPointer`
 * leaves out IFD0's 4-byte next-IFD offset.
 */
function tiff(
  order: 'II' | 'MM',
  ifd0: Field[],
  exif?: Field[],
  opts: { declared?: number; noNextPointer?: boolean } = {},
): Uint8Array {
  const little = order === 'II';
  const ifd0Size = 2 + 12 * ifd0.length + (opts.noNextPointer ? 0 : 4);
  const exifAt = 8 + ifd0Size;
  const exifSize = exif ? 2 + 12 * exif.length + 4 : 0;
  let dataAt = exifAt + exifSize;
  const outOfLine = [...ifd0, ...(exif ?? [])].filter((f) => f.field === undefined && (f.value?.length ?? 0) > 4);
  const size = outOfLine.reduce((n, f) => n + f.value!.length, dataAt);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(latin1(order), 0);
  view.setUint16(2, 42, little);
  view.setUint32(4, 8, little);
  const writeIfd = (at: number, fields: Field[], declared = fields.length) => {
    view.setUint16(at, declared, little);
    fields.forEach((f, i) => {
      const e = at + 2 + 12 * i;
      const value = f.value ?? new Uint8Array(0);
      view.setUint16(e, f.tag, little);
      view.setUint16(e + 2, f.type, little);
      view.setUint32(e + 4, f.count ?? value.length, little);
      if (f.field !== undefined) view.setUint32(e + 8, f.field === 'exif' ? exifAt : f.field, little);
      else if (value.length <= 4) out.set(value, e + 8);
      else {
        view.setUint32(e + 8, dataAt, little);
        out.set(value, dataAt);
        dataAt += value.length;
      }
    });
  };
  writeIfd(8, ifd0, opts.declared);
  if (exif) writeIfd(exifAt, exif);
  return out;
}

const read = (block: Uint8Array) => readCameraTags(block, 'image/tiff');
const NOTHING = { make: undefined, model: undefined, software: undefined };

/** exifr's Make/Model/Software of a TIFF block, in the reader's shape. */
async function exifrText(block: Uint8Array) {
  const out = await exifr.parse(Buffer.from(block), { tiff: true, ifd0: true, exif: false, mergeOutput: true, translateValues: false, reviveValues: false });
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(/\0+$/, '').trim() || undefined : undefined);
  return { make: text(out?.Make), model: text(out?.Model), software: text(out?.Software) };
}

async function damageReason(block: Uint8Array) {
  const outcome = await cameraReference.run({ bytes: block, type: 'image/tiff', sha256: '' }, {});
  expect(outcome).toMatchObject({ result: 'unavailable', confidence: 0 });
  return outcome.reason;
}

describe.each(['II', 'MM'] as const)('byte order %s', (order) => {
  describe('the block and its offsets', () => {
    it('a block shorter than the 8-byte header is damage, named as such', async () => {
      const block = tiff(order, []).subarray(0, 7);
      expect(() => read(block)).toThrow(ExifDamage);
      expect(() => read(block)).toThrow(/^the EXIF block is shorter than its header$/);
      expect(await damageReason(block)).toBe('The file is damaged in a way the camera_reference check cannot read: the EXIF block is shorter than its header.');
    });

    it('a block of exactly its header has a header, but IFD0 (at 8) lies outside it', async () => {
      const block = tiff(order, []).subarray(0, 8);
      expect(() => read(block)).toThrow(/^an EXIF offset points outside the EXIF block$/);
      expect(await damageReason(block)).toBe('The file is damaged in a way the camera_reference check cannot read: an EXIF offset points outside the EXIF block.');
    });

    it('an IFD0 with no entries is read: no tags', async () => {
      const block = tiff(order, []);
      expect(read(block)).toEqual(NOTHING);
      expect(await exifrText(block)).toEqual(NOTHING);
    });

    it('a text may sit at offset 0 (the header itself): it is inside the block', () => {
      // Six bytes from offset 0: the byte-order mark, 42, then the IFD0 offset; text up to the first NUL.
      const tags = read(tiff(order, [{ tag: MAKE, type: ASCII, count: 6, field: 0 }]));
      expect(tags?.make).toBe(order === 'II' ? 'II*' : 'MM');
    });

    it('a text that ends exactly at the end of the block is read; one byte further is damage', () => {
      const block = tiff(order, [ascii(MAKE, 'Canon EOS')]);
      expect(read(block)?.make).toBe('Canon EOS');
      const view = new DataView(block.buffer);
      view.setUint32(8 + 2 + 4, 11, order === 'II'); // count 10 -> 11: one byte past the end
      expect(() => read(block)).toThrow(/^an EXIF offset points outside the EXIF block$/);
    });

    it('a text with a count of 0 is absent, not damage', () => {
      expect(read(tiff(order, [{ tag: MAKE, type: ASCII, count: 0, field: 0 }]))).toEqual(NOTHING);
    });
  });

  describe('directory entries', () => {
    const filler = (n: number): Field[] => Array.from({ length: n }, () => ({ tag: IMAGE_WIDTH, type: SHORT, count: 1, value: Uint8Array.of(0, 8) }));

    it('up to 4096 entries are read; 4097 is damage naming the count', async () => {
      expect(read(tiff(order, [...filler(4095), ascii(MAKE, 'LG')]))?.make).toBe('LG');
      const block = tiff(order, [...filler(4096), ascii(MAKE, 'LG')]);
      expect(() => read(block)).toThrow(/^an EXIF directory claims 4097 entries$/);
      expect(await damageReason(block)).toBe('The file is damaged in a way the camera_reference check cannot read: an EXIF directory claims 4097 entries.');
    });

    it('a directory whose last entry is cut short is damage, even when that entry is not wanted', () => {
      const whole = tiff(order, [ascii(MAKE, 'LG'), ...filler(1)], undefined, { noNextPointer: true });
      expect(read(whole)?.make).toBe('LG');
      // The last entry loses its 4-byte value field.
      expect(() => read(whole.subarray(0, whole.length - 4))).toThrow(/^an EXIF offset points outside the EXIF block$/);
      expect(() => read(whole.subarray(0, whole.length - 1))).toThrow(/^an EXIF offset points outside the EXIF block$/);
    });

    it('a block that ends right after the last entry (no next-IFD offset) is read', () => {
      expect(read(tiff(order, [ascii(MAKE, 'LG'), ascii(MODEL, 'G6')], undefined, { noNextPointer: true }))).toEqual({ make: 'LG', model: 'G6', software: undefined });
    });

    it('entries past the declared count are not read', async () => {
      const block = tiff(order, [ascii(MAKE, 'LG'), ascii(MODEL, 'G6'), ascii(SOFTWARE, '9.0')], undefined, { declared: 2 });
      expect(read(block)).toEqual({ make: 'LG', model: 'G6', software: undefined });
      expect(await exifrText(block)).toEqual({ make: 'LG', model: 'G6', software: undefined });
    });

    it('a tag that appears twice: the first occurrence counts', () => {
      expect(read(tiff(order, [ascii(MAKE, 'Apple'), ascii(MAKE, 'Canon')]))?.make).toBe('Apple');
      expect(read(tiff(order, [ascii(MAKE, 'Canon'), ascii(MAKE, 'Apple')]))?.make).toBe('Canon');
    });

    it('an entry of a type TIFF does not define is skipped, so a later one of the tag is read', () => {
      for (const type of [0, 14, 0xffff]) {
        const tags = read(tiff(order, [{ tag: MAKE, type, count: 6, value: latin1('Canon\0') }, ascii(MAKE, 'Apple')]));
        expect(tags?.make, `type ${type}`).toBe('Apple');
      }
    });
  });

  describe('text fields', () => {
    it('only ASCII fields are text: the same bytes as UNDEFINED or BYTE are no Make', () => {
      for (const type of [UNDEFINED, BYTE]) {
        expect(read(tiff(order, [{ tag: MAKE, type, value: latin1('Apple\0') }]))?.make, `type ${type}`).toBeUndefined();
      }
      expect(read(tiff(order, [{ tag: MAKE, type: ASCII, value: latin1('Apple\0') }]))?.make).toBe('Apple');
    });

    it('a text ends at its first NUL, whatever follows it, and surrounding spaces are trimmed', async () => {
      expect(read(tiff(order, [ascii(MAKE, 'Apple\0 Inc.')]))?.make).toBe('Apple');
      expect(read(tiff(order, [ascii(MAKE, 'Apple\0\n\0x')]))?.make).toBe('Apple');
      const padded = tiff(order, [ascii(MAKE, '  Apple  '), ascii(MODEL, ' LG ')]);
      expect(read(padded)).toEqual({ make: 'Apple', model: 'LG', software: undefined });
      expect(await exifrText(padded)).toEqual({ make: 'Apple', model: 'LG', software: undefined });
    });
  });

  describe('the Exif IFD and its maker note', () => {
    const note = (type: number): Field => ({ tag: MAKER_NOTE, type, value: APPLE_MAKER_NOTE.subarray(0, 20) });
    const prefix = (block: Uint8Array) => {
      const p = read(block)?.makerNotePrefix;
      return p && Buffer.from(p).toString('latin1');
    };
    const APPLE_PREFIX = Buffer.from(APPLE_MAKER_NOTE.subarray(0, 16)).toString('latin1');

    it('a maker note is read when UNDEFINED (as cameras write it) or BYTE, not as any other type', () => {
      const withNote = (type: number) => tiff(order, [{ tag: EXIF_IFD, type: LONG, count: 1, field: 'exif' }], [note(type)]);
      expect(prefix(withNote(UNDEFINED))).toBe(APPLE_PREFIX);
      expect(prefix(withNote(BYTE))).toBe(APPLE_PREFIX);
      expect(prefix(withNote(ASCII))).toBeUndefined();
      expect(prefix(withNote(SHORT))).toBeUndefined();
    });

    it('the Exif IFD pointer is followed when LONG or IFD with a count, not when SHORT or of count 0', () => {
      const pointer = (type: number, count: number) => tiff(order, [{ tag: EXIF_IFD, type, count, field: 'exif' }], [note(UNDEFINED)]);
      expect(prefix(pointer(LONG, 1))).toBe(APPLE_PREFIX);
      expect(prefix(pointer(IFD, 1))).toBe(APPLE_PREFIX);
      expect(prefix(pointer(SHORT, 1))).toBeUndefined();
      expect(prefix(pointer(LONG, 0))).toBeUndefined();
      expect(prefix(pointer(IFD, 0))).toBeUndefined();
    });
  });
});

describe('the Exif segment of a JPEG', () => {
  /** A JPEG segment: marker, length, payload. */
  function segment(marker: number, payload: Uint8Array): Uint8Array {
    const head = Buffer.alloc(4);
    head.writeUInt16BE(0xff00 | marker);
    head.writeUInt16BE(payload.length + 2, 2);
    return concat(head, payload);
  }

  it('only an APP1 segment is Exif: the same payload in APP0 or APP2 is not read', async () => {
    const plain = tinyJpeg({ exif: exifApp1({ make: 'Apple' }) });
    for (const marker of [0xe0, 0xe2]) {
      const jpeg = concat(plain.subarray(0, 2), segment(marker, exifApp1({ make: 'Canon' })), plain.subarray(2));
      expect(readCameraTags(jpeg, 'image/jpeg')?.make, `marker ${marker.toString(16)}`).toBe('Apple');
      const out = await exifr.parse(Buffer.from(jpeg), { tiff: true, ifd0: true, exif: false, mergeOutput: true });
      expect(out?.Make).toBe('Apple');
    }
  });
});
