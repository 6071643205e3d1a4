// png-chunks.ts on its own: PNG files laid out byte by byte here (PNG spec, 3rd edition: the
// signature, chunks of length, type, data and CRC-32; tEXt, zTXt and iTXt as in 11.3.3), each
// answer exact: the header, which text chunks are decoded and to what, each problem and each
// damage sentence, and the caps (keyword length, text bytes, inflation per file, chunk count).
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  MAX_CHUNKS,
  MAX_INFLATED_TOTAL,
  MAX_TEXT_BYTES,
  MAX_TEXT_CHUNKS,
  PNG_SIGNATURE,
  isPng,
  pngHasAlpha,
  pngText,
  readPngChunks,
  type PngChunks,
} from '../src/media/png-chunks.js';

const bytes = (...parts: (Uint8Array | string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

function chunk(type: string, data: Uint8Array = new Uint8Array(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

function ihdr(width = 3, height = 2, bitDepth = 8, colorType = 6): Buffer {
  const d = Buffer.alloc(13);
  d.writeUInt32BE(width, 0);
  d.writeUInt32BE(height, 4);
  d[8] = bitDepth;
  d[9] = colorType;
  return chunk('IHDR', d);
}

const SIG = Buffer.from(PNG_SIGNATURE);
const IDAT = chunk('IDAT', deflateSync(Buffer.alloc(2 * (1 + 3 * 4))));
const IEND = chunk('IEND');
const png = (...chunks: Uint8Array[]) => bytes(SIG, ihdr(), ...chunks, IEND);
const tEXt = (keyword: string, value: Uint8Array | string) => chunk('tEXt', bytes(keyword, [0], value));
const zTXt = (keyword: string, value: Uint8Array, method = 0) => chunk('zTXt', bytes(keyword, [0, method], deflateSync(value)));
/** iTXt: keyword, compression flag and method, language tag, translated keyword, UTF-8 text. */
const iTXt = (keyword: string, text: string, o: { flag?: number; method?: number; lang?: string; translated?: string } = {}) =>
  chunk(
    'iTXt',
    bytes(keyword, [0, o.flag ?? 0, o.method ?? 0], o.lang ?? '', [0], Buffer.from(o.translated ?? '', 'utf8'), [0], o.flag === 1 ? deflateSync(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8')),
  );

const all = () => true;
const read = (b: Uint8Array, wanted: (k: string) => boolean = all) => readPngChunks(b, wanted) as PngChunks;

describe('isPng', () => {
  it('the eight signature bytes, all of them', () => {
    expect(isPng(SIG)).toBe(true);
    expect(isPng(SIG.subarray(0, 7))).toBe(false);
    for (let i = 0; i < 8; i++) {
      const b = Buffer.from(SIG);
      b[i] = b[i]! ^ 0x20;
      expect(isPng(b), `byte ${i}`).toBe(false);
    }
    expect(readPngChunks(bytes('GIF89a'), all)).toBeUndefined();
  });
});

describe('readPngChunks: the walk', () => {
  it('reads IHDR, passes IDAT, and stops at IEND', () => {
    const b = bytes(SIG, ihdr(0x80000001, 70000, 16, 4), tEXt('a', 'before'), IDAT, tEXt('b', 'after'), IEND, tEXt('c', 'past the end'));
    expect(read(b)).toEqual({
      header: { width: 0x80000001, height: 70000, bitDepth: 16, colorType: 4 },
      texts: [
        { chunk: 'tEXt', keyword: 'a', text: 'before' },
        { chunk: 'tEXt', keyword: 'b', text: 'after' },
      ],
      sawImageData: true,
    });
    expect(read(bytes(SIG, ihdr(), IEND))).toEqual({ header: { width: 3, height: 2, bitDepth: 8, colorType: 6 }, texts: [], sawImageData: false });
  });

  it('keeps the first eXIf chunk', () => {
    const out = read(png(chunk('eXIf', bytes('II*\0first')), chunk('eXIf', bytes('MM\0*second'))));
    expect(Buffer.from(out.exif!).toString('latin1')).toBe('II*\0first');
  });

  it('says what stopped it, keeping what came before', () => {
    const text = tEXt('k', 'v');
    const kept = [{ chunk: 'tEXt', keyword: 'k', text: 'v' }];
    expect(read(bytes(SIG, ihdr(), text))).toMatchObject({ texts: kept, damage: 'it ends without an IEND chunk' });
    expect(read(bytes(SIG, ihdr(), text, IEND.subarray(0, 11)))).toMatchObject({ texts: kept, damage: 'its last chunk is cut short' });
    const long = Buffer.from(tEXt('x', 'abc'));
    long.writeUInt32BE(7, 0); // 2 bytes more than there are, CRC counted
    expect(read(bytes(SIG, ihdr(), text, long))).toMatchObject({ texts: kept, damage: 'its "tEXt" chunk\'s length runs past the end of the file' });
    // A length exactly up to the end of the file is not damage.
    expect(read(bytes(SIG, ihdr(), text, Buffer.from(tEXt('x', 'abc')))).damage).toBe('it ends without an IEND chunk');
    const huge = Buffer.from(chunk('zzzz'));
    huge.writeUInt32BE(0x80000000, 0);
    expect(read(bytes(SIG, ihdr(), huge, Buffer.alloc(64)))).toMatchObject({ damage: 'its "zzzz" chunk\'s length runs past the end of the file' });
    expect(read(SIG)).toEqual({ texts: [], sawImageData: false, damage: 'it ends without an IEND chunk' });
  });

  it('refuses a first chunk that is not an IHDR of at least 13 bytes', () => {
    const damage = 'it does not start with an IHDR chunk';
    expect(read(bytes(SIG, tEXt('k', 'v'), ihdr(), IEND))).toEqual({ texts: [], sawImageData: false, damage });
    expect(read(bytes(SIG, chunk('IHDR', Buffer.alloc(12)), IEND))).toEqual({ texts: [], sawImageData: false, damage });
    // Another chunk of IHDR's size first is not a header either.
    expect(read(bytes(SIG, chunk('IHDX', Buffer.alloc(13, 1)), IEND))).toEqual({ texts: [], sawImageData: false, damage });
    expect(read(bytes(SIG, chunk('IHDR', Buffer.alloc(14, 1)), IEND)).header).toEqual({ width: 0x01010101, height: 0x01010101, bitDepth: 1, colorType: 1 });
  });

  it(`walks at most ${MAX_CHUNKS.toLocaleString('en-US')} chunks`, () => {
    expect(MAX_CHUNKS).toBe(2_000_000);
    const empty = chunk('abCd');
    const file = (count: number) => {
      const b = Buffer.alloc(SIG.length + 25 + count * 12 + 12);
      let p = bytes(SIG, ihdr()).copy(b);
      for (let i = 0; i < count; i++) p += empty.copy(b, p);
      IEND.copy(b, p);
      return b;
    };
    // IHDR, then chunks, then IEND as chunk number MAX_CHUNKS (counted from 1): read to its end.
    expect(read(file(MAX_CHUNKS - 2)).damage).toBeUndefined();
    expect(read(file(MAX_CHUNKS - 1)).damage).toBe('it has more than 2,000,000 chunks');
  });
});

describe('readPngChunks: which text chunks are decoded', () => {
  it('only wanted keywords, the first chunk of each', () => {
    const out = read(png(tEXt('parameters', 'one'), tEXt('other', 'x'), zTXt('parameters', Buffer.from('two')), tEXt('Comment', 'c')), (k) => k !== 'other');
    expect(out.texts).toEqual([
      { chunk: 'tEXt', keyword: 'parameters', text: 'one' },
      { chunk: 'tEXt', keyword: 'Comment', text: 'c' },
    ]);
    expect(pngText(out, 'Comment')).toEqual({ chunk: 'tEXt', keyword: 'Comment', text: 'c' });
    expect(pngText(out, 'other')).toBeUndefined();
  });

  it(`at most ${MAX_TEXT_CHUNKS} keywords, unwanted ones not counted`, () => {
    expect(MAX_TEXT_CHUNKS).toBe(64);
    const chunks = [];
    for (let i = 0; i < 70; i++) chunks.push(tEXt(`skip${i}`, 'x'), tEXt(`k${i}`, `v${i}`));
    const out = read(png(...chunks), (k) => k.startsWith('k'));
    expect(out.texts.map((t) => t.keyword)).toEqual(Array.from({ length: 64 }, (_, i) => `k${i}`));
  });

  it('a keyword of 79 bytes is read; one with no NUL in its first 80 bytes is not', () => {
    const k79 = 'k'.repeat(79);
    const k80 = 'k'.repeat(80);
    const seen: string[] = [];
    const out = read(png(tEXt(k79, 'a'), tEXt(k80, 'b'), chunk('tEXt', bytes('nonul')), chunk('tEXt'), tEXt('k', 'c')), (k) => (seen.push(k), true));
    expect(out.texts).toEqual([
      { chunk: 'tEXt', keyword: k79, text: 'a' },
      { chunk: 'tEXt', keyword: 'k', text: 'c' },
    ]);
    expect(seen).toEqual([k79, 'k']);
  });

  it('only tEXt, zTXt and iTXt chunks are text, whatever the bytes of another chunk look like', () => {
    const seen: string[] = [];
    const out = read(png(chunk('tIME', bytes('parameters', [0, 0, 0, 0, 0], 'v')), chunk('teXt', bytes('k', [0], 'v')), tEXt('k', 'v')), (k) => (seen.push(k), true));
    expect(out.texts).toEqual([{ chunk: 'tEXt', keyword: 'k', text: 'v' }]);
    expect(seen).toEqual(['k']);
  });
});

describe('readPngChunks: tEXt and zTXt values', () => {
  it('Latin-1 by the spec, UTF-8 when the bytes are valid UTF-8 with a multi-byte sequence', () => {
    const out = read(
      png(
        tEXt('latin1', bytes([0x63, 0x61, 0x66, 0xe9])), // café in Latin-1: not valid UTF-8
        tEXt('utf8', Buffer.from('café ✓', 'utf8')),
        tEXt('ascii', 'plain'),
        zTXt('zlatin1', bytes([0xe9, 0xe8])),
        zTXt('zutf8', Buffer.from('naïve', 'utf8')),
        tEXt('onlyUtf8', Buffer.from('éü', 'utf8')), // no ASCII byte at all
      ),
    );
    expect(out.texts.map((t) => t.text)).toEqual(['café', 'café ✓', 'plain', 'éè', 'naïve', 'éü']);
  });

  it('NULs at the end of a value are dropped, others kept', () => {
    const out = read(png(tEXt('a', 'v\0\0\0'), tEXt('b', '\0\0'), tEXt('c', 'x\0y'), zTXt('d', bytes('z\0')), tEXt('e', '')));
    expect(out.texts.map((t) => t.text)).toEqual(['v', '', 'x\0y', 'z', '']);
  });

  it(`a tEXt value is read up to ${MAX_TEXT_BYTES} bytes`, () => {
    expect(MAX_TEXT_BYTES).toBe(4 * 1024 * 1024);
    const out = read(png(tEXt('big', Buffer.alloc(MAX_TEXT_BYTES + 5, 0x61))));
    expect(out.texts[0]!.text).toBe('a'.repeat(MAX_TEXT_BYTES));
  });

  it('a zTXt of another compression method, or not zlib data, has a problem and no text', () => {
    const out = read(png(zTXt('m', Buffer.from('x'), 1), chunk('zTXt', bytes('bad', [0, 0, 1, 2, 3, 4]))));
    expect(out.texts).toEqual([
      { chunk: 'zTXt', keyword: 'm', problem: 'it names an unknown compression method' },
      { chunk: 'zTXt', keyword: 'bad', problem: 'its compressed text is not valid zlib data' },
    ]);
  });

  it(`inflation: ${MAX_TEXT_BYTES} bytes a value, ${MAX_INFLATED_TOTAL} a file, failures counted at their allowance`, () => {
    expect(MAX_INFLATED_TOTAL).toBe(16 * 1024 * 1024);
    const MiB = 1024 * 1024;
    const out = read(
      png(
        zTXt('a', Buffer.alloc(4 * MiB + 1)), // past the cap: counts 4 MiB
        zTXt('b', Buffer.alloc(4 * MiB, 0x62)), // exactly the cap: 8 MiB
        iTXt('c', 'c'.repeat(4 * MiB), { flag: 1 }), // 12 MiB
        zTXt('d', Buffer.alloc(3 * MiB, 0x64)), // 15 MiB
        zTXt('e', Buffer.alloc(2 * MiB)), // 1 MiB left: past it, 16 MiB
        zTXt('f', Buffer.from('f')),
      ),
    );
    expect(out.texts.map((t) => [t.keyword, t.text?.length, t.problem])).toEqual([
      ['a', undefined, 'its compressed text inflates past 4194304 bytes'],
      ['b', 4 * MiB, undefined],
      ['c', 4 * MiB, undefined],
      ['d', 3 * MiB, undefined],
      ['e', undefined, 'its compressed text inflates past 1048576 bytes'],
      ['f', undefined, 'the file holds more compressed text than is read'],
    ]);
    // Data that is not zlib counts its whole allowance too: four of them spend the file's.
    const bad = (k: string) => chunk('zTXt', bytes(k, [0, 0], 'not zlib'));
    const spent = read(png(bad('a'), bad('b'), bad('c'), bad('d'), zTXt('e', Buffer.from('e'))));
    expect(spent.texts.at(-1)).toEqual({ chunk: 'zTXt', keyword: 'e', problem: 'the file holds more compressed text than is read' });
    const three = read(png(bad('a'), bad('b'), bad('c'), zTXt('e', Buffer.from('e'))));
    expect(three.texts.at(-1)).toEqual({ chunk: 'zTXt', keyword: 'e', text: 'e' });
  });
});

describe('readPngChunks: iTXt values', () => {
  it('UTF-8 after the language tag and translated keyword, compressed or not', () => {
    const out = read(
      png(
        iTXt('plain', 'café ✓\0', { lang: 'fr', translated: 'Légende' }),
        iTXt('packed', 'naïve', { flag: 1, lang: 'en-GB', translated: 'x' }),
        iTXt('flag2', 'two', { flag: 2, method: 7 }), // only 1 means compressed
        iTXt('empty', ''),
        chunk('iTXt', bytes('latin', [0, 0, 0, 0, 0, 0xe9])), // not UTF-8: a replacement character
      ),
    );
    expect(out.texts).toEqual([
      { chunk: 'iTXt', keyword: 'plain', text: 'café ✓' },
      { chunk: 'iTXt', keyword: 'packed', text: 'naïve' },
      { chunk: 'iTXt', keyword: 'flag2', text: 'two' },
      { chunk: 'iTXt', keyword: 'empty', text: '' },
      { chunk: 'iTXt', keyword: 'latin', text: '\ufffd' },
    ]);
  });

  it('problems: another compression method, a header without both NULs, bad zlib', () => {
    const out = read(
      png(
        iTXt('method', 'x', { flag: 1, method: 1 }),
        chunk('iTXt', bytes('cut1', [0, 0, 0], 'en')),
        chunk('iTXt', bytes('cut2', [0, 0, 0], 'en', [0], 'tr')),
        chunk('iTXt', bytes('cut3', [0, 0])),
        chunk('iTXt', bytes('z', [0, 1, 0, 0, 0], 'not zlib')),
      ),
    );
    expect(out.texts).toEqual([
      { chunk: 'iTXt', keyword: 'method', problem: 'it names an unknown compression method' },
      { chunk: 'iTXt', keyword: 'cut1', problem: 'its header is cut short' },
      { chunk: 'iTXt', keyword: 'cut2', problem: 'its header is cut short' },
      { chunk: 'iTXt', keyword: 'cut3', problem: 'its header is cut short' },
      { chunk: 'iTXt', keyword: 'z', problem: 'its compressed text is not valid zlib data' },
    ]);
  });

  it('the language tag starts after the flag and method, even when they are NUL', () => {
    // flag 0, method 0, then "en\0" and "\0": the two NULs after the method end the header.
    const out = read(png(chunk('iTXt', bytes('k', [0, 0, 0], 'en', [0], [0], 'text'))));
    expect(out.texts).toEqual([{ chunk: 'iTXt', keyword: 'k', text: 'text' }]);
  });

  it(`an uncompressed iTXt is read up to ${MAX_TEXT_BYTES} bytes`, () => {
    const out = read(png(iTXt('big', 'b'.repeat(MAX_TEXT_BYTES + 3))));
    expect(out.texts[0]!.text).toBe('b'.repeat(MAX_TEXT_BYTES));
  });
});

describe('pngHasAlpha', () => {
  it('grey + alpha and RGBA only', () => {
    expect([0, 2, 3, 4, 6].map((colorType) => pngHasAlpha({ width: 1, height: 1, bitDepth: 8, colorType }))).toEqual([false, false, false, true, true]);
    expect(pngHasAlpha(undefined)).toBe(false);
  });
});
