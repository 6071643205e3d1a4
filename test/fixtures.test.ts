// Proves that every fixture in test/fixtures/make.ts is what it claims to be, using real readers:
// the c2pa-rs wasm reader, exifr, zlib, and (when installed) libjpeg's djpeg.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
// @ts-expect-error exifr ships no types for this entry point
import exifr from 'exifr/dist/full.esm.mjs';
import {
  APPLE_MAKER_NOTE,
  EMPTY,
  NOT_MEDIA,
  crc32,
  exifApp1,
  makePki,
  readC2pa,
  sha256Hex,
  signC2pa,
  simpleManifest,
  tamper,
  tinyJpeg,
  tinyMp4,
  tinyPng,
  tinyTiff,
  truncate,
  type Pki,
} from './fixtures/make.js';

const EXIFR_OPTS = { makerNote: true, translateValues: false, reviveValues: false };

// ---- minimal independent readers -------------------------------------------------------------

interface JpegInfo {
  markers: number[];
  width: number;
  height: number;
  components: number;
  blocksDecoded: number;
  app1?: Uint8Array;
}

/** Walks a baseline JPEG and Huffman-decodes every block of its single interleaved scan. */
function decodeJpeg(b: Uint8Array): JpegInfo {
  expect([b[0], b[1]]).toEqual([0xff, 0xd8]);
  const markers: number[] = [];
  const dcTables = new Map<number, Map<string, number>>();
  const acTables = new Map<number, Map<string, number>>();
  let width = 0;
  let height = 0;
  let comps: { id: number; h: number; v: number }[] = [];
  let app1: Uint8Array | undefined;
  let p = 2;
  for (;;) {
    expect(b[p]).toBe(0xff);
    const m = b[p + 1]!;
    markers.push(m);
    const len = (b[p + 2]! << 8) | b[p + 3]!;
    const seg = b.subarray(p + 4, p + 2 + len);
    if (m === 0xe1 && !app1) app1 = seg;
    if (m === 0xc0) {
      height = (seg[1]! << 8) | seg[2]!;
      width = (seg[3]! << 8) | seg[4]!;
      comps = Array.from({ length: seg[5]! }, (_, i) => ({ id: seg[6 + 3 * i]!, h: seg[7 + 3 * i]! >> 4, v: seg[7 + 3 * i]! & 15 }));
    }
    if (m === 0xc4) {
      let q = 0;
      while (q < seg.length) {
        const tc = seg[q]! >> 4;
        const th = seg[q]! & 15;
        const counts = Array.from(seg.subarray(q + 1, q + 17));
        const total = counts.reduce((a, c) => a + c, 0);
        const vals = seg.subarray(q + 17, q + 17 + total);
        const table = new Map<string, number>();
        let code = 0;
        let k = 0;
        counts.forEach((n, i) => {
          for (let j = 0; j < n; j++) table.set((code++).toString(2).padStart(i + 1, '0'), vals[k++]!);
          code <<= 1;
        });
        (tc === 0 ? dcTables : acTables).set(th, table);
        q += 17 + total;
      }
    }
    p += 2 + len;
    if (m === 0xda) {
      const ns = seg[0]!;
      const sel = Array.from({ length: ns }, (_, i) => ({ dc: seg[2 + 2 * i]! >> 4, ac: seg[2 + 2 * i]! & 15 }));
      // Un-stuff the entropy-coded data up to EOI.
      const bits: number[] = [];
      let q = p;
      while (!(b[q] === 0xff && b[q + 1] !== 0x00)) {
        for (let i = 7; i >= 0; i--) bits.push((b[q]! >> i) & 1);
        q += b[q] === 0xff ? 2 : 1;
      }
      expect([b[q], b[q + 1]]).toEqual([0xff, 0xd9]);
      expect(q + 2).toBe(b.length);
      let bp = 0;
      const sym = (t: Map<string, number>) => {
        let s = '';
        while (s.length <= 16) {
          s += bits[bp++];
          if (t.has(s)) return t.get(s)!;
        }
        throw new Error('bad Huffman code');
      };
      let blocks = 0;
      const mcus = Math.ceil(width / 8) * Math.ceil(height / 8);
      for (let mcu = 0; mcu < mcus; mcu++) {
        for (let c = 0; c < ns; c++) {
          const dcSize = sym(dcTables.get(sel[c]!.dc)!);
          bp += dcSize;
          for (let k = 1; k < 64; ) {
            const rs = sym(acTables.get(sel[c]!.ac)!);
            if (rs === 0) break;
            k += (rs >> 4) + 1;
            bp += rs & 15;
          }
          blocks++;
        }
      }
      expect(bits.length - bp).toBeLessThan(8); // only padding left
      expect(bits.slice(bp).every((x) => x === 1)).toBe(true);
      return { markers, width, height, components: comps.length, blocksDecoded: blocks, app1 };
    }
  }
}

function pngChunks(b: Uint8Array): { type: string; data: Uint8Array; crcOk: boolean }[] {
  expect(Array.from(b.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = [];
  let p = 8;
  while (p < b.length) {
    const len = dv.getUint32(p);
    const type = String.fromCharCode(...b.subarray(p + 4, p + 8));
    out.push({ type, data: b.subarray(p + 8, p + 8 + len), crcOk: crc32(b.subarray(p + 4, p + 8 + len)) === dv.getUint32(p + 8 + len) });
    p += 12 + len;
  }
  expect(p).toBe(b.length);
  return out;
}

interface Box {
  type: string;
  start: number;
  size: number;
  children?: Box[];
  body: Uint8Array;
}
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'dinf']);
function boxes(b: Uint8Array, from = 0, to = b.length): Box[] {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Box[] = [];
  let p = from;
  while (p < to) {
    const size = dv.getUint32(p);
    expect(size).toBeGreaterThanOrEqual(8);
    const type = String.fromCharCode(...b.subarray(p + 4, p + 8));
    const box: Box = { type, start: p, size, body: b.subarray(p + 8, p + size) };
    if (CONTAINERS.has(type)) box.children = boxes(b, p + 8, p + size);
    out.push(box);
    p += size;
  }
  expect(p).toBe(to);
  return out;
}
function find(list: Box[], ...pathTypes: string[]): Box {
  let cur: Box | undefined;
  let l = list;
  for (const t of pathTypes) {
    cur = l.find((x) => x.type === t);
    expect(cur, `box ${t}`).toBeDefined();
    l = cur!.children ?? [];
  }
  return cur!;
}

function hasDjpeg(): boolean {
  try {
    execFileSync('djpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const tempDirs: string[] = [];
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'prov-fx-'));
  tempDirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

const activeOf = (store: any) => store.manifests[store.active_manifest];
const codes = (store: any) => (store.validation_status ?? []).map((s: any) => s.code as string);

// ---- tests -----------------------------------------------------------------------------------

describe('plain fixtures', () => {
  it('EMPTY, NOT_MEDIA and truncate', () => {
    expect(EMPTY.length).toBe(0);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(NOT_MEDIA)).toMatch(/not a media file/);
    const j = tinyJpeg();
    expect(truncate(j, 10)).toEqual(j.subarray(0, 10));
    expect(truncate(j, 10000).length).toBe(j.length);
    expect(truncate(j, -1).length).toBe(0);
  });
});

describe('tinyJpeg', () => {
  it('is a decodable baseline JPEG of the requested size', () => {
    const info = decodeJpeg(tinyJpeg({ width: 24, height: 16 }));
    expect(info.width).toBe(24);
    expect(info.height).toBe(16);
    expect(info.components).toBe(3);
    expect(info.blocksDecoded).toBe(3 * 2 * 3);
    expect(info.markers).toContain(0xc0); // SOF0: baseline
    expect(info.markers[0]).toBe(0xe0); // JFIF when there is no EXIF
  });

  it('seed changes the pixels, same seed gives the same bytes', () => {
    const a = tinyJpeg({ seed: 1 });
    expect(sha256Hex(a)).toBe(sha256Hex(tinyJpeg({ seed: 1 })));
    expect(sha256Hex(a)).not.toBe(sha256Hex(tinyJpeg({ seed: 2 })));
  });

  it.skipIf(!hasDjpeg())('libjpeg decodes it', () => {
    const ppm = execFileSync('djpeg', ['-pnm'], { input: tinyJpeg({ seed: 7, width: 16, height: 8 }) });
    expect(ppm.subarray(0, 2).toString()).toBe('P6');
    expect(ppm.toString('latin1')).toMatch(/^P6\s+16\s+8\s+255\s/);
  });

  it('carries an EXIF APP1 right after SOI that exifr reads', async () => {
    const exif = exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.4.1', makerNote: APPLE_MAKER_NOTE, dateTime: '2024:05:01 12:00:00' });
    const jpg = tinyJpeg({ exif, seed: 3 });
    expect([jpg[2], jpg[3]]).toEqual([0xff, 0xe1]);
    const info = decodeJpeg(jpg);
    expect(info.app1).toEqual(exif);
    const tags = await exifr.parse(jpg, EXIFR_OPTS);
    expect(tags.Make).toBe('Apple');
    expect(tags.Model).toBe('iPhone 15 Pro');
    expect(tags.Software).toBe('17.4.1');
    expect(tags.ModifyDate).toBe('2024:05:01 12:00:00');
    expect(tags.makerNote).toBeInstanceOf(Uint8Array);
    expect(Array.from(tags.makerNote as Uint8Array)).toEqual(Array.from(APPLE_MAKER_NOTE));
  });
});

describe('exifApp1 / APPLE_MAKER_NOTE', () => {
  it('starts with Exif\\0\\0 + little-endian TIFF header', () => {
    const e = exifApp1({ make: 'Canon' });
    expect(new TextDecoder().decode(e.subarray(0, 6))).toBe('Exif\0\0');
    expect(Array.from(e.subarray(6, 10))).toEqual([0x49, 0x49, 0x2a, 0x00]);
  });

  it('omits the maker note when not given', async () => {
    const tags = await exifr.parse(tinyJpeg({ exif: exifApp1({ make: 'NIKON CORPORATION', model: 'NIKON Z 6' }) }), EXIFR_OPTS);
    expect(tags.Make).toBe('NIKON CORPORATION');
    expect(tags.Model).toBe('NIKON Z 6');
    expect(tags.makerNote).toBeUndefined();
  });

  it('APPLE_MAKER_NOTE looks like an Apple one', () => {
    expect(new TextDecoder().decode(APPLE_MAKER_NOTE.subarray(0, 10))).toBe('Apple iOS\0');
    expect(new TextDecoder().decode(APPLE_MAKER_NOTE.subarray(12, 14))).toBe('MM');
  });
});

describe('tinyTiff', () => {
  it('is a valid TIFF with camera tags and a maker note', async () => {
    const tif = tinyTiff({ make: 'Apple', model: 'iPhone 13', software: '16.0', makerNote: APPLE_MAKER_NOTE });
    expect(Array.from(tif.subarray(0, 4))).toEqual([0x49, 0x49, 0x2a, 0x00]);
    const tags = await exifr.parse(tif, { ...EXIFR_OPTS, ifd0: true });
    expect(tags.Make).toBe('Apple');
    expect(tags.Model).toBe('iPhone 13');
    expect(tags.Software).toBe('16.0');
    expect(tags.ImageWidth).toBe(8);
    expect(tags.ImageHeight).toBe(8);
    expect(Array.from(tags.makerNote as Uint8Array)).toEqual(Array.from(APPLE_MAKER_NOTE));
    // the strip really is where StripOffsets says, and fits
    expect(tags.StripOffsets + tags.StripByteCounts).toBe(tif.length);
  });

  it('works without any camera tags', async () => {
    const tags = await exifr.parse(tinyTiff(), EXIFR_OPTS);
    expect(tags.Make).toBeUndefined();
    expect(tags.ImageWidth).toBe(8);
  });
});

describe('tinyPng', () => {
  it('has IHDR/IDAT/IEND with correct CRCs and inflatable pixels', () => {
    const chunks = pngChunks(tinyPng());
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(chunks.every((c) => c.crcOk)).toBe(true);
    const ihdr = new DataView(chunks[0]!.data.buffer, chunks[0]!.data.byteOffset);
    expect([ihdr.getUint32(0), ihdr.getUint32(4)]).toEqual([8, 8]);
    expect(inflateSync(chunks[1]!.data).length).toBe(8 * (1 + 8 * 3));
  });

  it('seed changes the bytes', () => {
    expect(sha256Hex(tinyPng({ seed: 1 }))).not.toBe(sha256Hex(tinyPng({ seed: 2 })));
  });
});

describe('tinyMp4', () => {
  it.each([
    [false, 'vide'],
    [true, 'soun'],
  ])('audioOnly=%s is well-formed ISO-BMFF with handler %s', (audioOnly, handler) => {
    const mp4 = tinyMp4({ audioOnly });
    const top = boxes(mp4);
    expect(top.map((b) => b.type)).toEqual(['ftyp', 'moov', 'mdat']);
    const ftyp = find(top, 'ftyp').body;
    expect(new TextDecoder().decode(ftyp.subarray(0, 4))).toBe('isom');
    expect(new TextDecoder().decode(ftyp.subarray(8))).toBe('isommp42');
    find(top, 'moov', 'mvhd');
    find(top, 'moov', 'trak', 'tkhd');
    find(top, 'moov', 'trak', 'mdia', 'mdhd');
    const hdlr = find(top, 'moov', 'trak', 'mdia', 'hdlr').body;
    expect(new TextDecoder().decode(hdlr.subarray(8, 12))).toBe(handler);
    for (const t of ['stsd', 'stts', 'stsc', 'stsz', 'stco']) find(top, 'moov', 'trak', 'mdia', 'minf', 'stbl', t);
    expect(find(top, 'mdat').body.length).toBeGreaterThan(0);
  });
});

describe('makePki', () => {
  let dir: string;
  let pki: Pki;
  beforeAll(() => {
    dir = tempDir();
    pki = makePki(dir);
  });

  it('makes a leaf that fits the C2PA profile, chained to a root', () => {
    expect(pki.chainDer).toHaveLength(2);
    expect(makePki(dir)).toBe(pki); // cached
    const text = execFileSync('openssl', ['x509', '-noout', '-text', '-inform', 'DER'], { input: pki.chainDer[0] }).toString();
    expect(text).toMatch(/Version: 3/);
    expect(text).toMatch(/O = Provenance Test Signer, CN = provenance fixtures/);
    expect(text).toMatch(/ASN1 OID: prime256v1/);
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature\s/);
    expect(text).toMatch(/E-mail Protection/);
    expect(text).toMatch(/CA:FALSE/);
    expect(text).toMatch(/Subject Key Identifier/);
    expect(text).toMatch(/Authority Key Identifier/);
    fs.writeFileSync(path.join(dir, 'chain-check.pem'), pki.chainPem);
    const out = execFileSync('openssl', ['verify', '-CAfile', path.join(dir, 'root.pem'), '-untrusted', path.join(dir, 'intermediate.pem'), path.join(dir, 'leaf.pem')]).toString();
    expect(out).toMatch(/OK/);
    expect(pki.keyPem).toMatch(/BEGIN PRIVATE KEY/);
    expect(pki.rootPem).toMatch(/BEGIN CERTIFICATE/);
    expect(pki.rootDer[0]).toBe(0x30);
  });
});

describe('signC2pa / tamper (c2pa-rs wasm reader)', () => {
  let pki: Pki;
  beforeAll(() => {
    pki = makePki(tempDir());
  });

  const cases = [
    ['image/jpeg', () => tinyJpeg({ seed: 5 }), 'assertion.dataHash.mismatch'],
    ['image/png', () => tinyPng({ seed: 5 }), 'assertion.dataHash.mismatch'],
    ['video/mp4', () => tinyMp4(), 'assertion.bmffHash.mismatch'],
    ['audio/mp4', () => tinyMp4({ audioOnly: true }), 'assertion.bmffHash.mismatch'],
  ] as const;

  it.each(cases)('%s: Valid, Trusted with the root as anchor, Invalid when tampered', async (format, make, mismatch) => {
    const signed = await signC2pa(make(), format, simpleManifest('signed', format), pki);

    const store = await readC2pa(signed, format);
    expect(store.validation_state).toBe('Valid');
    expect(codes(store)).toEqual(['signingCredential.untrusted']);
    const m = activeOf(store);
    expect(m.signature_info.issuer).toBe('Provenance Test Signer');
    expect(m.signature_info.common_name).toBe('provenance fixtures');
    expect(m.signature_info.alg).toBe('Es256');
    expect(m.claim_version).toBe(2); // the builder's default
    expect(m.signature_info.time).toBeUndefined();

    const trusted = await readC2pa(signed, format, pki.rootPem);
    expect(trusted.validation_state).toBe('Trusted');
    expect(codes(trusted)).toEqual([]);
    expect(trusted.validation_results.activeManifest.success.map((s: any) => s.code)).toContain('signingCredential.trusted');

    const bad = tamper(signed, format);
    expect(bad.length).toBe(signed.length);
    const tampered = await readC2pa(bad, format);
    expect(tampered.validation_state).toBe('Invalid');
    expect(codes(tampered)).toContain(mismatch);
  });

  it('tampered JPEG and PNG stay parseable', () => {
    // (signature-free copies: tamper only needs the media structure)
    expect(decodeJpeg(tamper(tinyJpeg(), 'image/jpeg')).blocksDecoded).toBe(12);
    expect(pngChunks(tamper(tinyPng(), 'image/png')).every((c) => c.crcOk)).toBe(true);
    expect(boxes(tamper(tinyMp4(), 'video/mp4')).map((b) => b.type)).toEqual(['ftyp', 'moov', 'mdat']);
  });

  it('claimVersion 1 makes a v1 claim', async () => {
    const signed = await signC2pa(tinyJpeg(), 'image/jpeg', simpleManifest('v1.jpg', 'image/jpeg'), pki, { claimVersion: 1 });
    const store = await readC2pa(signed, 'image/jpeg');
    expect(store.validation_state).toBe('Valid');
    expect(activeOf(store).claim_version).toBe(1);
    expect(store.active_manifest).toMatch(/^urn:uuid:/); // v2 labels are urn:c2pa:
  });

  it('keeps EXIF next to the manifest', async () => {
    const jpg = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15', makerNote: APPLE_MAKER_NOTE }) });
    const signed = await signC2pa(jpg, 'image/jpeg', simpleManifest('exif.jpg', 'image/jpeg'), pki);
    expect((await readC2pa(signed, 'image/jpeg')).validation_state).toBe('Valid');
    const tags = await exifr.parse(signed, EXIFR_OPTS);
    expect(tags.Make).toBe('Apple');
    expect(tags.makerNote).toBeInstanceOf(Uint8Array);
  });

  it.each([1, 2] as const)('signedAt adds an RFC 3161 time stamp (claim v%i) that c2pa-rs reports as time', async (claimVersion) => {
    const before = Date.now() - 5000;
    const signed = await signC2pa(tinyJpeg(), 'image/jpeg', simpleManifest('ts.jpg', 'image/jpeg'), pki, { claimVersion, signedAt: true });
    const store = await readC2pa(signed, 'image/jpeg');
    expect(store.validation_state).toBe('Valid');
    const time = Date.parse(activeOf(store).signature_info.time);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now() + 5000);
    expect(store.validation_results.activeManifest.success.map((s: any) => s.code)).toContain('timeStamp.validated');
    const trusted = await readC2pa(signed, 'image/jpeg', pki.rootPem);
    expect(trusted.validation_state).toBe('Trusted');
    expect(trusted.validation_results.activeManifest.success.map((s: any) => s.code)).toContain('timeStamp.trusted');
  });
});
