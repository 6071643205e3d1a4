// alpha-lsb.ts on its own: the stealth payloads of NovelAI (nai_meta.py's LSBExtractor) and of
// sd-webui-stealth-pnginfo, hidden in the alpha channel's lowest bit. The pictures are laid out
// here as LSBExtractor reads them: the row index steps first (down column 0, then column 1...),
// each byte most significant bit first; magic, a 32-bit big-endian length in bits, the payload.
// Pictures are not square and every other bit is noise, so a read of the wrong sample, the
// wrong bit, or rows and columns swapped reads something else.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_PAYLOAD_BYTES, STEALTH_MAGICS, magicRegion, readAlphaStealth, stealthMagic } from '../src/media/alpha-lsb.js';
import type { RawPixels } from '../src/media/pixels.js';

/** width x height pixels of `channels` samples, every sample pseudo-random (a fixed seed). */
function noise(width: number, height: number, channels: 3 | 4 = 4, seed = 1): RawPixels {
  const data = new Uint8Array(width * height * channels);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return { width, height, channels, data };
}

/** Sets the alpha LSBs from bit 0 on to `bytes`, in LSBExtractor's order. */
function embed(pixels: RawPixels, bytes: Uint8Array): RawPixels {
  const { width, height, channels, data } = pixels;
  for (let i = 0; i < bytes.length * 8; i++) {
    const bit = (bytes[i >> 3]! >> (7 - (i % 8))) & 1;
    const col = Math.floor(i / height);
    const row = i % height;
    const at = (row * width + col) * channels + channels - 1;
    data[at] = (data[at]! & 0xfe) | bit;
  }
  return pixels;
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');
const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
/** magic, length in bits (the body's unless `bits` is given), body. */
const stealth = (magic: string, body: Uint8Array, bits = body.length * 8) => Buffer.concat([latin1(magic), u32be(bits), body]);

const TEXT = '{"Comment": "{\\"prompt\\": \\"a café\\"}", "Software": "NovelAI"} ✓';

describe('readAlphaStealth', () => {
  it('reads stealth_pnginfo (plain UTF-8) and stealth_pngcomp (gzip)', () => {
    const info = embed(noise(41, 37), stealth('stealth_pnginfo', Buffer.from(TEXT, 'utf8')));
    expect(readAlphaStealth(info)).toEqual({ found: true, magic: 'stealth_pnginfo', text: TEXT });
    expect(stealthMagic(info)).toBe('stealth_pnginfo');
    const comp = embed(noise(31, 29, 4, 7), stealth('stealth_pngcomp', gzipSync(Buffer.from(TEXT, 'utf8'))));
    expect(readAlphaStealth(comp)).toEqual({ found: true, magic: 'stealth_pngcomp', text: TEXT });
    expect(stealthMagic(comp)).toBe('stealth_pngcomp');
    expect(STEALTH_MAGICS).toEqual(['stealth_pngcomp', 'stealth_pnginfo']);
  });

  it('reads a wide picture (width > height) and a tall one (height > 120) alike', () => {
    for (const [w, h] of [[200, 3], [3, 400], [1, 600], [168, 1]] as const) {
      const p = embed(noise(w, h, 4, w + h), stealth('stealth_pnginfo', Buffer.from('hi', 'utf8')));
      expect(readAlphaStealth(p), `${w}x${h}`).toEqual({ found: true, magic: 'stealth_pnginfo', text: 'hi' });
    }
  });

  it('a length that is not a whole number of bytes reads length // 8 bytes, as NovelAI does', () => {
    const p = embed(noise(20, 20), stealth('stealth_pnginfo', Buffer.from('abcd'), 3 * 8 + 7));
    expect(readAlphaStealth(p)).toEqual({ found: true, magic: 'stealth_pnginfo', text: 'abc' });
  });

  it('an empty payload in a picture of exactly the header: found, empty text', () => {
    const p = embed(noise(19, 8), stealth('stealth_pnginfo', new Uint8Array(0))); // 152 bits
    expect(readAlphaStealth(p)).toEqual({ found: true, magic: 'stealth_pnginfo', text: '' });
  });

  it('nothing without alpha, in too few pixels, or without one of the two magics', () => {
    const rgb = embed(noise(20, 20, 3), stealth('stealth_pnginfo', Buffer.from('x')));
    expect(readAlphaStealth(rgb)).toEqual({ found: false });
    expect(stealthMagic(rgb)).toBeUndefined();
    // 151 pixels: the magic fits (120 bits), the length does not.
    const short = embed(noise(151, 1), latin1('stealth_pnginfo'));
    expect(stealthMagic(short)).toBe('stealth_pnginfo');
    expect(readAlphaStealth(short)).toEqual({ found: false });
    // 119 pixels: not even the magic.
    expect(stealthMagic(embed(noise(119, 1), latin1('stealth_pnginf')))).toBeUndefined();
    expect(stealthMagic({ width: 119, height: 1, channels: 4, data: new Uint8Array(476).fill(0xff) })).toBeUndefined();
    // The 120th bit of stealth_pngcomp is 0, as a read past the picture would give: still no magic.
    expect(stealthMagic(embed(noise(119, 1), latin1('stealth_pngcomp')))).toBeUndefined();
    expect(stealthMagic(embed(noise(1, 119), latin1('stealth_pngcomp')))).toBeUndefined();
    // 120 pixels hold exactly the magic.
    expect(stealthMagic(embed(noise(60, 2), latin1('stealth_pngcomp')))).toBe('stealth_pngcomp');
    for (const magic of ['stealth_pngcom', 'stealth_pngcomq', 'Stealth_pnginfo', 'stealth_rgbinfo', '\0'.repeat(15)]) {
      const p = embed(noise(20, 20), stealth(magic.padEnd(15, '\0'), Buffer.from('x')));
      expect(readAlphaStealth(p), magic).toEqual({ found: false });
      expect(stealthMagic(p), magic).toBeUndefined();
    }
  });

  it('a length past the bits the picture holds is a problem, read no further; exactly the rest is read', () => {
    // 20 x 20 = 400 bits: 248 after the header, 31 bytes.
    const over = embed(noise(20, 20), stealth('stealth_pnginfo', Buffer.from('x'), 249));
    expect(readAlphaStealth(over)).toEqual({
      found: true,
      magic: 'stealth_pnginfo',
      problem: "its payload claims 31 bytes, more than the picture's 31 can hold",
    });
    const huge = embed(noise(20, 20), stealth('stealth_pngcomp', Buffer.from('x'), 0xffffffff));
    expect(readAlphaStealth(huge)).toEqual({
      found: true,
      magic: 'stealth_pngcomp',
      problem: "its payload claims 536870911 bytes, more than the picture's 31 can hold",
    });
    const exact = embed(noise(20, 20), stealth('stealth_pnginfo', Buffer.from('y'.repeat(31))));
    expect(readAlphaStealth(exact)).toEqual({ found: true, magic: 'stealth_pnginfo', text: 'y'.repeat(31) });
  });

  it(`a payload over ${MAX_PAYLOAD_BYTES} bytes is not read; one of exactly that is`, () => {
    expect(MAX_PAYLOAD_BYTES).toBe(4 * 1024 * 1024);
    // 8192 x 4097 pixels hold 33,562,472 bits after the header: more than 4 MiB and a byte.
    const big = { width: 8192, height: 4097, channels: 4 as const, data: new Uint8Array(8192 * 4097 * 4) };
    embed(big, stealth('stealth_pnginfo', new Uint8Array(0), (MAX_PAYLOAD_BYTES + 1) * 8));
    expect(readAlphaStealth(big)).toEqual({ found: true, magic: 'stealth_pnginfo', problem: `its payload claims ${MAX_PAYLOAD_BYTES + 1} bytes, more than is read` });
    embed(big, stealth('stealth_pnginfo', new Uint8Array(0), MAX_PAYLOAD_BYTES * 8));
    const out = readAlphaStealth(big);
    expect(out.found && out.text?.length).toBe(MAX_PAYLOAD_BYTES); // the zero bits: NULs
  });

  it('a comp payload that is not gzip, or inflates past the cap, is a problem', () => {
    const problem = 'its payload is not gzip data that inflates within the cap';
    const notGzip = embed(noise(40, 40), stealth('stealth_pngcomp', Buffer.from('plain text')));
    expect(readAlphaStealth(notGzip)).toEqual({ found: true, magic: 'stealth_pngcomp', problem });
    const bomb = gzipSync(Buffer.alloc(MAX_PAYLOAD_BYTES + 1));
    const big = embed(noise(300, 300), stealth('stealth_pngcomp', bomb));
    expect(readAlphaStealth(big)).toEqual({ found: true, magic: 'stealth_pngcomp', problem });
    const atCap = embed(noise(300, 300), stealth('stealth_pngcomp', gzipSync(Buffer.alloc(MAX_PAYLOAD_BYTES, 0x61))));
    const out = readAlphaStealth(atCap);
    expect(out.found && out.text).toBe('a'.repeat(MAX_PAYLOAD_BYTES));
  });
});

describe('magicRegion', () => {
  it('the first 120 rows of column 0, or as many whole columns as 120 bits take', () => {
    expect(magicRegion(500, 400)).toEqual({ width: 1, height: 120 });
    expect(magicRegion(500, 120)).toEqual({ width: 1, height: 120 });
    expect(magicRegion(500, 119)).toEqual({ width: 2, height: 119 });
    expect(magicRegion(500, 7)).toEqual({ width: 18, height: 7 });
    expect(magicRegion(500, 1)).toEqual({ width: 120, height: 1 });
    expect(magicRegion(10, 1)).toEqual({ width: 10, height: 1 });
    expect(magicRegion(10, 0)).toEqual({ width: 10, height: 0 });
    expect(magicRegion(200, 0)).toEqual({ width: 120, height: 0 });
  });

  it('the region cut out of a picture reads the same magic as the whole picture', () => {
    for (const [w, h] of [[300, 7], [50, 130], [130, 1]] as const) {
      const whole = embed(noise(w, h), stealth('stealth_pngcomp', Buffer.from('x')));
      const r = magicRegion(w, h);
      const data = new Uint8Array(r.width * r.height * 4);
      for (let y = 0; y < r.height; y++) data.set(whole.data.subarray(y * w * 4, (y * w + r.width) * 4), y * r.width * 4);
      expect(stealthMagic({ ...r, channels: 4, data }), `${w}x${h}`).toBe('stealth_pngcomp');
    }
  });
});
