// exifOrientation (src/media/exif-orientation.ts): the EXIF orientation the pixel checks turn a
// picture by, read from the header bytes only where libvips' reading is beyond doubt, else left to
// libvips (undefined). Each answer that is a number is held to sharp's own reading of the same
// file; each refusal is a form this reader does not vouch for (issue 40, item 23: the held-out
// mutation run found EXIF without an Orientation tag, among others, unpinned).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { exifOrientation } from '../src/media/exif-orientation.js';
import { readPixelHeader } from '../src/media/pixels.js';
import { pngChunk, tEXt, zTXt, iTXt } from './helpers/generator-fixtures.js';

const latin1 = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};

interface Entry {
  tag: number;
  type: number;
  count: number;
  /** The 4 bytes of the value field, as numbers in the block's byte order (a SHORT left-justified). */
  value: number;
}

/** A TIFF block (as EXIF holds it) with one IFD0 of `entries`, then `ifd1` when given. */
function tiff(entries: Entry[], opts: { bigEndian?: boolean; ifd1?: Entry[] } = {}): Uint8Array {
  const be = opts.bigEndian ?? false;
  const out: number[] = [];
  const u16 = (n: number) => (be ? out.push((n >>> 8) & 255, n & 255) : out.push(n & 255, (n >>> 8) & 255));
  const u32 = (n: number) => (be ? out.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255) : out.push(n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255));
  out.push(...latin1(be ? 'MM' : 'II'));
  u16(42);
  u32(8);
  const ifd = (list: Entry[], next: number) => {
    u16(list.length);
    for (const e of list) {
      u16(e.tag);
      u16(e.type);
      u32(e.count);
      if (e.type === 3) (u16(e.value), u16(0));
      else u32(e.value);
    }
    u32(next);
  };
  const ifd1At = 8 + 2 + entries.length * 12 + 4;
  ifd(entries, opts.ifd1 ? ifd1At : 0);
  if (opts.ifd1) ifd(opts.ifd1, 0);
  return new Uint8Array(out);
}

const ORIENTATION = 0x0112;
const orientation = (value: number, type = 3, count = 1): Entry => ({ tag: ORIENTATION, type, count, value });
const SOFTWARE: Entry = { tag: 0x0131, type: 2, count: 4, value: 0x00746f6e }; // "not" inline... any bytes

function app1(payload: Uint8Array): Uint8Array {
  const n = payload.length + 2;
  return concat(new Uint8Array([0xff, 0xe1, n >> 8, n & 255]), payload);
}

let base: Uint8Array | undefined;
async function plainJpeg(): Promise<Uint8Array> {
  base ??= new Uint8Array(await sharp({ create: { width: 16, height: 8, channels: 3, background: '#468' } }).jpeg().toBuffer());
  return base;
}

/** The plain JPEG with `segments` right after its SOI. */
async function jpeg(...segments: Uint8Array[]): Promise<Uint8Array> {
  const b = await plainJpeg();
  return concat(b.subarray(0, 2), ...segments, b.subarray(2));
}
const exif = (block: Uint8Array) => app1(concat(latin1('Exif\0\0'), block));

describe('a JPEG', () => {
  it('no Exif APP1 before the image data: 1, as libvips reads it', async () => {
    const bytes = await jpeg();
    expect(exifOrientation(bytes, 'image/jpeg')).toBe(1);
    expect((await readPixelHeader(bytes)).orientation).toBe(1);
    // An APP1 that is XMP, not Exif, changes nothing.
    const xmp = await jpeg(app1(latin1('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>')));
    expect(exifOrientation(xmp, 'image/jpeg')).toBe(1);
  });

  it('one Orientation SHORT in IFD0, 1 to 8, in either byte order: that value, as sharp reads it', async () => {
    for (const bigEndian of [false, true]) {
      for (let v = 1; v <= 8; v++) {
        const bytes = await jpeg(exif(tiff([SOFTWARE, orientation(v)], { bigEndian })));
        expect(exifOrientation(bytes, 'image/jpeg'), `${v} ${bigEndian ? 'MM' : 'II'}`).toBe(v);
        expect((await readPixelHeader(bytes)).orientation).toBe(v);
      }
    }
  });

  it('EXIF without an Orientation tag (in IFD0; one in IFD1 is the thumbnail\'s): left to libvips', async () => {
    const none = await jpeg(exif(tiff([SOFTWARE])));
    expect(exifOrientation(none, 'image/jpeg')).toBeUndefined();
    expect((await readPixelHeader(none)).orientation).toBe(1);
    const thumbnail = await jpeg(exif(tiff([SOFTWARE], { ifd1: [orientation(6)] })));
    expect(exifOrientation(thumbnail, 'image/jpeg')).toBeUndefined();
    const empty = await jpeg(exif(tiff([])));
    expect(exifOrientation(empty, 'image/jpeg')).toBeUndefined();
  });

  it('an Orientation of another type, count or value: left to libvips', async () => {
    for (const [entry, what] of [
      [orientation(6, 4), 'LONG'],
      [orientation(6, 8), 'SSHORT'],
      [orientation(6, 3, 2), 'two values'],
      [orientation(6, 3, 0), 'no value'],
      [orientation(0), '0'],
      [orientation(9), '9'],
      [orientation(0x0106), '0x0106 (6 in the wrong half)'],
    ] as const) {
      expect(exifOrientation(await jpeg(exif(tiff([entry]))), 'image/jpeg'), what).toBeUndefined();
    }
  });

  it('two Exif APP1 segments, or a damaged TIFF block: left to libvips', async () => {
    const one = exif(tiff([orientation(6)]));
    expect(exifOrientation(await jpeg(one, one), 'image/jpeg')).toBeUndefined();
    expect(exifOrientation(await jpeg(one, exif(tiff([orientation(3)]))), 'image/jpeg')).toBeUndefined();
    // Byte order mark that is neither II nor MM; IFD0 past the end.
    expect(exifOrientation(await jpeg(exif(concat(latin1('XX'), tiff([orientation(6)]).subarray(2)))), 'image/jpeg')).toBeUndefined();
    const far = tiff([orientation(6)]);
    far[4] = 0xff;
    expect(exifOrientation(await jpeg(exif(far)), 'image/jpeg')).toBeUndefined();
    expect(exifOrientation(await jpeg(exif(new Uint8Array(0))), 'image/jpeg')).toBeUndefined();
  });
});

describe('what is not an Exif APP1 segment', () => {
  it('an Exif header in another APPn segment (APP2 here) is not counted: the one APP1 answers', async () => {
    const app2 = (payload: Uint8Array) => concat(new Uint8Array([0xff, 0xe2, (payload.length + 2) >> 8, (payload.length + 2) & 255]), payload);
    const bytes = await jpeg(app2(concat(latin1('Exif\0\0'), tiff([orientation(3)]))), exif(tiff([orientation(6)])));
    expect(exifOrientation(bytes, 'image/jpeg')).toBe(6);
  });
});

describe('a PNG', () => {
  const IEND = pngChunk('IEND', new Uint8Array(0));
  let plain: Uint8Array | undefined;
  /** A PNG with `before` after its IHDR and `after` after its IDAT. */
  async function png(before: Uint8Array[] = [], after: Uint8Array[] = []): Promise<Uint8Array> {
    plain ??= new Uint8Array(await sharp({ create: { width: 16, height: 8, channels: 3, background: '#468' } }).png().toBuffer());
    const ihdrEnd = 8 + 25;
    const iendAt = plain.length - 12;
    return concat(plain.subarray(0, ihdrEnd), ...before, plain.subarray(ihdrEnd, iendAt), ...after, IEND);
  }
  const exifBlock = tiff([orientation(6)]);

  it('without an eXIf chunk or an ImageMagick EXIF text chunk, read up to IEND: 1', async () => {
    const bytes = await png([tEXt('Comment', 'Raw profile type exif is not this keyword'), tEXt('Software', 'x')]);
    expect(exifOrientation(bytes, 'image/png')).toBe(1);
    expect((await readPixelHeader(bytes)).orientation).toBe(1);
  });

  it('an eXIf chunk, before or after the image data: left to libvips', async () => {
    const before = await png([pngChunk('eXIf', exifBlock)]);
    expect(exifOrientation(before, 'image/png')).toBeUndefined();
    expect((await readPixelHeader(before)).orientation).toBe(6);
    // After IDAT: libpng reads it when it reads that far, so this reader does not answer 1.
    expect(exifOrientation(await png([], [pngChunk('eXIf', exifBlock)]), 'image/png')).toBeUndefined();
  });

  it('a tEXt, zTXt or iTXt "Raw profile type exif": left to libvips', async () => {
    const hex = `\nexif\n${6 + exifBlock.length}\n${Buffer.from(concat(latin1('Exif\0\0'), exifBlock)).toString('hex')}\n`;
    for (const chunk of [tEXt('Raw profile type exif', hex), zTXt('Raw profile type exif', hex), iTXt('Raw profile type exif', hex)]) {
      expect(exifOrientation(await png([chunk]), 'image/png')).toBeUndefined();
    }
  });

  it('a private chunk that holds the same words is no EXIF (only tEXt, zTXt and iTXt are read so)', async () => {
    const hex = `\nexif\n${6 + exifBlock.length}\n${Buffer.from(concat(latin1('Exif\0\0'), exifBlock)).toString('hex')}\n`;
    const privateChunk = pngChunk('prVt', concat(latin1('Raw profile type exif\0'), latin1(hex)));
    expect(exifOrientation(await png([privateChunk]), 'image/png')).toBe(1);
  });

  it('a PNG that ends before IEND is not vouched for', async () => {
    const bytes = await png();
    // Cut in IEND's CRC: its type was read, which is all the walk needs.
    expect(exifOrientation(bytes.subarray(0, bytes.length - 4), 'image/png')).toBe(1);
    expect(exifOrientation(bytes.subarray(0, bytes.length - 12), 'image/png')).toBeUndefined();
    expect(exifOrientation(bytes.subarray(0, bytes.length - 5), 'image/png')).toBeUndefined();
  });
});

describe('other types', () => {
  it('WebP, GIF and a JPEG given as another type: undefined', async () => {
    const webp = new Uint8Array(await sharp({ create: { width: 16, height: 8, channels: 3, background: '#468' } }).webp().toBuffer());
    expect(exifOrientation(webp, 'image/webp')).toBeUndefined();
    expect(exifOrientation(await jpeg(), 'image/gif')).toBeUndefined();
    expect(exifOrientation(await jpeg(), 'image/png')).toBeUndefined();
    // A PNG's bytes under another type are not walked as a PNG.
    const png = new Uint8Array(await sharp({ create: { width: 16, height: 8, channels: 3, background: '#468' } }).png().toBuffer());
    expect(exifOrientation(png, 'image/png')).toBe(1);
    expect(exifOrientation(png, 'image/gif')).toBeUndefined();
  });
});
