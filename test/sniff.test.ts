// Media type from the first bytes (SPEC 2.3; CONTRACT "Media types").
import { describe, expect, it } from 'vitest';
import { sniffMediaType } from '../src/media/sniff.js';
import { EMPTY, NOT_MEDIA, concat, tinyJpeg, tinyMp4, tinyPng, tinyTiff } from './fixtures/make.js';

const latin1 = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));
function box(type: string, payload: Uint8Array = new Uint8Array()): Uint8Array {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'latin1');
  return concat(head, payload);
}
const ftyp = (major: string, ...compat: string[]) => box('ftyp', latin1(major + '\0\0\0\0' + compat.join('')));
const riff = (form: string) => concat(latin1('RIFF'), Uint8Array.from([36, 0, 0, 0]), latin1(form), new Uint8Array(32));

describe('sniffMediaType', () => {
  it.each([
    ['JPEG', () => tinyJpeg(), 'image/jpeg'],
    ['PNG', () => tinyPng(), 'image/png'],
    ['TIFF (little endian)', () => tinyTiff(), 'image/tiff'],
    ['TIFF (big endian)', () => concat(latin1('MM\0*'), new Uint8Array(16)), 'image/tiff'],
    ['BigTIFF (DNG-style containers stay TIFF)', () => concat(latin1('II+\0'), new Uint8Array(16)), 'image/tiff'],
    ['WebP', () => riff('WEBP'), 'image/webp'],
    ['WAV', () => riff('WAVE'), 'audio/wav'],
    ['MP4 with a video track', () => tinyMp4(), 'video/mp4'],
    ['MP4 with only an audio track', () => tinyMp4({ audioOnly: true }), 'audio/mp4'],
    ['M4A brand', () => ftyp('M4A ', 'isom'), 'audio/mp4'],
    ['QuickTime', () => ftyp('qt  ', 'qt  '), 'video/quicktime'],
    ['HEIC by major brand', () => ftyp('heic', 'mif1', 'heic'), 'image/heic'],
    ['HEIF by its mif1 major brand, even with a compatible heic (issue 18)', () => ftyp('mif1', 'mif1', 'heic'), 'image/heif'],
    ['HEIF (no HEVC brand)', () => ftyp('mif1', 'mif1'), 'image/heif'],
    ['AVIF', () => ftyp('avif', 'mif1', 'avif'), 'image/avif'],
    ['HEIF by its mif1 major brand, even with a compatible avif', () => ftyp('mif1', 'mif1', 'avif'), 'image/heif'],
    ['MP4 without a moov box', () => ftyp('isom', 'isom'), 'video/mp4'],
  ])('%s', async (_name, bytes, type) => {
    expect(await sniffMediaType(bytes())).toBe(type);
  });

  it('names other types with file-type (a GIF stays image/gif)', async () => {
    expect(await sniffMediaType(concat(latin1('GIF89a'), Uint8Array.from([1, 0, 1, 0, 0, 0, 0]), new Uint8Array(20)))).toBe('image/gif');
  });

  it('gives application/octet-stream for text, empty and unknown bytes', async () => {
    expect(await sniffMediaType(NOT_MEDIA)).toBe('application/octet-stream');
    expect(await sniffMediaType(EMPTY)).toBe('application/octet-stream');
    expect(await sniffMediaType(Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8]))).toBe('application/octet-stream');
  });

  it('never trusts a name: a PNG is a PNG whatever it is called, and a RIFF of another form is not WebP', async () => {
    expect(await sniffMediaType(tinyPng())).toBe('image/png');
    expect(await sniffMediaType(riff('AVI '))).not.toBe('image/webp');
  });

  it('walks a hostile box tree without recursion: deeply nested moov boxes end quickly', async () => {
    let inner = box('free');
    for (let i = 0; i < 5000; i++) inner = box('moov', inner);
    const bytes = concat(ftyp('isom', 'isom'), inner);
    expect(await sniffMediaType(bytes)).toBe('video/mp4');
  });

  it('does not read past a box that claims more bytes than the file has', async () => {
    const lying = Buffer.from(box('moov', new Uint8Array(16)));
    lying.writeUInt32BE(0x7fffffff, 0);
    expect(await sniffMediaType(concat(ftyp('isom', 'isom'), lying))).toBe('video/mp4');
  });
});
