// Builders for the files image generators write, made in memory for the generator_metadata tests:
// PNGs with text chunks (tEXt, zTXt, iTXt; before or after the image data) and exact pixels
// (our own encoder, so a pixel's value is known to the bit), TIFF/EXIF blocks with any tag in
// either byte order, JPEGs and WebPs carrying them, and payloads written into the alpha channel's
// least significant bits the way NovelAI's stealth_pngcomp does.
import { deflateSync, gzipSync } from 'node:zlib';
import { concat, crc32, tinyJpeg } from '../fixtures/make.js';

const enc = new TextEncoder();
const latin1 = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));

function u32be(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}
function u32le(n: number): Uint8Array {
  return new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]);
}

// ---------------------------------------------------------------------------------------------
// PNG

export const PNG_SIG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const td = concat(latin1(type), data);
  return concat(u32be(data.length), td, u32be(crc32(td)));
}

export function tEXt(keyword: string, text: string): Uint8Array {
  return pngChunk('tEXt', concat(latin1(keyword), new Uint8Array([0]), latin1(text)));
}

/** A tEXt chunk whose value is raw bytes (UTF-8 where the spec says Latin-1, stray NULs...). */
export function tEXtBytes(keyword: string, value: Uint8Array): Uint8Array {
  return pngChunk('tEXt', concat(latin1(keyword), new Uint8Array([0]), value));
}

export function zTXt(keyword: string, value: string | Uint8Array): Uint8Array {
  const raw = typeof value === 'string' ? latin1(value) : value;
  return pngChunk('zTXt', concat(latin1(keyword), new Uint8Array([0, 0]), deflateSync(raw)));
}

export function iTXt(keyword: string, text: string, compressed = false): Uint8Array {
  const body = compressed ? deflateSync(enc.encode(text)) : enc.encode(text);
  return pngChunk('iTXt', concat(latin1(keyword), new Uint8Array([0, compressed ? 1 : 0, 0]), latin1('en'), new Uint8Array([0]), new Uint8Array([0]), body));
}

export interface PngPixels {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Uint8Array;
}

/** Pixels of a smooth pattern (deterministic), RGB or RGBA with opaque alpha. */
export function patternPixels(width: number, height: number, channels: 3 | 4): PngPixels {
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      data[i] = (x * 7 + y * 3) & 0xff;
      data[i + 1] = (x * 2 + y * 11) & 0xff;
      data[i + 2] = (x * 13 + y) & 0xff;
      if (channels === 4) data[i + 3] = 255;
    }
  }
  return { width, height, channels, data };
}

/**
 * A PNG of `pixels` (8-bit RGB or RGBA, filter 0), with `before` chunks between IHDR and IDAT
 * and `after` chunks between IDAT and IEND.
 */
export function makePng(pixels: PngPixels, opts: { before?: Uint8Array[]; after?: Uint8Array[] } = {}): Uint8Array {
  const { width, height, channels, data } = pixels;
  const stride = width * channels;
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) raw.set(data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const ihdr = concat(u32be(width), u32be(height), new Uint8Array([8, channels === 4 ? 6 : 2, 0, 0, 0]));
  return concat(
    PNG_SIG,
    pngChunk('IHDR', ihdr),
    ...(opts.before ?? []),
    pngChunk('IDAT', deflateSync(raw)),
    ...(opts.after ?? []),
    pngChunk('IEND', new Uint8Array(0)),
  );
}

/** A 4x4 RGB PNG carrying `chunks` before its image data. */
export function pngWithText(...chunks: Uint8Array[]): Uint8Array {
  return makePng(patternPixels(4, 4, 3), { before: chunks });
}

// ---------------------------------------------------------------------------------------------
// Alpha-channel LSB payloads (NovelAI nai_meta.py / sd-webui-stealth-pnginfo layout)

/** Bits in column-major order (x outer, y inner), MSB first, into the alpha LSBs of `pixels`. */
export function writeAlphaBits(pixels: PngPixels, bytes: Uint8Array): void {
  const { width, height, data } = pixels;
  if (bytes.length * 8 > width * height) throw new Error('payload larger than the picture');
  for (let i = 0; i < bytes.length * 8; i++) {
    const bit = (bytes[i >> 3]! >> (7 - (i & 7))) & 1;
    const x = Math.floor(i / height);
    const y = i % height;
    const at = (y * width + x) * 4 + 3;
    data[at] = (data[at]! & 0xfe) | bit;
  }
}

/** magic + 32-bit length in bits + payload (gzip for the "comp" magics). */
export function stealthBytes(magic: string, payload: Uint8Array, claimedBits?: number): Uint8Array {
  const body = magic.endsWith('comp') ? gzipSync(payload) : payload;
  return concat(latin1(magic), u32be(claimedBits ?? body.length * 8), body);
}

// ---------------------------------------------------------------------------------------------
// TIFF / EXIF

export interface Tag {
  tag: number;
  /** 2 ASCII (a string gets its NUL), 7 UNDEFINED, 4 LONG (a pointer, filled in). */
  type: 2 | 7 | 4;
  value: string | Uint8Array | number;
}

/**
 * A TIFF block: IFD0 with `ifd0` tags, and an Exif IFD (pointed to by tag 0x8769) with `exif`
 * tags when given. Values are laid out after the IFDs.
 */
export function tiffBlock(opts: { ifd0: Tag[]; exif?: Tag[]; bigEndian?: boolean }): Uint8Array {
  const be = opts.bigEndian ?? false;
  const u16 = (n: number) => (be ? new Uint8Array([(n >>> 8) & 0xff, n & 0xff]) : new Uint8Array([n & 0xff, (n >>> 8) & 0xff]));
  const u32 = (n: number) => (be ? u32be(n) : u32le(n));
  const ifd0Tags = [...opts.ifd0];
  if (opts.exif) ifd0Tags.push({ tag: 0x8769, type: 4, value: 0 });
  ifd0Tags.sort((a, b) => a.tag - b.tag);
  const ifdSize = (n: number) => 2 + n * 12 + 4;
  const ifd0At = 8;
  const exifAt = ifd0At + ifdSize(ifd0Tags.length);
  let dataAt = exifAt + (opts.exif ? ifdSize(opts.exif.length) : 0);
  const data: Uint8Array[] = [];
  const bytesOf = (t: Tag) => (typeof t.value === 'string' ? concat(enc.encode(t.value), new Uint8Array([0])) : (t.value as Uint8Array));
  const ifd = (tags: Tag[]) => {
    const parts: Uint8Array[] = [u16(tags.length)];
    for (const t of tags) {
      if (t.type === 4) {
        parts.push(u16(t.tag), u16(4), u32(1), u32(t.tag === 0x8769 ? exifAt : (t.value as number)));
        continue;
      }
      const v = bytesOf(t);
      let field: Uint8Array;
      if (v.length <= 4) field = concat(v, new Uint8Array(4 - v.length));
      else {
        field = u32(dataAt);
        data.push(v);
        dataAt += v.length;
      }
      parts.push(u16(t.tag), u16(t.type), u32(v.length), field);
    }
    parts.push(u32(0));
    return concat(...parts);
  };
  const head = concat(be ? latin1('MM') : latin1('II'), u16(42), u32(ifd0At));
  const first = ifd(ifd0Tags);
  const second = opts.exif ? ifd(opts.exif) : new Uint8Array(0);
  return concat(head, first, second, ...data);
}

/** A UserComment value: the 8-byte charset prefix, then the text in that charset. */
export function userComment(text: string, charset: 'ascii' | 'utf16le' | 'utf16be'): Uint8Array {
  if (charset === 'ascii') return concat(latin1('ASCII\0\0\0'), enc.encode(text));
  const le = Buffer.from(text, 'utf16le');
  if (charset === 'utf16be') le.swap16();
  return concat(latin1('UNICODE\0'), new Uint8Array(le));
}

/** A small JPEG with `tiff` as its Exif APP1 segment and `xmp` as an XMP APP1 segment. */
export function jpegWith(opts: { tiff?: Uint8Array; xmp?: string }): Uint8Array {
  const base = tinyJpeg(opts.tiff ? { exif: concat(latin1('Exif\0\0'), opts.tiff) } : {});
  if (!opts.xmp) return base;
  const payload = concat(latin1('http://ns.adobe.com/xap/1.0/\0'), enc.encode(opts.xmp));
  const segment = concat(new Uint8Array([0xff, 0xe1, ((payload.length + 2) >> 8) & 0xff, (payload.length + 2) & 0xff]), payload);
  return concat(base.subarray(0, 2), segment, base.subarray(2));
}

/** An XMP packet with `body` (attributes and elements) on its rdf:Description. */
export function xmpPacket(namespaces: Record<string, string>, attributes: string, elements = ''): string {
  const xmlns = Object.entries(namespaces)
    .map(([p, uri]) => ` xmlns:${p}="${uri}"`)
    .join('');
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""${xmlns} ${attributes}>${elements}</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

// ---------------------------------------------------------------------------------------------
// WebP

function riffChunk(type: string, data: Uint8Array): Uint8Array {
  const pad = data.length & 1 ? new Uint8Array(1) : new Uint8Array(0);
  return concat(latin1(type), u32le(data.length), data, pad);
}

/** The chunks after "RIFF....WEBP" of a WebP file. */
function webpChunks(webp: Uint8Array): { type: string; data: Uint8Array }[] {
  const out: { type: string; data: Uint8Array }[] = [];
  let p = 12;
  while (p + 8 <= webp.length) {
    const size = webp[p + 4]! | (webp[p + 5]! << 8) | (webp[p + 6]! << 16) | (webp[p + 7]! << 24);
    out.push({ type: Buffer.from(webp.subarray(p, p + 4)).toString('latin1'), data: webp.subarray(p + 8, p + 8 + size) });
    p += 8 + size + (size & 1);
  }
  return out;
}

/**
 * An extended WebP: VP8X (with the alpha and EXIF flags as they apply), the image chunks of
 * `image` (a simple WebP, e.g. from sharp), then an EXIF chunk holding `tiff`.
 */
export function webpWith(image: Uint8Array, width: number, height: number, opts: { tiff?: Uint8Array; alpha?: boolean }): Uint8Array {
  const chunks = webpChunks(image).filter((c) => c.type !== 'VP8X' && c.type !== 'EXIF' && c.type !== 'XMP ');
  const flags = (opts.alpha ? 0x10 : 0) | (opts.tiff ? 0x08 : 0);
  const u24 = (n: number) => new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff]);
  const vp8x = concat(new Uint8Array([flags, 0, 0, 0]), u24(width - 1), u24(height - 1));
  const body = concat(
    latin1('WEBP'),
    riffChunk('VP8X', vp8x),
    ...chunks.map((c) => riffChunk(c.type, c.data)),
    ...(opts.tiff ? [riffChunk('EXIF', opts.tiff)] : []),
  );
  return concat(latin1('RIFF'), u32le(body.length), body);
}

// ---------------------------------------------------------------------------------------------
// Records as the writing tools lay them out (each builder cites the writer's code)

/** One (key, value) of an AUTOMATIC1111-style settings line, `None` values left out as writers do. */
export type Setting = [string, string | number | undefined];

/**
 * An AUTOMATIC1111-style infotext: prompt, "Negative prompt:" line, then the settings joined by
 * ", " with `key: value` (AUTOMATIC1111 modules/processing.py create_infotext; SD.Next
 * modules/processing.py and processing_info.py create_infotext write the same layout).
 */
export function infotext(prompt: string, negative: string, settings: Setting[]): string {
  const line = settings
    .filter((s): s is [string, string | number] => s[1] !== undefined)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  return `${prompt}\nNegative prompt: ${negative}\n${line}`;
}

/** Python's json.dumps with its default separators (", ", ": "), as Pillow-era writers call it. */
export function pyJsonDumps(value: unknown): string {
  return JSON.stringify(value).replace(/("(?:[^"\\]|\\.)*")|([,:])/g, (m, str: string | undefined, sep: string | undefined) =>
    str !== undefined ? str : sep === ',' ? ', ' : ': ',
  );
}

/**
 * A UserComment as Pillow's Image.Exif writes a `str` value (ExtendedImageFormats, FooocusPlus):
 * ASCII type, no character-code prefix, NUL-terminated (tiffBlock adds the NUL).
 */
export function pillowText(tag: number, text: string): Tag {
  return { tag, type: 2, value: text };
}
