// pictureSize (src/media/picture-size.ts): the stored size read from the header bytes, held to
// sharp's own reading of the same files in every form it reads, and undefined for anything else.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pictureSize } from '../src/media/picture-size.js';

const SIZES: [number, number][] = [[1, 1], [255, 257], [640, 480], [2049, 2048], [16383, 3]];

async function encodings(width: number, height: number): Promise<[string, string, Buffer][]> {
  const image = () => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 40 } } });
  return [
    ['png', 'image/png', await image().png().toBuffer()],
    ['jpeg baseline', 'image/jpeg', await image().jpeg().toBuffer()],
    ['jpeg progressive', 'image/jpeg', await image().jpeg({ progressive: true }).toBuffer()],
    ['webp lossy', 'image/webp', await image().webp().toBuffer()],
    ['webp lossless', 'image/webp', await image().webp({ lossless: true }).toBuffer()],
    ['webp with alpha (VP8X)', 'image/webp', await image().ensureAlpha(0.5).webp().toBuffer()],
  ];
}

describe('pictureSize', () => {
  it.each(SIZES)('%i x %i: the size sharp reads, in every form', async (width, height) => {
    for (const [form, type, bytes] of await encodings(width, height)) {
      const meta = await sharp(bytes).metadata();
      expect(pictureSize(new Uint8Array(bytes), type), form).toEqual({ width: meta.width, height: meta.height });
      expect(meta).toMatchObject({ width, height });
    }
  });

  it('a JPEG with EXIF before its frame header, and one with an orientation: the stored size', async () => {
    const bytes = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#345' } }).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    expect(pictureSize(new Uint8Array(bytes), 'image/jpeg')).toEqual({ width: 300, height: 200 });
  });

  it('undefined for what it does not read: cut headers, other types, zero sizes', async () => {
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).png().toBuffer();
    expect(pictureSize(new Uint8Array(png.subarray(0, 20)), 'image/png')).toBeUndefined();
    expect(pictureSize(new Uint8Array(png), 'image/gif')).toBeUndefined();
    const zero = new Uint8Array(png);
    zero.fill(0, 16, 20); // width 0
    expect(pictureSize(zero, 'image/png')).toBeUndefined();
    expect(pictureSize(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg')).toBeUndefined();
    expect(pictureSize(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 nothing here at all'), 'image/webp')).toBeUndefined();
  });
});

// Each header form refused for what it is not (issue 40, item 23: the held-out mutation run left
// every one of these checks unpinned). A refusal here sends the file to sharp, which reads every
// form and refuses damage; a wrong size here would answer "too small" or "too large" instead.
describe('pictureSize refuses what is not the plain form', () => {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Uint8Array) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  /** A PNG signature and an IHDR chunk (its CRC right unless told), then `rest`. */
  function png(width: number, height: number, opts: { length?: number; name?: string; badCrc?: boolean; rest?: number[] } = {}): Uint8Array {
    const body = [...new TextEncoder().encode(opts.name ?? 'IHDR'), ...be32(width), ...be32(height), 8, 2, 0, 0, 0];
    const sum = crc(new Uint8Array(body)) ^ (opts.badCrc ? 1 : 0);
    return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...be32(opts.length ?? 13), ...body, ...be32(sum >>> 0), ...(opts.rest ?? [])]);
  }

  it('PNG: the IHDR read only when it is whole, 13 bytes long, named IHDR and its CRC matches', () => {
    expect(pictureSize(png(300, 200), 'image/png')).toEqual({ width: 300, height: 200 });
    // 33 bytes exactly is enough (signature, IHDR and its CRC); one byte less is not.
    expect(png(300, 200).length).toBe(33);
    expect(pictureSize(png(300, 200).subarray(0, 32), 'image/png')).toBeUndefined();
    expect(pictureSize(png(300, 200, { length: 14 }), 'image/png')).toBeUndefined();
    expect(pictureSize(png(300, 200, { name: 'IHDX' }), 'image/png')).toBeUndefined();
    expect(pictureSize(png(300, 200, { badCrc: true }), 'image/png')).toBeUndefined();
    // Sizes past 2^31 are read unsigned.
    expect(pictureSize(png(0x80000001, 0xfffffffe), 'image/png')).toEqual({ width: 0x80000001, height: 0xfffffffe });
  });

  it('PNG: a zero width or height with a right CRC is no size (damage, which sharp reports), not a tiny picture', () => {
    expect(pictureSize(png(0, 200), 'image/png')).toBeUndefined();
    expect(pictureSize(png(300, 0), 'image/png')).toBeUndefined();
    expect(pictureSize(png(1, 1), 'image/png')).toEqual({ width: 1, height: 1 });
  });

  it('JPEG: a frame header of fewer than 5 bytes is no size', () => {
    const jpeg = (sof: number[]) => new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0, sof.length + 2, ...sof, 0xff, 0xd9]);
    expect(pictureSize(jpeg([8, 0x01, 0x2c, 0x00, 0xc8]), 'image/jpeg')).toEqual({ width: 200, height: 300 });
    expect(pictureSize(jpeg([8, 0x01, 0x2c, 0x00]), 'image/jpeg')).toBeUndefined();
    expect(pictureSize(jpeg([8, 0x01, 0x2c, 0x00, 0xc8, 3]), 'image/jpeg')).toEqual({ width: 200, height: 300 });
  });

  it('WebP: RIFF....WEBP at least 30 bytes, VP8L only with its signature byte, VP8 only with its start code', async () => {
    const riff = (chunk: string, data: number[]) => {
      const body = [...new TextEncoder().encode(chunk), data.length, 0, 0, 0, ...data];
      return new Uint8Array([...new TextEncoder().encode('RIFF'), ...[body.length + 4, 0, 0, 0], ...new TextEncoder().encode('WEBP'), ...body]);
    };
    // VP8X: flags (4), width - 1 and height - 1 (24 bits each, little-endian).
    const vp8x = [0, 0, 0, 0, 0x2b, 0x01, 0, 0xc7, 0, 0];
    expect(pictureSize(riff('VP8X', vp8x), 'image/webp')).toEqual({ width: 300, height: 200 });
    expect(riff('VP8X', vp8x).length).toBe(30);
    expect(pictureSize(riff('VP8X', vp8x).subarray(0, 29), 'image/webp')).toBeUndefined();
    const notRiff = riff('VP8X', vp8x);
    notRiff[3] = 0x58; // RIFX
    expect(pictureSize(notRiff, 'image/webp')).toBeUndefined();
    const notWebp = riff('VP8X', vp8x);
    notWebp[11] = 0x51; // WEBQ
    expect(pictureSize(notWebp, 'image/webp')).toBeUndefined();
    // VP8L: 0x2f, then 14 bits of width - 1 and 14 of height - 1.
    const bits = (299 | (199 << 14)) >>> 0;
    const vp8l = [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255, 0, 0, 0, 0, 0];
    expect(pictureSize(riff('VP8L', vp8l), 'image/webp')).toEqual({ width: 300, height: 200 });
    expect(pictureSize(riff('VP8L', [0x2e, ...vp8l.slice(1)]), 'image/webp')).toBeUndefined();
    // The top bits of the 32 (alpha hint, version) are not the height's.
    const high = (299 | (199 << 14) | (7 << 28)) >>> 0;
    expect(pictureSize(riff('VP8L', [0x2f, high & 255, (high >>> 8) & 255, (high >>> 16) & 255, (high >>> 24) & 255, 0, 0, 0, 0, 0]), 'image/webp')).toEqual({ width: 300, height: 200 });
    // VP8: a key frame's tag (3), 9d 01 2a, 14-bit width and height (the top 2 bits are the scale).
    const vp8 = [0x50, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x2c, 0x41, 0xc8, 0xc0];
    expect(pictureSize(riff('VP8 ', vp8), 'image/webp')).toEqual({ width: 300, height: 200 });
    for (const at of [3, 4, 5]) {
      const broken = [...vp8];
      broken[at] = 0;
      expect(pictureSize(riff('VP8 ', broken), 'image/webp'), `start code byte ${at}`).toBeUndefined();
    }
    expect(pictureSize(riff('ALPH', vp8), 'image/webp')).toBeUndefined();
    // A VP8 chunk is read as VP8 even when its first byte is VP8L's signature (0x2f).
    expect(pictureSize(riff('VP8 ', [0x2f, ...vp8.slice(1)]), 'image/webp')).toEqual({ width: 300, height: 200 });
  });

  it('each form is read only under its own type', async () => {
    const bytes = png(300, 200);
    expect(pictureSize(bytes, 'image/webp')).toBeUndefined();
    expect(pictureSize(bytes, 'image/jpeg')).toBeUndefined();
    expect(pictureSize(bytes, 'image/avif')).toBeUndefined();
    const webp = new Uint8Array(await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123' } }).webp().toBuffer());
    expect(pictureSize(webp, 'image/png')).toBeUndefined();
    expect(pictureSize(webp, 'image/gif')).toBeUndefined();
    expect(pictureSize(webp, 'image/webp')).toEqual({ width: 40, height: 30 });
  });
});

describe('what the invisible_watermark check answers for a zero-sized PNG', () => {
  it('damaged (unavailable), not "too small": the header is left to the decoder, which refuses it', async () => {
    const { invisibleWatermark } = await import('../src/detectors/invisible-watermark.js');
    const good = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#456' } }).png().toBuffer();
    for (const [at, name] of [[16, 'width'], [20, 'height']] as const) {
      const bytes = new Uint8Array(good);
      bytes.fill(0, at, at + 4);
      // The IHDR's CRC made right again, so that only the zero tells it apart.
      const crcTable = Array.from({ length: 256 }, (_, n) => {
        let c = n;
        for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
        return c >>> 0;
      });
      let c = 0xffffffff;
      for (const x of bytes.subarray(12, 29)) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
      new DataView(bytes.buffer).setUint32(29, (c ^ 0xffffffff) >>> 0);
      const outcome = await invisibleWatermark.run({ bytes, type: 'image/png', sha256: '' });
      expect(outcome.result, name).toBe('unavailable');
      expect(outcome.reason, name).toMatch(/damaged/);
      expect(outcome.reason, name).not.toMatch(/small/);
    }
  });
});
