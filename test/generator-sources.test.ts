// Where generator records live in each container (generator-sources.ts): the PNG text keywords it
// decodes, the EXIF text fields of JPEG, WebP and a PNG's eXIf chunk, the XMP packet, and the
// damage it reports instead of throwing.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PNG_KEYWORDS, field, readFileFields } from '../src/detectors/generator-sources.js';
import { concat } from './fixtures/make.js';
import { iTXt, jpegWith, makePng, patternPixels, pngChunk, pngWithText, tEXt, tiffBlock, userComment, webpWith, xmpPacket } from './helpers/generator-fixtures.js';

const KEYWORDS = [
  'parameters', 'prompt', 'workflow', 'Comment', 'Software', 'Source', 'Description', 'Author', 'invokeai_metadata',
  'invokeai_graph', 'sd-metadata', 'Dream', 'fooocus_scheme', 'generation_data', 'parameters-json', 'smproj',
];
const XMP = xmpPacket({ photoshop: 'http://ns.adobe.com/photoshop/1.0/' }, 'photoshop:Credit="Made with Google AI"');
// Every EXIF text tag read, as Pillow's Image.Exif writes them into IFD0 (ASCII), UserComment in the Exif IFD.
const TIFF = tiffBlock({
  ifd0: [
    { tag: 0x010e, type: 2, value: 'a description' },
    { tag: 0x010f, type: 2, value: 'a make' },
    { tag: 0x0110, type: 2, value: 'a model' },
    { tag: 0x0131, type: 2, value: 'a software' },
    { tag: 0x927c, type: 7, value: new TextEncoder().encode('fooocus') },
  ],
  exif: [{ tag: 0x9286, type: 7, value: userComment('a comment', 'utf16le') }],
});
const EXIF_FIELDS = [
  { name: 'exif:UserComment', where: 'exif:UserComment', text: 'a comment' },
  { name: 'exif:Model', where: 'exif:Model', text: 'a model' },
  { name: 'exif:Make', where: 'exif:Make', text: 'a make' },
  { name: 'exif:Software', where: 'exif:Software', text: 'a software' },
  { name: 'exif:ImageDescription', where: 'exif:ImageDescription', text: 'a description' },
  { name: 'exif:MakerNote', where: 'exif:MakerNote', text: 'fooocus' },
];
/** A broken EXIF block: IFD0's offset points outside it. */
const BROKEN_TIFF = new Uint8Array([0x49, 0x49, 42, 0, 0xf0, 0xff, 0, 0]);

async function webp(opts: { tiff?: Uint8Array; alpha?: boolean; xmp?: Uint8Array }): Promise<Uint8Array> {
  const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#446688' } }).webp({ lossless: true }).toBuffer();
  const file = webpWith(new Uint8Array(image), 8, 8, opts);
  if (!opts.xmp) return file;
  const pad = new Uint8Array(opts.xmp.length & 1);
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, opts.xmp.length, true);
  const out = concat(file, new TextEncoder().encode('XMP '), size, opts.xmp, pad);
  new DataView(out.buffer, out.byteOffset).setUint32(4, out.length - 8, true);
  return out;
}

describe('PNG', () => {
  it('decodes the generator keywords (and XMP), no others, each with where it was read', () => {
    expect([...PNG_KEYWORDS].sort()).toEqual([...KEYWORDS, 'XML:com.adobe.xmp'].sort());
    const chunks = [...KEYWORDS.map((k) => tEXt(k, `value of ${k}`)), tEXt('Title', 'not read'), iTXt('XML:com.adobe.xmp', XMP)];
    const f = readFileFields(pngWithText(...chunks), 'image/png');
    expect(f.fields).toStrictEqual(KEYWORDS.map((k) => ({ name: k, where: `png:tEXt:${k}`, text: `value of ${k}` })));
    // XMP is not a field: generator-metadata.ts reads its properties.
    expect(f.xmp).toBe(XMP);
    expect(f.alpha).toBe(false);
    expect(f.size).toStrictEqual({ width: 4, height: 4 });
    expect(f.damage).toBeUndefined();
  });

  it('an RGBA picture may hold an alpha payload; its eXIf chunk is read as EXIF', () => {
    const f = readFileFields(makePng(patternPixels(3, 2, 4), { before: [pngChunk('eXIf', TIFF)] }), 'image/png');
    expect(f.alpha).toBe(true);
    expect(f.size).toStrictEqual({ width: 3, height: 2 });
    expect(f.fields).toStrictEqual(EXIF_FIELDS);
    expect(f.userCommentEncoding).toBe('unicode-utf16le');
  });

  it('damage: no signature, or a chunk cut before the image data, blocks; after it, does not', () => {
    expect(readFileFields(new Uint8Array([1, 2, 3]), 'image/png').damage).toStrictEqual({ clause: 'it does not start with the PNG signature', blocking: true });
    const png = pngWithText(tEXt('parameters', 'x'.repeat(100)));
    expect(readFileFields(png.slice(0, 60), 'image/png').damage).toStrictEqual({ clause: 'its "tEXt" chunk\'s length runs past the end of the file', blocking: true });
    const noEnd = readFileFields(png.slice(0, png.length - 12), 'image/png');
    expect(noEnd.damage).toStrictEqual({ clause: 'it ends without an IEND chunk', blocking: false });
    expect(field(noEnd, 'parameters')?.text).toBe('x'.repeat(100));
  });

  it('a broken eXIf block is damage that blocks', () => {
    const f = readFileFields(pngWithText(pngChunk('eXIf', BROKEN_TIFF)), 'image/png');
    expect(f.damage?.blocking).toBe(true);
    expect(f.damage?.clause).toMatch(/^its EXIF block cannot be followed \(.+\)$/);
  });
});

describe('JPEG', () => {
  it('the EXIF text fields and the XMP packet', () => {
    const f = readFileFields(jpegWith({ tiff: TIFF, xmp: XMP }), 'image/jpeg');
    expect(f).toStrictEqual({ fields: EXIF_FIELDS, alpha: false, xmp: XMP, userCommentEncoding: 'unicode-utf16le' });
  });

  it('only the fields present; no EXIF, no fields', () => {
    const tiff = tiffBlock({ ifd0: [{ tag: 0x0131, type: 2, value: 'GIMP 2.10' }] });
    expect(readFileFields(jpegWith({ tiff }), 'image/jpeg').fields).toStrictEqual([{ name: 'exif:Software', where: 'exif:Software', text: 'GIMP 2.10' }]);
    expect(readFileFields(jpegWith({}), 'image/jpeg')).toStrictEqual({ fields: [], alpha: false, xmp: undefined });
    const broken = readFileFields(jpegWith({ tiff: BROKEN_TIFF }), 'image/jpeg');
    expect(broken.fields).toStrictEqual([]);
    expect(broken.damage?.blocking).toBe(true);
  });
});

describe('WebP', () => {
  it('EXIF, XMP and the alpha flag', async () => {
    const f = readFileFields(await webp({ tiff: TIFF, alpha: true, xmp: new TextEncoder().encode(XMP) }), 'image/webp');
    expect(f.fields).toStrictEqual(EXIF_FIELDS);
    expect(f.xmp).toBe(XMP);
    expect(f.alpha).toBe(true);
    expect(f.damage).toBeUndefined();
    expect(readFileFields(await webp({}), 'image/webp')).toStrictEqual({ fields: [], alpha: false });
  });

  it('XMP read up to 2 MiB', async () => {
    const big = new TextEncoder().encode(`${XMP.replace('\uFEFF', '')}${' '.repeat(2 * 1024 * 1024)}`);
    expect(readFileFields(await webp({ xmp: big }), 'image/webp').xmp).toHaveLength(2 * 1024 * 1024);
  });

  it('damage: no RIFF header; a chunk past the end; a broken EXIF block is the damage told first', async () => {
    expect(readFileFields(new Uint8Array(16), 'image/webp').damage).toStrictEqual({ clause: 'it does not start with a RIFF WEBP header', blocking: true });
    const file = await webp({ tiff: TIFF });
    expect(readFileFields(file.slice(0, file.length - 5), 'image/webp').damage).toStrictEqual({ clause: 'a chunk runs past the end of the file', blocking: true });
    const broken = await webp({ tiff: BROKEN_TIFF, xmp: new Uint8Array(100) });
    expect(readFileFields(broken.slice(0, broken.length - 5), 'image/webp').damage?.clause).toMatch(/^its EXIF block/);
  });
});

describe('other types and field()', () => {
  it('a type it does not read gives no fields; field() is the first of a name', () => {
    expect(readFileFields(pngWithText(tEXt('parameters', 'x')), 'image/gif')).toStrictEqual({ fields: [], alpha: false });
    const f = readFileFields(pngWithText(tEXt('Comment', 'first'), tEXt('Comment', 'second')), 'image/png');
    expect(field(f, 'Comment')?.text).toBe('first');
    expect(field(f, 'parameters')).toBeUndefined();
  });
});
