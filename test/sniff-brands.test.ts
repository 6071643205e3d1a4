// Sniffing, pinned brand by brand and box by box (issue 18, "Tests that pin behaviour"): every
// ISO-BMFF brand the catalogue names, the RIFF forms, the box-size forms of the track walk, and
// the quick byte checks on their own (sniffKnownType), since file-type would otherwise give the
// same answer and hide a broken quick path.
import { describe, expect, it } from 'vitest';
import { MAX_FTYP_SCAN, sniffKnownType, sniffMediaType } from '../src/media/sniff.js';
import { concat, tinyJpeg, tinyMp4, tinyPng, tinyTiff } from './fixtures/make.js';

const latin1 = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));
function box(type: string, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(...payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length);
  head.write(type, 4, 'latin1');
  return concat(head, body);
}
/** A box with the 64-bit size form: size field 1, then the real size in 8 bytes. */
function box64(type: string, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(...payload);
  const head = Buffer.alloc(16);
  head.writeUInt32BE(1);
  head.write(type, 4, 'latin1');
  head.writeBigUInt64BE(BigInt(16 + body.length), 8);
  return concat(head, body);
}
/** A box with size field 0: it runs to the end of its parent. */
function box0(type: string, ...payload: Uint8Array[]): Uint8Array {
  const b = Buffer.from(box(type, ...payload));
  b.writeUInt32BE(0);
  return b;
}
const ftyp = (major: string, ...compat: string[]) => box('ftyp', latin1(major + '\0\0\0\0' + compat.join('')));
/** hdlr payload: version/flags, pre_defined, then the 4-character handler type. */
const hdlr = (handler: string) => box('hdlr', new Uint8Array(8), latin1(handler), new Uint8Array(12));
const trak = (handler: string) => box('trak', box('mdia', hdlr(handler)));
const riff = (form: string) => concat(latin1('RIFF'), Uint8Array.from([36, 0, 0, 0]), latin1(form), new Uint8Array(32));
const ISOM = ftyp('isom', 'isom');

describe('ISO-BMFF brands: the major brand decides', () => {
  it.each([
    ['heic', 'image/heic'],
    ['heix', 'image/heic'],
    ['heim', 'image/heic'],
    ['heis', 'image/heic'],
    ['hevc', 'image/heic'],
    ['hevx', 'image/heic'],
    ['hevm', 'image/heic'],
    ['hevs', 'image/heic'],
    ['avif', 'image/avif'],
    ['avis', 'image/avif'],
    ['mif1', 'image/heif'],
    ['msf1', 'image/heif'],
    ['mif2', 'image/heif'],
    ['M4A ', 'audio/mp4'],
    ['M4B ', 'audio/mp4'],
    ['M4P ', 'audio/mp4'],
    ['qt  ', 'video/quicktime'],
  ])('major brand %j -> %s (quick path and full sniff)', async (major, type) => {
    // No moov box and no telling compatible brand: without the brand the answer would be video/mp4.
    const bytes = ftyp(major, 'iso8');
    expect(sniffKnownType(bytes)).toBe(type);
    expect(await sniffMediaType(bytes)).toBe(type);
  });

  it('a HEIF major brand wins over compatible HEIC and AVIF brands', () => {
    expect(sniffKnownType(ftyp('mif1', 'mif1', 'heic'))).toBe('image/heif');
    expect(sniffKnownType(ftyp('msf1', 'msf1', 'hevc'))).toBe('image/heif');
    expect(sniffKnownType(ftyp('heic', 'mif1', 'avif'))).toBe('image/heic');
    expect(sniffKnownType(ftyp('avif', 'mif1', 'heic'))).toBe('image/avif');
  });

  it('when the major brand names no image type, the compatible brands decide: AVIF, then HEIC, then HEIF', () => {
    expect(sniffKnownType(ftyp('isom', 'isom', 'heic'))).toBe('image/heic');
    expect(sniffKnownType(ftyp('zzzz', 'mif1'))).toBe('image/heif');
    expect(sniffKnownType(ftyp('zzzz', 'msf1', 'hevc', 'avis'))).toBe('image/avif');
    expect(sniffKnownType(ftyp('zzzz', 'mif2', 'heix'))).toBe('image/heic');
  });

  it('reads compatible brands only inside the ftyp box, up to its last byte, and within the first 4 KiB', () => {
    // The last brand ends exactly at the end of the box: it counts.
    expect(sniffKnownType(ftyp('isom', 'iso8', 'mp41', 'heic'))).toBe('image/heic');
    // Bytes after the ftyp box that spell a brand are not brands.
    expect(sniffKnownType(concat(ftyp('isom', 'isom'), latin1('heic')))).toBe('video/mp4');
    // A brand that starts inside the scan bound but ends past it is not read; one just inside is.
    const filler = Array.from({ length: (MAX_FTYP_SCAN - 16) / 4 - 1 }, () => 'iso8');
    expect(sniffKnownType(ftyp('isom', ...filler, 'heic'))).toBe('image/heic');
    expect(sniffKnownType(ftyp('isom', ...filler, 'iso8', 'heic'))).toBe('video/mp4');
  });

  it('Canon CR3 and 3GPP are not reported as MP4: the quick path leaves them to file-type', async () => {
    const cr3 = ftyp('crx ', 'crx ', 'isom');
    const threeGp = ftyp('3gp5', '3gp5', 'isom');
    expect(sniffKnownType(cr3)).toBeUndefined();
    expect(sniffKnownType(threeGp)).toBeUndefined();
    expect(sniffKnownType(ftyp('3g2a', '3g2a'))).toBeUndefined();
    expect(await sniffMediaType(cr3)).toBe('image/x-canon-cr3');
    expect(await sniffMediaType(threeGp)).toBe('video/3gpp');
  });
});

describe('the track walk (moov/trak/mdia/hdlr)', () => {
  it('an audio track only is audio/mp4; a video track anywhere is video/mp4', () => {
    expect(sniffKnownType(concat(ISOM, box('moov', trak('soun'))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', trak('soun'), trak('vide'))))).toBe('video/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', trak('vide'), trak('soun'))))).toBe('video/mp4');
  });

  it('no moov box or a moov without tracks is video/mp4 (nothing says audio)', () => {
    expect(sniffKnownType(ISOM)).toBe('video/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', box('mvhd', new Uint8Array(100)))))).toBe('video/mp4');
  });

  it('reads 64-bit box sizes', () => {
    expect(sniffKnownType(concat(ISOM, box64('moov', trak('soun'))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', box64('trak', box('mdia', hdlr('soun'))))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box64('free', new Uint8Array(4)), box('moov', trak('soun'))))).toBe('audio/mp4');
  });

  it('stops at a 64-bit size larger than the file, or one too short to hold its own header', () => {
    const big = Buffer.from(box64('moov', trak('soun')));
    big.writeBigUInt64BE(BigInt(big.length + 1), 8);
    expect(sniffKnownType(concat(ISOM, big))).toBe('video/mp4');
    const tiny = Buffer.from(box64('free', new Uint8Array(8)));
    tiny.writeBigUInt64BE(8n, 8); // 8 < the 16-byte header
    expect(sniffKnownType(concat(ISOM, tiny, box('moov', trak('soun'))))).toBe('video/mp4');
    // A 64-bit size field cut off by the end of the file.
    const cut = Buffer.alloc(12);
    cut.writeUInt32BE(1);
    cut.write('moov', 4, 'latin1');
    expect(sniffKnownType(concat(ISOM, cut))).toBe('video/mp4');
  });

  it('stops at a 32-bit size that runs past its parent, or one too short to hold its own header', () => {
    // A moov one byte longer than the file: not read, though the track inside it is whole.
    const long = Buffer.from(box('moov', trak('soun')));
    long.writeUInt32BE(long.length + 1);
    expect(sniffKnownType(concat(ISOM, long))).toBe('video/mp4');
    // A trak that claims the sound track's mdia placed after its moov: not read either.
    const mdia = box('mdia', hdlr('soun'));
    const inner = Buffer.from(box('moov', box('trak')));
    inner.writeUInt32BE(8 + mdia.length, 8);
    expect(sniffKnownType(concat(ISOM, inner, mdia))).toBe('video/mp4');
    // Sizes 2 to 7 cannot hold the 8-byte header: the walk stops there, and does not step
    // over such a box to the moov that follows it.
    for (const size of [4, 6, 7]) {
      const bad = Buffer.alloc(size);
      bad.writeUInt32BE(size);
      if (size > 4) bad.write('free'.slice(0, size - 4), 4, 'latin1');
      expect(sniffKnownType(concat(ISOM, bad, box('moov', trak('soun')))), `size ${size}`).toBe('video/mp4');
    }
    // The same moov without the bad box before it is read.
    expect(sniffKnownType(concat(ISOM, box('moov', trak('soun'))))).toBe('audio/mp4');
  });

  it('reads a size-0 box as running to the end of its parent', () => {
    expect(sniffKnownType(concat(ISOM, box0('moov', trak('soun'))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', box('free', new Uint8Array(3)), box0('trak', box('mdia', hdlr('soun'))))))).toBe('audio/mp4');
  });

  it('walks many boxes side by side, up to 10,000 per level', () => {
    const frees = (n: number) => Array.from({ length: n }, () => box('free'));
    expect(sniffKnownType(concat(ISOM, box('moov', ...frees(500), trak('soun'))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, ...frees(500), box('moov', trak('soun'))))).toBe('audio/mp4');
    // The 10,000th box is still read; the 10,001st is not.
    expect(sniffKnownType(concat(ISOM, box('moov', ...frees(9_999), trak('soun'))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', ...frees(10_000), trak('soun'))))).toBe('video/mp4');
  });

  it('skips a truncated hdlr box (under 12 payload bytes) instead of reading past it', () => {
    const short = box('trak', box('mdia', box('hdlr', new Uint8Array(8), latin1('son'))));
    expect(sniffKnownType(concat(ISOM, box('moov', short)))).toBe('video/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', short, trak('soun'))))).toBe('audio/mp4');
    // Exactly 12 payload bytes is a whole hdlr: read.
    const exact = box('trak', box('mdia', box('hdlr', new Uint8Array(8), latin1('soun'))));
    expect(sniffKnownType(concat(ISOM, box('moov', exact)))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', box('trak', box('mdia', box('hdlr', new Uint8Array(8), latin1('vide')))), exact)))).toBe('video/mp4');
  });

  it('a trak without mdia or hdlr is not a track', () => {
    expect(sniffKnownType(concat(ISOM, box('moov', box('trak', box('tkhd', new Uint8Array(4))), trak('soun'))))).toBe('audio/mp4');
    expect(sniffKnownType(concat(ISOM, box('moov', box('trak', box('mdia', box('mdhd', new Uint8Array(4)))))))).toBe('video/mp4');
  });
});

describe('the quick byte checks on their own (sniffKnownType)', () => {
  it('names the catalogue types from their magic bytes', () => {
    expect(sniffKnownType(tinyJpeg())).toBe('image/jpeg');
    expect(sniffKnownType(tinyPng())).toBe('image/png');
    expect(sniffKnownType(tinyTiff())).toBe('image/tiff');
    expect(sniffKnownType(concat(latin1('MM\0*'), new Uint8Array(8)))).toBe('image/tiff');
    expect(sniffKnownType(concat(latin1('II+\0'), new Uint8Array(8)))).toBe('image/tiff');
    expect(sniffKnownType(concat(latin1('MM\0+'), new Uint8Array(8)))).toBe('image/tiff');
    expect(sniffKnownType(riff('WEBP'))).toBe('image/webp');
    expect(sniffKnownType(riff('WAVE'))).toBe('audio/wav');
    expect(sniffKnownType(tinyMp4())).toBe('video/mp4');
    expect(sniffKnownType(tinyMp4({ audioOnly: true }))).toBe('audio/mp4');
  });

  it('an AVI is not WAV or WebP: the quick path leaves it to file-type', async () => {
    expect(sniffKnownType(riff('AVI '))).toBeUndefined();
    expect(await sniffMediaType(riff('AVI '))).toBe('video/vnd.avi');
  });

  it('a file that is exactly its magic bytes is named', () => {
    expect(sniffKnownType(Uint8Array.from([0xff, 0xd8, 0xff]))).toBe('image/jpeg');
    expect(sniffKnownType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('image/png');
    expect(sniffKnownType(latin1('II*\0'))).toBe('image/tiff');
    expect(sniffKnownType(latin1('RIFF\0\0\0\0WAVE'))).toBe('audio/wav');
  });

  it('leaves everything else to file-type, and never reads past short input', () => {
    expect(sniffKnownType(new Uint8Array(0))).toBeUndefined();
    expect(sniffKnownType(Uint8Array.from([0xff, 0xd8]))).toBeUndefined();
    expect(sniffKnownType(Uint8Array.from([0xff, 0xd8, 0xfe]))).toBeUndefined();
    expect(sniffKnownType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a]))).toBeUndefined();
    expect(sniffKnownType(latin1('RIFF\0\0\0\0WEB'))).toBeUndefined();
    expect(sniffKnownType(latin1('GIF89a\x01\0\x01\0\0\0\0'))).toBeUndefined();
    expect(sniffKnownType(latin1('II*'))).toBeUndefined();
    expect(sniffKnownType(latin1('\0\0\0\x08ftyp'))).toBe('video/mp4');
    // "ftyp" must sit at offset 4.
    expect(sniffKnownType(latin1('\0\0\0\0\0ftypheic'))).toBeUndefined();
  });
});
