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
