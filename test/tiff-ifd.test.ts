// tiff-ifd.ts on its own: TIFF-structured blocks laid out byte by byte here (TIFF 6.0, section 2:
// a byte-order mark "II" or "MM", 42, the offset of IFD0; an IFD is a 2-byte count, 12-byte
// entries of tag, type, count and value-or-offset, values of 4 bytes or less held in the entry),
// in both byte orders; every bound exact.
import { describe, expect, it } from 'vitest';
import { ExifDamage, TYPE_ASCII, TYPE_BYTE, TYPE_IFD, TYPE_LONG, TYPE_UNDEFINED, TiffBlock, type IfdEntry } from '../src/media/tiff-ifd.js';

interface Entry {
  tag: number;
  type: number;
  count: number;
  /** The 4-byte value field: a number (an offset or an inline LONG) or up to 4 inline bytes. */
  value: number | number[];
}

/** A block of `size` bytes: header pointing at IFD0 at `ifdAt`, that IFD's entries, `data` placed at offsets. */
function block(o: { little: boolean; ifdAt?: number; entries?: Entry[]; count?: number; size?: number; data?: [number, Uint8Array | string][] }): Buffer {
  const ifdAt = o.ifdAt ?? 8;
  const entries = o.entries ?? [];
  const b = Buffer.alloc(o.size ?? Math.max(ifdAt + 2 + entries.length * 12 + 4, 256));
  const u16 = (v: number, at: number) => (o.little ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
  const u32 = (v: number, at: number) => (o.little ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
  b.write(o.little ? 'II' : 'MM', 0, 'latin1');
  u16(42, 2);
  u32(ifdAt, 4);
  if (ifdAt + 2 <= b.length) u16(o.count ?? entries.length, ifdAt);
  entries.forEach((e, i) => {
    const at = ifdAt + 2 + i * 12;
    u16(e.tag, at);
    u16(e.type, at + 2);
    u32(e.count, at + 4);
    if (typeof e.value === 'number') u32(e.value, at + 8);
    else Buffer.from(e.value).copy(b, at + 8);
  });
  for (const [at, d] of o.data ?? []) (typeof d === 'string' ? Buffer.from(d, 'latin1') : Buffer.from(d)).copy(b, at);
  return b;
}

const damage = (message: string) => new ExifDamage(message);
const OUTSIDE = 'an EXIF offset points outside the EXIF block';

describe('TiffBlock: the header', () => {
  it('reads both byte orders', () => {
    for (const little of [true, false]) {
      const t = new TiffBlock(block({ little, ifdAt: 0x0102 + (little ? 0 : 2) }));
      expect(t.little).toBe(little);
      expect(t.firstIfd).toBe(0x0102 + (little ? 0 : 2));
    }
  });

  it('refuses a block shorter than 8 bytes, without a byte-order mark, or without 42', () => {
    const ok = block({ little: true, size: 8 });
    expect(new TiffBlock(ok).firstIfd).toBe(8);
    expect(() => new TiffBlock(ok.subarray(0, 7))).toThrow(damage('the EXIF block is shorter than its header'));
    for (const mark of ['IM', 'MI', 'ii', 'mm', '\0\0']) {
      const b = Buffer.from(ok);
      b.write(mark, 0, 'latin1');
      expect(() => new TiffBlock(b), mark).toThrow(damage('the EXIF block has no byte-order mark'));
    }
    const bigEndian42 = Buffer.from('II\0\x2a\x08\0\0\0', 'latin1'); // 42 in the wrong order
    expect(() => new TiffBlock(bigEndian42)).toThrow(damage('the EXIF block is not TIFF-structured'));
    expect(() => new TiffBlock(Buffer.from('MM\x2a\0\0\0\0\x08', 'latin1'))).toThrow(damage('the EXIF block is not TIFF-structured'));
    expect(() => new TiffBlock(Buffer.from('MM\0\x2b\0\0\0\x08', 'latin1'))).toThrow(ExifDamage);
  });

  it('reads a block that is a view into a larger buffer at its own offset', () => {
    const inner = block({ little: false, ifdAt: 20 });
    const outer = Buffer.concat([Buffer.from('junk+'), inner]);
    const t = new TiffBlock(outer.subarray(5));
    expect([t.little, t.firstIfd]).toEqual([false, 20]);
  });
});

describe('TiffBlock: bounds', () => {
  it('u16 and u32 read up to the last byte and not past it', () => {
    const b = block({ little: true, size: 16 });
    b.writeUInt32LE(0xdeadbeef, 12);
    const t = new TiffBlock(b);
    expect(t.u32(12)).toBe(0xdeadbeef);
    expect(t.u16(14)).toBe(0xdead);
    expect(() => t.u32(13)).toThrow(damage(OUTSIDE));
    expect(() => t.u16(15)).toThrow(damage(OUTSIDE));
  });

  it('need: negative offsets and sizes are outside; the exact end is inside', () => {
    const t = new TiffBlock(block({ little: true, size: 16 }));
    expect(() => t.need(0, 16)).not.toThrow();
    expect(() => t.need(16, 0)).not.toThrow();
    expect(() => t.need(0, 17)).toThrow(damage(OUTSIDE));
    expect(() => t.need(-1, 2)).toThrow(damage(OUTSIDE));
    expect(() => t.need(4, -1)).toThrow(damage(OUTSIDE));
    expect(() => t.need(-4, -1)).toThrow(damage(OUTSIDE));
  });
});

describe('TiffBlock.entries', () => {
  it('the wanted tags, first occurrence of each, in both byte orders', () => {
    for (const little of [true, false]) {
      const t = new TiffBlock(
        block({
          little,
          entries: [
            { tag: 0x010f, type: TYPE_ASCII, count: 4, value: [0x41, 0x42, 0x43, 0] }, // inline "ABC"
            { tag: 0x0110, type: TYPE_ASCII, count: 5, value: 100 },
            { tag: 0x0131, type: TYPE_ASCII, count: 2, value: 120 }, // not wanted
            { tag: 0x010f, type: TYPE_ASCII, count: 9, value: 140 }, // a second Make
          ],
        }),
      );
      const found = t.entries(8, [0x010f, 0x0110]);
      expect([...found.entries()]).toEqual([
        [0x010f, { type: TYPE_ASCII, count: 4, at: 8 + 2 + 8, size: 4 }],
        [0x0110, { type: TYPE_ASCII, count: 5, at: 100, size: 5 }],
      ]);
    }
  });

  it('the size of each TIFF type; types TIFF does not define are skipped', () => {
    const SIZES = [1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4]; // types 1-13
    const entries: Entry[] = SIZES.map((_, i) => ({ tag: 0x100 + i, type: i + 1, count: 3, value: 200 }));
    entries.push({ tag: 0x200, type: 0, count: 3, value: 200 }, { tag: 0x201, type: 14, count: 3, value: 200 }, { tag: 0x202, type: 0xffff, count: 3, value: 200 });
    const t = new TiffBlock(block({ little: true, entries, size: 400 }));
    const found = t.entries(8, entries.map((e) => e.tag));
    expect([...found.values()].map((e) => [e.type, e.size])).toEqual(SIZES.map((s, i) => [i + 1, 3 * s]));
    // 3 values of 1 byte fit in the entry; 3 of 2 bytes do not.
    expect(found.get(0x100)!.at).toBe(8 + 2 + 8);
    expect(found.get(0x102)!.at).toBe(200);
  });

  it('a value of exactly 4 bytes is in the entry; 5 bytes are at the offset, which must be inside', () => {
    const t = new TiffBlock(
      block({
        little: false,
        entries: [
          { tag: 1, type: TYPE_UNDEFINED, count: 4, value: [1, 2, 3, 4] },
          { tag: 2, type: TYPE_UNDEFINED, count: 5, value: 60 },
          { tag: 3, type: TYPE_LONG, count: 1, value: 0x11223344 },
        ],
      }),
    );
    const found = t.entries(8, [1, 2, 3]);
    expect(found.get(1)).toEqual({ type: TYPE_UNDEFINED, count: 4, at: 18, size: 4 });
    expect(found.get(2)).toEqual({ type: TYPE_UNDEFINED, count: 5, at: 60, size: 5 });
    expect(found.get(3)).toEqual({ type: TYPE_LONG, count: 1, at: 42, size: 4 });
  });

  it('4096 entries are read, 4097 are damage; entries past the block are damage', () => {
    const many = (count: number) => block({ little: true, count, size: 8 + 2 + count * 12 });
    expect(new TiffBlock(many(4096)).entries(8, [0]).size).toBe(0);
    expect(() => new TiffBlock(many(4097)).entries(8, [0])).toThrow(damage('an EXIF directory claims 4097 entries'));
    const cut = block({ little: true, count: 3, size: 8 + 2 + 3 * 12 - 1 });
    expect(() => new TiffBlock(cut).entries(8, [0])).toThrow(damage(OUTSIDE));
    expect(() => new TiffBlock(block({ little: true, size: 9 })).entries(8, [0])).toThrow(damage(OUTSIDE));
    // An entry with tag 0 and type 0 (a zeroed block) is wanted but skipped by its type.
    expect(new TiffBlock(many(4096)).entries(8, [0]).has(0)).toBe(false);
  });
});

describe('TiffBlock: values', () => {
  // Built inside each test, not when the file loads: a mutant of the constructor then fails tests
  // instead of the file's loading (which Stryker would not count as caught).
  const values = () =>
    new TiffBlock(
    block({
      little: true,
      size: 300,
      data: [
        [100, 'Stable Diffusion\0junk after'],
        [150, '  spaced \n\0'],
        [170, '\0hidden'],
        [180, 'caf\xc3\xa9'],
      ],
    }),
  );
  const entry = (type: number, at: number, size: number): IfdEntry => ({ type, count: size, at, size });

  it('text: ASCII only, up to the first NUL, trimmed, capped, undefined when empty', () => {
    const t = values();
    expect(t.text(entry(TYPE_ASCII, 100, 28), 100)).toBe('Stable Diffusion');
    expect(t.text(entry(TYPE_ASCII, 100, 28), 6)).toBe('Stable');
    expect(t.text(entry(TYPE_ASCII, 150, 11), 100)).toBe('spaced');
    expect(t.text(entry(TYPE_ASCII, 170, 7), 100)).toBeUndefined();
    expect(t.text(entry(TYPE_ASCII, 180, 5), 100)).toBe('café'); // UTF-8, as writers put it
    expect(t.text(entry(TYPE_UNDEFINED, 100, 28), 100)).toBeUndefined();
    expect(t.text(undefined, 100)).toBeUndefined();
    expect(() => t.text(entry(TYPE_ASCII, 290, 11), 100)).toThrow(damage(OUTSIDE));
    expect(t.text(entry(TYPE_ASCII, 290, 11), 10)).toBeUndefined(); // the cap keeps it inside: zeros
  });

  it('bytes: BYTE, ASCII and UNDEFINED fields, capped; other types undefined', () => {
    const t = values();
    for (const type of [TYPE_BYTE, TYPE_ASCII, TYPE_UNDEFINED]) {
      expect(Buffer.from(t.bytes(entry(type, 100, 28), 6)!).toString('latin1'), String(type)).toBe('Stable');
      expect(t.bytes(entry(type, 100, 28), 100), String(type)).toHaveLength(28);
    }
    for (const type of [0, 3, TYPE_LONG, 6, 8, TYPE_IFD]) expect(t.bytes(entry(type, 100, 4), 4), String(type)).toBeUndefined();
    expect(t.bytes(undefined, 4)).toBeUndefined();
    expect(() => t.bytes(entry(TYPE_UNDEFINED, 299, 2), 100)).toThrow(damage(OUTSIDE));
    expect(t.bytes(entry(TYPE_UNDEFINED, 299, 2), 1)).toHaveLength(1);
  });

  it('pointer: a LONG or IFD value of at least one', () => {
    const p = new TiffBlock(block({ little: false, data: [[40, Buffer.from([0, 0, 1, 2])]] }));
    expect(p.pointer({ type: TYPE_LONG, count: 1, at: 40, size: 4 })).toBe(0x102);
    expect(p.pointer({ type: TYPE_IFD, count: 1, at: 40, size: 4 })).toBe(0x102);
    expect(p.pointer({ type: TYPE_LONG, count: 0, at: 40, size: 0 })).toBeUndefined();
    for (const type of [3, 9, TYPE_UNDEFINED]) expect(p.pointer({ type, count: 1, at: 40, size: 4 }), String(type)).toBeUndefined();
    expect(p.pointer(undefined)).toBeUndefined();
    expect(() => p.pointer({ type: TYPE_LONG, count: 1, at: 254, size: 4 })).toThrow(damage(OUTSIDE));
  });

  it('the field types are the TIFF numbers', () => {
    expect([TYPE_BYTE, TYPE_ASCII, TYPE_LONG, TYPE_UNDEFINED, TYPE_IFD]).toEqual([1, 2, 4, 7, 13]);
  });
});
