// webp-chunks.ts on its own: WebP files laid out here by the RIFF container spec (Google's "WebP
// Container Specification": 'RIFF', a little-endian size of what follows, 'WEBP', chunks of
// FourCC, little-endian size and data padded to an even length; VP8X's alpha flag is bit 4 of its
// first byte; a VP8L bitstream starts 0x2f, then 14 bits width - 1, 14 bits height - 1 and the
// alpha_is_used bit).
import { describe, expect, it } from 'vitest';
import { isWebp, readWebpChunks } from '../src/media/webp-chunks.js';

function chunk(fourcc: string, data: Uint8Array | string = new Uint8Array(0)): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data);
  const head = Buffer.alloc(8);
  head.write(fourcc, 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, Buffer.alloc(body.length & 1)]);
}

/** A WebP file of these chunks; `riffSize` overrides the RIFF header's size. */
function webp(chunks: Uint8Array[], riffSize?: number): Buffer {
  const body = Buffer.concat([Buffer.from('WEBP'), ...chunks]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(riffSize ?? body.length, 4);
  return Buffer.concat([head, body]);
}

/** A VP8L header: signature, then (width - 1) | (height - 1) << 14 | alpha << 28, version 0. */
function vp8l(width: number, height: number, alpha: boolean): Buffer {
  const b = Buffer.alloc(5);
  b[0] = 0x2f;
  b.writeUInt32LE(((width - 1) | ((height - 1) << 14) | ((alpha ? 1 : 0) << 28)) >>> 0, 1);
  return b;
}

const VP8 = chunk('VP8 ', Buffer.alloc(10, 0x9d));
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('latin1'));

describe('isWebp', () => {
  it("'RIFF' at 0 and 'WEBP' at 8", () => {
    expect(isWebp(webp([VP8]))).toBe(true);
    expect(isWebp(Buffer.from('RIFF\0\0\0\0WEBX'))).toBe(false);
    expect(isWebp(Buffer.from('RIFX\0\0\0\0WEBP'))).toBe(false);
    expect(isWebp(Buffer.from('RIFF\0\0\0\0WEB'))).toBe(false);
    expect(readWebpChunks(Buffer.from('RIFF\0\0\0\0WAVE'))).toBeUndefined();
  });
});

describe('readWebpChunks', () => {
  it('the first EXIF chunk without its "Exif\\0\\0" prefix, the first XMP chunk', () => {
    const out = readWebpChunks(webp([chunk('VP8X', Buffer.alloc(10)), VP8, chunk('EXIF', 'Exif\0\0II*\0a'), chunk('EXIF', 'II*\0b'), chunk('XMP ', '<x:xmpmeta/>'), chunk('XMP ', '<second/>')]))!;
    expect(text(out.exif)).toBe('II*\0a');
    expect(text(out.xmp)).toBe('<x:xmpmeta/>');
    expect(out).toMatchObject({ hasAlpha: false });
    expect(out.damage).toBeUndefined();
    expect(text(readWebpChunks(webp([VP8, chunk('EXIF', 'MM\0*c')]))!.exif)).toBe('MM\0*c');
    expect(text(readWebpChunks(webp([VP8, chunk('EXIF', 'Exif\0')]))!.exif)).toBe('Exif\0');
    expect(readWebpChunks(webp([VP8]))).toEqual({ hasAlpha: false });
  });

  it('alpha: the VP8X flag, an ALPH chunk, or a VP8L header that says so', () => {
    const alpha = (...chunks: Uint8Array[]) => readWebpChunks(webp(chunks))!.hasAlpha;
    expect(alpha(chunk('VP8X', Buffer.from([0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0])), VP8)).toBe(true);
    expect(alpha(chunk('VP8X', Buffer.from([0xef, 0, 0, 0, 0, 0, 0, 0, 0, 0])), VP8)).toBe(false); // every other flag
    expect(alpha(chunk('VP8X', Buffer.from([0x10])))).toBe(true);
    expect(alpha(chunk('VP8X'), chunk('ALPH', 'x'), VP8)).toBe(true);
    expect(alpha(chunk('VP8X'), VP8)).toBe(false);
    expect(alpha(chunk('VP8L', vp8l(64, 32, true)))).toBe(true);
    expect(alpha(chunk('VP8L', vp8l(16384, 16384, true)))).toBe(true);
    expect(alpha(chunk('VP8L', vp8l(16384, 16384, false)))).toBe(false);
    expect(alpha(chunk('VP8L', vp8l(1, 1, false)))).toBe(false);
    const badSignature = vp8l(64, 32, true);
    badSignature[0] = 0x2e;
    expect(alpha(chunk('VP8L', badSignature))).toBe(false);
    expect(alpha(chunk('VP8L', vp8l(64, 32, true).subarray(0, 4)))).toBe(false);
    const version1 = vp8l(64, 32, false);
    version1[4] = version1[4]! | 0xe0; // the 3 version bits above alpha_is_used
    expect(alpha(chunk('VP8L', version1))).toBe(false);
  });

  it('steps over the pad byte of an odd-sized chunk', () => {
    const out = readWebpChunks(webp([chunk('ICCP', 'abc'), chunk('EXIF', 'II*\0odd'), chunk('ALPH', 'x'), chunk('XMP ', 'y')]))!;
    expect(out).toMatchObject({ hasAlpha: true });
    expect(text(out.exif)).toBe('II*\0odd');
    expect(text(out.xmp)).toBe('y');
  });

  it('the file wins over the RIFF size: chunks past a short size are not read, a long size is cut at the file', () => {
    const chunks = [VP8, chunk('XMP ', 'x')];
    expect(readWebpChunks(webp(chunks, 4 + VP8.length))).toEqual({ hasAlpha: false });
    // A chunk whose header lies inside the size is read whole from the file.
    expect(text(readWebpChunks(webp(chunks, 4 + VP8.length + 8))!.xmp)).toBe('x');
    expect(readWebpChunks(webp(chunks, 4 + VP8.length + 7))).toEqual({ hasAlpha: false });
    expect(text(readWebpChunks(webp(chunks, 0xffffffff))!.xmp)).toBe('x');
    // Fewer than 8 bytes left is not a chunk, and not damage.
    expect(readWebpChunks(Buffer.concat([webp([VP8, chunk('ALPH')]), Buffer.alloc(7)]))).toEqual({ hasAlpha: true });
    expect(readWebpChunks(Buffer.concat([webp([chunk('ALPH')], 4 + 8 + 7), Buffer.alloc(7)]))).toEqual({ hasAlpha: true });
  });

  it('a chunk past the end of the file is damage; what came before is kept', () => {
    const cut = webp([chunk('ALPH'), chunk('EXIF', 'II*\0abcdef')]).subarray(0, -1);
    expect(readWebpChunks(cut)).toEqual({ hasAlpha: true, damage: 'a chunk runs past the end of the file' });
    const exact = webp([chunk('ALPH'), chunk('EXIF', 'II*\0abcdef')]);
    expect(readWebpChunks(exact)!.damage).toBeUndefined();
    const huge = Buffer.from(chunk('EXIF', 'II*\0'));
    huge.writeUInt32LE(0xfffffff0, 4);
    expect(readWebpChunks(webp([huge]))).toEqual({ hasAlpha: false, damage: 'a chunk runs past the end of the file' });
  });

  it('at most 10,000 chunks', () => {
    const many = (n: number) => webp([...Array.from({ length: n - 1 }, () => chunk('JUNK')), chunk('ALPH')]);
    expect(readWebpChunks(many(10_000))).toEqual({ hasAlpha: true });
    expect(readWebpChunks(many(10_001))).toEqual({ hasAlpha: false, damage: 'it has more than 10000 chunks' });
  });
});
