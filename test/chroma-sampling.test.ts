// chromaSubsampled (src/media/chroma-sampling.ts): whether a lossy file's chroma was stored at a
// lower resolution than its luma, from its header. The invisible_watermark check reads a mark
// through the chroma before upsampling only where the answer is not `false`, so a subsampled file
// read as not subsampled misses marks that lossy re-encoding left readable (issue 40, item 23:
// the held-out mutation run left the WebP with VP8X (any WebP with EXIF, XMP, ICC or alpha), the
// JPEG frames other than 4:2:0 and 4:4:4, and every refusal unpinned).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { invisibleWatermark } from '../src/detectors/invisible-watermark.js';
import { chromaSubsampled } from '../src/media/chroma-sampling.js';
import { embedDwtDct, syntheticPicture } from './helpers/dwt-dct-encoder.js';

const latin1 = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};

/** SOI, a baseline frame header with `components` ([H, V] each; ids 1.., table 0), EOI. */
function jpegFrame(components: [number, number][], opts: { declared?: number; cut?: number } = {}): Uint8Array {
  const body = [8, 0, 16, 0, 16, opts.declared ?? components.length];
  components.forEach(([h, v], k) => body.push(k + 1, (h << 4) | v, 0));
  const kept = body.slice(0, opts.cut ?? body.length);
  const n = kept.length + 2;
  return new Uint8Array([0xff, 0xd8, 0xff, 0xc0, n >> 8, n & 255, ...kept, 0xff, 0xd9]);
}

describe('a JPEG frame header', () => {
  it('what sharp writes: 4:2:0 subsampled, 4:4:4 not', async () => {
    const image = () => sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } });
    expect(chromaSubsampled(new Uint8Array(await image().jpeg({ chromaSubsampling: '4:2:0' }).toBuffer()), 'image/jpeg')).toBe(true);
    expect(chromaSubsampled(new Uint8Array(await image().jpeg({ chromaSubsampling: '4:4:4' }).toBuffer()), 'image/jpeg')).toBe(false);
  });

  it('subsampled when either chroma component has a lower factor than the luma, across or down', () => {
    expect(chromaSubsampled(jpegFrame([[2, 2], [1, 1], [1, 1]]), 'image/jpeg')).toBe(true); // 4:2:0
    expect(chromaSubsampled(jpegFrame([[2, 1], [1, 1], [1, 1]]), 'image/jpeg')).toBe(true); // 4:2:2
    expect(chromaSubsampled(jpegFrame([[1, 2], [1, 1], [1, 1]]), 'image/jpeg')).toBe(true); // 4:4:0
    expect(chromaSubsampled(jpegFrame([[4, 1], [1, 1], [1, 1]]), 'image/jpeg')).toBe(true); // 4:1:1
    // Only the second chroma component lower (Cr alone).
    expect(chromaSubsampled(jpegFrame([[2, 2], [2, 2], [1, 1]]), 'image/jpeg')).toBe(true);
    expect(chromaSubsampled(jpegFrame([[2, 2], [2, 2], [2, 1]]), 'image/jpeg')).toBe(true);
    expect(chromaSubsampled(jpegFrame([[2, 2], [2, 2], [1, 2]]), 'image/jpeg')).toBe(true);
  });

  it('not subsampled when every chroma factor equals the luma\'s; a fourth component (CMYK) is not looked at', () => {
    expect(chromaSubsampled(jpegFrame([[1, 1], [1, 1], [1, 1]]), 'image/jpeg')).toBe(false);
    expect(chromaSubsampled(jpegFrame([[2, 2], [2, 2], [2, 2]]), 'image/jpeg')).toBe(false);
    expect(chromaSubsampled(jpegFrame([[1, 1], [1, 1], [1, 1], [2, 2]]), 'image/jpeg')).toBe(false);
    expect(chromaSubsampled(jpegFrame([[2, 2], [2, 2], [2, 2], [1, 1]]), 'image/jpeg')).toBe(false);
  });

  it('undefined when it does not say: chroma sampled finer than the luma, fewer than 3 components, a cut or short header', () => {
    expect(chromaSubsampled(jpegFrame([[1, 1], [2, 2], [2, 2]]), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[1, 1], [1, 1], [2, 1]]), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[1, 1], [2, 1], [1, 1]]), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[1, 1], [1, 2], [1, 1]]), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[1, 1]]), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[1, 1], [1, 1]]), 'image/jpeg')).toBeUndefined();
    // Three components declared, the last one's bytes missing; the header cut before the count.
    expect(chromaSubsampled(jpegFrame([[2, 2], [1, 1], [1, 1]], { cut: 14 }), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[2, 2], [1, 1], [1, 1]], { cut: 15 }), 'image/jpeg')).toBe(true);
    expect(chromaSubsampled(jpegFrame([[2, 2], [1, 1], [1, 1]], { cut: 5 }), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[2, 2], [1, 1], [1, 1]], { cut: 6 }), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg')).toBeUndefined();
  });
});

/** RIFF....WEBP around `chunks` ([fourcc, data]), each padded to an even size. */
function webp(...chunks: [string, Uint8Array][]): Uint8Array {
  const body = concat(
    ...chunks.map(([fourcc, data]) => {
      const n = data.length;
      return concat(latin1(fourcc), new Uint8Array([n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24]), data, new Uint8Array(n & 1));
    }),
  );
  const n = body.length + 4;
  return concat(latin1('RIFF'), new Uint8Array([n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24]), latin1('WEBP'), body);
}

describe('a WebP', () => {
  const image = (channels: 3 | 4 = 3) => sharp({ create: { width: 64, height: 48, channels, background: { r: 40, g: 80, b: 120, alpha: 0.5 } } });

  it('lossy (VP8) is subsampled and lossless (VP8L) is not, as sharp writes them', async () => {
    expect(chromaSubsampled(new Uint8Array(await image().webp({ quality: 80 }).toBuffer()), 'image/webp')).toBe(true);
    expect(chromaSubsampled(new Uint8Array(await image().webp({ lossless: true }).toBuffer()), 'image/webp')).toBe(false);
  });

  it('lossy behind a VP8X header (EXIF, XMP, an ICC profile, alpha) is subsampled; lossless behind one is not', async () => {
    const files: [string, Buffer, boolean][] = [
      ['EXIF', await image().withExif({ IFD0: { Software: 'x' } }).webp({ quality: 80 }).toBuffer(), true],
      ['XMP', await image().withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>').webp({ quality: 80 }).toBuffer(), true],
      ['ICC', await image().withIccProfile('srgb').webp({ quality: 80 }).toBuffer(), true],
      ['alpha', await image(4).webp({ quality: 80 }).toBuffer(), true],
      ['lossless with EXIF', await image().withExif({ IFD0: { Software: 'x' } }).webp({ lossless: true }).toBuffer(), false],
    ];
    for (const [what, bytes, subsampled] of files) {
      expect(latin1String(bytes.subarray(12, 16)), what).toBe('VP8X');
      expect(chromaSubsampled(new Uint8Array(bytes), 'image/webp'), what).toBe(subsampled);
    }
  });

  it('walks chunks by their sizes, an odd size with its pad byte, to the first image chunk', () => {
    const vp8 = new Uint8Array(10);
    expect(chromaSubsampled(webp(['VP8X', new Uint8Array(10)], ['ICCP', new Uint8Array(7)], ['VP8 ', vp8]), 'image/webp')).toBe(true);
    expect(chromaSubsampled(webp(['VP8X', new Uint8Array(10)], ['ICCP', new Uint8Array(7)], ['VP8L', vp8]), 'image/webp')).toBe(false);
    // The image chunk's own header is enough: 8 bytes after 12.
    expect(chromaSubsampled(webp(['VP8 ', new Uint8Array(0)]), 'image/webp')).toBe(true);
    expect(chromaSubsampled(webp(['VP8L', new Uint8Array(0)]), 'image/webp')).toBe(false);
    // The first image chunk decides.
    expect(chromaSubsampled(webp(['VP8L', vp8], ['VP8 ', vp8]), 'image/webp')).toBe(false);
    expect(chromaSubsampled(webp(['VP8 ', vp8], ['VP8L', vp8]), 'image/webp')).toBe(true);
  });

  it('undefined when it does not say: no image chunk at the top level (animation frames), a size past the end, no RIFF WEBP header', () => {
    const vp8 = new Uint8Array(10);
    expect(chromaSubsampled(webp(['VP8X', new Uint8Array(10)], ['ANIM', new Uint8Array(6)], ['ANMF', new Uint8Array(40)]), 'image/webp')).toBeUndefined();
    const past = webp(['VP8X', new Uint8Array(10)], ['VP8 ', vp8]);
    past[16] = 0xff; // VP8X claims 255 bytes: the walk jumps past the end
    expect(chromaSubsampled(past, 'image/webp')).toBeUndefined();
    const riff = webp(['VP8 ', vp8]);
    for (const at of [0, 3, 8, 11]) {
      const broken = riff.slice();
      broken[at] = 0x3f;
      expect(chromaSubsampled(broken, 'image/webp'), `byte ${at}`).toBeUndefined();
    }
    // Fewer than 20 bytes: no chunk header at all.
    expect(chromaSubsampled(riff.subarray(0, 19), 'image/webp')).toBeUndefined();
    expect(chromaSubsampled(webp(['VP8 ', new Uint8Array(0)]).subarray(0, 20), 'image/webp')).toBe(true);
  });

  it('read within a larger buffer (a subarray at an offset), as the engine hands bytes over', () => {
    const inner = webp(['VP8X', new Uint8Array(10)], ['VP8 ', new Uint8Array(10)]);
    const outer = concat(new Uint8Array(7), inner, new Uint8Array(5));
    expect(chromaSubsampled(outer.subarray(7, 7 + inner.length), 'image/webp')).toBe(true);
  });
});

describe('other types', () => {
  it('PNG and a JPEG given as WebP (or the reverse): undefined', async () => {
    const png = new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#468' } }).png().toBuffer());
    expect(chromaSubsampled(png, 'image/png')).toBeUndefined();
    expect(chromaSubsampled(jpegFrame([[2, 2], [1, 1], [1, 1]]), 'image/webp')).toBeUndefined();
    expect(chromaSubsampled(webp(['VP8 ', new Uint8Array(10)]), 'image/jpeg')).toBeUndefined();
    expect(chromaSubsampled(webp(['VP8 ', new Uint8Array(10)]), 'image/png')).toBeUndefined();
  });
});

describe('what a user sees: a marked lossy WebP with EXIF', () => {
  it('the mark is read through the chroma before upsampling, as without EXIF', async () => {
    const marked = embedDwtDct(syntheticPicture(512, 512, 3), PAYLOAD_BITS.StableDiffusionV1);
    const raw = () => sharp(marked.data, { raw: { width: 512, height: 512, channels: 3 } });
    for (const bytes of [await raw().webp({ quality: 90 }).toBuffer(), await raw().withExif({ IFD0: { Software: 'x' } }).webp({ quality: 90 }).toBuffer()]) {
      const outcome = await invisibleWatermark.run({ bytes: new Uint8Array(bytes), type: 'image/webp', sha256: '0'.repeat(64) }, {});
      expect(outcome).toMatchObject({ result: 'found', watermark: { payload: 'StableDiffusionV1', bits_matched: 136 } });
      expect(outcome.note).toMatch(/before the decoder's upsampling/);
    }
  });
});

function latin1String(b: Uint8Array): string {
  return String.fromCharCode(...b);
}
