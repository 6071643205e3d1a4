// The EXIF reader behind camera_reference: the same answers as exifr (kept as a dev dependency for
// this comparison) on real and generated files, both byte orders, and only ExifDamage (never a
// crash, never a read outside the block) on broken or hostile EXIF.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error exifr ships no types for this entry point
import exifr from 'exifr/dist/full.esm.mjs';
import { cameraReference } from '../src/detectors/camera-reference.js';
import { ExifDamage, MAKER_NOTE_PREFIX_BYTES, jpegExifBlock, readCameraTags } from '../src/media/exif-tags.js';
import { describeMedia } from '../src/engine/detect.js';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg, tinyTiff, truncate } from './fixtures/make.js';
import { CORPUS_FILES, HAS_CORPUS } from './helpers/corpus.js';

const EXIFR_OPTS = { tiff: true, ifd0: true, exif: true, makerNote: true, gps: false, interop: false, ifd1: false, xmp: false, icc: false, iptc: false, jfif: false, ihdr: false, translateValues: false, reviveValues: false, mergeOutput: true };

/** What exifr says, in the reader's shape. */
async function exifrTags(bytes: Uint8Array) {
  const out = await exifr.parse(Buffer.from(bytes), EXIFR_OPTS);
  const note = out?.makerNote ?? out?.MakerNote;
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(/\0+$/, '').trim() || undefined : undefined);
  return {
    make: text(out?.Make),
    model: text(out?.Model),
    software: text(out?.Software),
    makerNotePrefix: note instanceof Uint8Array ? Buffer.from(note.subarray(0, MAKER_NOTE_PREFIX_BYTES)).toString('hex') : undefined,
  };
}

function ours(bytes: Uint8Array, type: string) {
  const tags = readCameraTags(bytes, type);
  return {
    make: tags?.make,
    model: tags?.model,
    software: tags?.software,
    makerNotePrefix: tags?.makerNotePrefix ? Buffer.from(tags.makerNotePrefix).toString('hex') : undefined,
  };
}

describe.skipIf(!HAS_CORPUS)('agrees with exifr on the corpus', () => {
  const names = HAS_CORPUS ? readdirSync(CORPUS_FILES).sort() : [];
  it.each(names)('%s', async (name) => {
    const media = await describeMedia(readFileSync(join(CORPUS_FILES, name)));
    if (media.type !== 'image/jpeg' && media.type !== 'image/tiff') return; // the only types it reads
    let expected;
    try {
      expected = await exifrTags(media.bytes);
    } catch {
      return; // exifr refuses the file: compared by the damage tests below instead
    }
    expect(ours(media.bytes, media.type)).toEqual(expected);
  });

  it('reads big-endian (Canon, Nikon, Apple) and little-endian EXIF alike', () => {
    const iphone = readFileSync(join(CORPUS_FILES, 'iphone6_hdr_NO.jpg'));
    expect(readCameraTags(iphone, 'image/jpeg')).toMatchObject({ make: 'Apple', model: 'iPhone 6' });
    expect(readCameraTags(readFileSync(join(CORPUS_FILES, 'Canon_40D.jpg')), 'image/jpeg')).toMatchObject({ make: 'Canon' });
  });
});

describe('agrees with exifr on generated files', () => {
  const variants: [string, Uint8Array, string][] = [
    ['Apple JPEG, full', tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE }) }), 'image/jpeg'],
    ['Apple JPEG, Make only', tinyJpeg({ exif: exifApp1({ make: 'Apple' }) }), 'image/jpeg'],
    ['short inline Make', tinyJpeg({ exif: exifApp1({ make: 'LG', model: 'X' }) }), 'image/jpeg'],
    ['Canon JPEG', tinyJpeg({ exif: exifApp1({ make: 'Canon', model: 'Canon EOS R6', software: 'Firmware 1.8' }) }), 'image/jpeg'],
    ['JPEG without EXIF', tinyJpeg(), 'image/jpeg'],
    ['Apple TIFF', tinyTiff({ make: 'Apple', model: 'iPad Pro', software: '16.4.1', makerNote: APPLE_MAKER_NOTE }), 'image/tiff'],
    ['plain TIFF', tinyTiff(), 'image/tiff'],
  ];
  it.each(variants)('%s', async (_name, bytes, type) => {
    expect(ours(bytes, type)).toEqual(await exifrTags(bytes));
  });
});

/** A big-endian TIFF block: IFD0 (Make, ExifIFD) and an Exif IFD with a maker note. */
function bigEndianTiff(make: string, makerNote: Uint8Array): Uint8Array {
  const makeBytes = Buffer.from(`${make}\0`, 'latin1');
  const ifd0At = 8;
  const exifAt = ifd0At + 2 + 2 * 12 + 4;
  const makeAt = exifAt + 2 + 12 + 4;
  const noteAt = makeAt + makeBytes.length;
  const out = Buffer.alloc(noteAt + makerNote.length);
  out.write('MM', 0, 'latin1');
  out.writeUInt16BE(42, 2);
  out.writeUInt32BE(ifd0At, 4);
  out.writeUInt16BE(2, ifd0At);
  const entry = (at: number, tag: number, type: number, count: number, value: number) => {
    out.writeUInt16BE(tag, at);
    out.writeUInt16BE(type, at + 2);
    out.writeUInt32BE(count, at + 4);
    out.writeUInt32BE(value, at + 8);
  };
  // A value of 4 bytes or fewer sits in the entry itself, as TIFF says and readers read it.
  const inline = makeBytes.length <= 4;
  entry(ifd0At + 2, 0x010f, 2, makeBytes.length, inline ? 0 : makeAt);
  if (inline) makeBytes.copy(out, ifd0At + 2 + 8);
  entry(ifd0At + 14, 0x8769, 4, 1, exifAt);
  out.writeUInt16BE(1, exifAt);
  entry(exifAt + 2, 0x927c, 7, makerNote.length, noteAt);
  makeBytes.copy(out, makeAt);
  out.set(makerNote, noteAt);
  return out;
}

describe('structure', () => {
  it('reads a big-endian block', async () => {
    const block = bigEndianTiff('Apple', APPLE_MAKER_NOTE);
    const tags = readCameraTags(block, 'image/tiff');
    expect(tags?.make).toBe('Apple');
    expect(Buffer.from(tags!.makerNotePrefix!).subarray(0, 10).toString('latin1')).toBe('Apple iOS\0');
    expect(await cameraReference.run({ bytes: block, type: 'image/tiff', sha256: '' }, {})).toEqual({ result: 'found', confidence: 0.7 });
    expect(ours(block, 'image/tiff')).toEqual(await exifrTags(block));
  });

  it('finds the Exif APP1 after other segments, and not after the image data', () => {
    const jpeg = tinyJpeg({ exif: exifApp1({ make: 'Apple' }) });
    expect(jpegExifBlock(jpeg)).toBeDefined();
    // The same EXIF placed after SOS is not EXIF any reader honours.
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1]), Buffer.alloc(2), Buffer.from(exifApp1({ make: 'Apple' }))]);
    app1.writeUInt16BE(app1.length - 2, 2);
    const plain = tinyJpeg();
    const eoi = plain.length - 2;
    const late = Buffer.concat([plain.subarray(0, eoi), app1, plain.subarray(eoi)]);
    expect(jpegExifBlock(late)).toBeUndefined();
  });

  it('a text tag stops at its first NUL and an empty one is absent', () => {
    const tags = readCameraTags(bigEndianTiff('Apple\0Inc', APPLE_MAKER_NOTE), 'image/tiff');
    expect(tags?.make).toBe('Apple');
    expect(readCameraTags(bigEndianTiff('   ', APPLE_MAKER_NOTE), 'image/tiff')?.make).toBeUndefined();
  });

  it('other types are not read', () => {
    expect(readCameraTags(tinyJpeg({ exif: exifApp1({ make: 'Apple' }) }), 'image/png')).toBeUndefined();
  });
});

describe('damage', () => {
  const block = () => bigEndianTiff('Apple', APPLE_MAKER_NOTE);

  it.each([
    ['no byte-order mark', (b: Buffer) => b.write('XX', 0, 'latin1'), /byte-order/],
    ['not 42', (b: Buffer) => b.writeUInt16BE(43, 2), /not TIFF/],
    ['IFD0 outside the block', (b: Buffer) => b.writeUInt32BE(0xfffffff0, 4), /outside/],
    ['a huge entry count', (b: Buffer) => b.writeUInt16BE(0xffff, 8), /claims 65535 entries/],
    ['Make text outside the block', (b: Buffer) => b.writeUInt32BE(0x7fffffff, 8 + 2 + 8), /outside/],
    ['Exif IFD outside the block', (b: Buffer) => b.writeUInt32BE(0x7fffffff, 8 + 14 + 8), /outside/],
  ])('%s is ExifDamage, and camera_reference is unavailable with the reason', async (_name, damage, message) => {
    const b = Buffer.from(block());
    damage(b);
    expect(() => readCameraTags(b, 'image/tiff')).toThrow(ExifDamage);
    expect(() => readCameraTags(b, 'image/tiff')).toThrow(message);
    const outcome = await cameraReference.run({ bytes: b, type: 'image/tiff', sha256: '' }, {});
    expect(outcome).toMatchObject({ result: 'unavailable', confidence: 0 });
    expect(outcome.reason).toMatch(/^The file is damaged in a way the camera_reference check cannot read: .+\.$/);
  });

  it('an Exif IFD pointing back at IFD0 is read once, not followed in a loop', () => {
    const b = Buffer.from(block());
    b.writeUInt32BE(8, 8 + 14 + 8); // ExifIFD -> IFD0, which has no maker note
    expect(readCameraTags(b, 'image/tiff')).toEqual({ make: 'Apple', model: undefined, software: undefined, makerNotePrefix: undefined });
  });

  it('a JPEG cut inside its EXIF reports damage or nothing, never a crash', () => {
    const jpeg = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 12', makerNote: APPLE_MAKER_NOTE }) });
    for (let n = 0; n <= 400; n++) {
      try {
        readCameraTags(truncate(jpeg, n), 'image/jpeg');
      } catch (err) {
        expect(err).toBeInstanceOf(ExifDamage);
      }
    }
  });

  it('300 seeded random corruptions of the EXIF give a result or ExifDamage, nothing else', () => {
    const jpeg = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 12', software: '17.0', makerNote: APPLE_MAKER_NOTE }) });
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    let damaged = 0;
    for (let i = 0; i < 300; i++) {
      const b = Buffer.from(jpeg);
      for (let k = 0; k < 4; k++) b[24 + Math.floor(random() * 200)] = Math.floor(random() * 256); // inside APP1
      try {
        readCameraTags(b, 'image/jpeg');
      } catch (err) {
        expect(err).toBeInstanceOf(ExifDamage);
        damaged++;
      }
    }
    expect(damaged).toBeGreaterThan(0); // the corruptions did reach structure, not only text
  });
});
