// The unsigned XMP hint (Iptc4xmpExt:DigitalSourceType): where the packet is found and which
// forms of the property are read.
import { describe, expect, it } from 'vitest';
import { digitalSourceTypeFromXmp, jpegXmp, readHints, scanXmp, SCAN_WINDOW } from '../src/media/xmp-hints.js';
import { concat, tinyJpeg, tinyMp4, tinyPng, tinyTiff } from './fixtures/make.js';
import { IPTC, IPTC_EXT, jpegWithXmp, pngWithXmp, xmpPacket } from './helpers/explained.js';

const AI = `${IPTC}trainedAlgorithmicMedia`;
const enc = new TextEncoder();

describe('digitalSourceTypeFromXmp', () => {
  it.each([
    ['attribute', 'Iptc4xmpExt'],
    ['element', 'Iptc4xmpExt'],
    ['resource', 'Iptc4xmpExt'],
    ['attribute', 'iptcExt'],
    ['element', 'x2'],
    ['resource', 'ns1'],
  ] as const)('reads the %s form under the prefix %s', (form, prefix) => {
    expect(digitalSourceTypeFromXmp(xmpPacket(AI, form, prefix))).toBe(AI);
  });

  it('ignores DigitalSourceType in another namespace', () => {
    const xmp = xmpPacket(AI, 'attribute').replace(IPTC_EXT, 'http://example.com/other/');
    expect(digitalSourceTypeFromXmp(xmp)).toBeUndefined();
  });

  it('ignores the prefix when it is not bound to the IPTC namespace', () => {
    const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description Iptc4xmpExt:DigitalSourceType="${AI}"/></x:xmpmeta>`;
    expect(digitalSourceTypeFromXmp(xmp)).toBeUndefined();
  });

  it("decodes entities, trims, accepts single quotes and other values as written", () => {
    const xmp = `<rdf:Description xmlns:I='${IPTC_EXT}' I:DigitalSourceType='  http://example.test/a?x=1&amp;y=2 '/>`;
    expect(digitalSourceTypeFromXmp(xmp)).toBe('http://example.test/a?x=1&y=2');
  });

  it('an empty value is no hint', () => {
    expect(digitalSourceTypeFromXmp(xmpPacket('', 'element'))).toBeUndefined();
  });
});

describe('readHints: where the packet is', () => {
  it('JPEG: the XMP APP1 segment', async () => {
    expect(await readHints(jpegWithXmp(tinyJpeg(), xmpPacket(AI)))).toEqual({ iptc_digital_source_type: AI });
  });

  it('JPEG: an XMP packet after the image data is not read (it may belong to a thumbnail)', async () => {
    const bytes = concat(tinyJpeg(), enc.encode(xmpPacket(AI)));
    expect(jpegXmp(bytes)).toBeUndefined();
    expect(await readHints(bytes)).toBeUndefined();
  });

  it('PNG: iTXt XML:com.adobe.xmp, plain or compressed', async () => {
    expect(await readHints(pngWithXmp(tinyPng(), xmpPacket(AI, 'element')))).toEqual({ iptc_digital_source_type: AI });
    expect(await readHints(pngWithXmp(tinyPng(), xmpPacket(AI, 'resource'), true))).toEqual({ iptc_digital_source_type: AI });
  });

  it('other formats: a bounded scan for <x:xmpmeta (TIFF, MP4)', async () => {
    expect(await readHints(concat(tinyTiff(), enc.encode(xmpPacket(AI))))).toEqual({ iptc_digital_source_type: AI });
    expect(await readHints(concat(tinyMp4(), enc.encode(xmpPacket(AI, 'element'))))).toEqual({ iptc_digital_source_type: AI });
  });

  it('the scan looks at the start and the end of a large file, not the middle', () => {
    const packet = enc.encode(xmpPacket(AI));
    const big = (at: number) => {
      const b = new Uint8Array(SCAN_WINDOW * 3);
      b.set(packet, at);
      return b;
    };
    expect(scanXmp(big(10))).toContain('DigitalSourceType');
    expect(scanXmp(big(SCAN_WINDOW * 3 - packet.length - 5))).toContain('DigitalSourceType');
    expect(scanXmp(big(SCAN_WINDOW + 100))).toBeUndefined();
  });

  it('files without XMP or without the field have no hints', async () => {
    expect(await readHints(tinyJpeg())).toBeUndefined();
    expect(await readHints(tinyPng())).toBeUndefined();
    expect(await readHints(new Uint8Array())).toBeUndefined();
    const other = xmpPacket(AI).replace(/DigitalSourceType/g, 'Other');
    expect(await readHints(jpegWithXmp(tinyJpeg(), other))).toBeUndefined();
  });

  it('a truncated packet or damaged segments never throw', async () => {
    const bytes = jpegWithXmp(tinyJpeg(), xmpPacket(AI));
    for (const n of [3, 10, 40, 80]) await expect(readHints(bytes.slice(0, n))).resolves.toBeUndefined();
    const png = pngWithXmp(tinyPng(), xmpPacket(AI), true);
    await expect(readHints(png.slice(0, 60))).resolves.toBeUndefined();
  });
});
