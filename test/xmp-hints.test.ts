// xmp-hints.ts on its own: where each container keeps its XMP packet (XMP Specification Part 3:
// a JPEG's APP1 segment named "http://ns.adobe.com/xap/1.0/\0"; a PNG's iTXt chunk with keyword
// "XML:com.adobe.xmp", compressed or not; anything else scanned for "<x:xmpmeta"), laid out here
// byte by byte, and the XML text rules of the lookup (entities, CDATA, tag names, closing tags).
// The forms of the property and its linear scans are pinned in test/xmp-property.test.ts.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IPTC_EXT_NAMESPACE, MAX_PACKET, SCAN_WINDOW, jpegXmp, pngXmp, readHints, scanXmp, xmpPacket, xmpProperty } from '../src/media/xmp-hints.js';

const TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
const NS = `xmlns:Iptc4xmpExt="${IPTC_EXT_NAMESPACE}"`;
const packet = (inner: string, open = 'x:xmpmeta') =>
  `<${open} xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description ${NS}>${inner}</rdf:Description></rdf:RDF></${open}>`;
const withType = (open?: string) => packet(`<Iptc4xmpExt:DigitalSourceType>${TYPE}</Iptc4xmpExt:DigitalSourceType>`, open);

function segment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}
const SOI = Buffer.from([0xff, 0xd8]);
const EOI = Buffer.from([0xff, 0xd9]);
const app1Xmp = (xmp: string, name = 'http://ns.adobe.com/xap/1.0/\0') => segment(0xe1, Buffer.concat([Buffer.from(name, 'latin1'), Buffer.from(xmp, 'utf8')]));

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, data, Buffer.alloc(4)]);
}
const PNG_SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IHDR = chunk('IHDR', Buffer.alloc(13));
const IEND = chunk('IEND', Buffer.alloc(0));
function xmpChunk(xmp: string | Buffer, o: { compressed?: boolean; lang?: string; translated?: string; keyword?: string } = {}): Buffer {
  const text = typeof xmp === 'string' ? Buffer.from(xmp, 'utf8') : xmp;
  return chunk(
    'iTXt',
    Buffer.concat([
      Buffer.from(`${o.keyword ?? 'XML:com.adobe.xmp'}\0`, 'latin1'),
      Buffer.from([o.compressed ? 1 : 0, 0]),
      Buffer.from(`${o.lang ?? ''}\0${o.translated ?? ''}\0`, 'utf8'),
      o.compressed ? deflateSync(text) : text,
    ]),
  );
}
const png = (...chunks: Buffer[]) => Buffer.concat([PNG_SIG, IHDR, ...chunks, IEND]);

describe('jpegXmp', () => {
  it('the APP1 segment named http://ns.adobe.com/xap/1.0/, not an Exif one or another name', () => {
    const xmp = withType();
    const exif = segment(0xe1, Buffer.from('Exif\0\0II*\0<x:xmpmeta>', 'latin1'));
    expect(jpegXmp(Buffer.concat([SOI, exif, app1Xmp(xmp), EOI]))).toBe(xmp);
    expect(jpegXmp(Buffer.concat([SOI, app1Xmp(xmp, 'http://ns.adobe.com/xmp/extension/\0'), EOI]))).toBeUndefined();
    expect(jpegXmp(Buffer.concat([SOI, segment(0xe2, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0'), Buffer.from(xmp)])), EOI]))).toBeUndefined();
    expect(jpegXmp(Buffer.concat([SOI, app1Xmp(''), EOI]))).toBe('');
  });
});

describe('pngXmp', () => {
  it('the iTXt chunk XML:com.adobe.xmp, plain or compressed, after a language tag and translated keyword', async () => {
    const xmp = withType();
    expect(await pngXmp(png(xmpChunk(xmp)))).toBe(xmp);
    expect(await pngXmp(png(xmpChunk(xmp, { compressed: true })))).toBe(xmp);
    expect(await pngXmp(png(xmpChunk(xmp, { lang: 'en-US', translated: 'métadonnées' })))).toBe(xmp);
    expect(await pngXmp(png(xmpChunk(xmp, { compressed: true, lang: 'x', translated: 'y' })))).toBe(xmp);
  });

  it('only that keyword, only before IEND, never a chunk of another type', async () => {
    const xmp = withType();
    expect(await pngXmp(png(xmpChunk(xmp, { keyword: 'XML:com.adobe.xm' })))).toBeUndefined();
    expect(await pngXmp(png(xmpChunk(xmp, { keyword: 'XML:com.adobe.xmpX' })))).toBeUndefined();
    expect(await pngXmp(Buffer.concat([PNG_SIG, IHDR, IEND, xmpChunk(xmp)]))).toBeUndefined();
    const tEXt = chunk('tEXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0'), Buffer.from(xmp)]));
    expect(await pngXmp(png(tEXt))).toBeUndefined();
    // Found after other chunks, the first one of the two.
    expect(await pngXmp(png(chunk('tEXt', Buffer.from('a\0b')), xmpChunk('first'), xmpChunk('second')))).toBe('first');
  });

  it('compressed data that is not zlib, or inflates past the cap, is no packet', async () => {
    const bad = chunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0'), Buffer.from([1, 0, 0, 0]), Buffer.from('not zlib')]));
    expect(await pngXmp(png(bad))).toBeUndefined();
    expect(MAX_PACKET).toBe(2 * 1024 * 1024);
    expect(await pngXmp(png(xmpChunk(Buffer.alloc(MAX_PACKET + 1, 0x20), { compressed: true })))).toBeUndefined();
    expect(await pngXmp(png(xmpChunk(Buffer.alloc(MAX_PACKET, 0x20), { compressed: true })))).toHaveLength(MAX_PACKET);
  });

  it(`an uncompressed packet is read up to ${MAX_PACKET} bytes`, async () => {
    expect(await pngXmp(png(xmpChunk(Buffer.alloc(MAX_PACKET + 5, 0x61))))).toBe('a'.repeat(MAX_PACKET));
  });

  it('a chunk cut by the end of the file is read as far as it goes; fewer than 12 bytes end the walk', async () => {
    const whole = png(xmpChunk('<x:xmpmeta>cut'));
    const cut = whole.subarray(0, whole.length - IEND.length - 4 - 3); // the CRC and "cut" gone
    expect(await pngXmp(cut)).toBe('<x:xmpmeta>');
    expect(await pngXmp(Buffer.concat([PNG_SIG, IHDR.subarray(0, 11)]))).toBeUndefined();
    expect(await pngXmp(Buffer.concat([PNG_SIG, IHDR, Buffer.from([0, 0])]))).toBeUndefined(); // 2 bytes: no chunk
    // A header that has fewer than its two NULs: the text is empty.
    const noNuls = chunk('iTXt', Buffer.from('XML:com.adobe.xmp\0\0\0en'));
    expect(await pngXmp(png(noNuls))).toBe('');
  });
});

describe('scanXmp', () => {
  it('the first <x:xmpmeta packet up to its end tag, or the older x:xapmeta', () => {
    const xmp = withType();
    expect(scanXmp(Buffer.from(`II*\0 junk ${xmp} more <x:xmpmeta>second</x:xmpmeta>`))).toBe(xmp);
    const old = withType('x:xapmeta');
    expect(scanXmp(Buffer.from(`junk ${old} junk`))).toBe(old);
    expect(scanXmp(Buffer.from('junk <x:xmpmeta> never closed'))).toBeUndefined();
    // An x:xmpmeta that never closes does not hide a later x:xapmeta packet.
    expect(scanXmp(Buffer.from(`<x:xmpmeta never closed ${old}`))).toBe(`<x:xmpmeta never closed ${old}`.slice(0, `<x:xmpmeta never closed ${old}`.indexOf('xapmeta>', 30) + 8));
    expect(scanXmp(Buffer.from('<x:xmpmeta a/>'))).toBeUndefined();
    // An opening tag without attributes ends in "xmpmeta>" too: the packet still runs to its end tag.
    const bare = `<x:xmpmeta><rdf:RDF><rdf:Description ${NS} Iptc4xmpExt:DigitalSourceType="${TYPE}"/></rdf:RDF></x:xmpmeta>`;
    expect(scanXmp(Buffer.from(`II*\0${bare}`))).toBe(bare);
    expect(scanXmp(Buffer.from('<x:xapmeta>a</x:xapmeta>'))).toBe('<x:xapmeta>a</x:xapmeta>');
    // An x:xmpmeta never closed, after a whole x:xapmeta packet: the older packet is found.
    expect(scanXmp(Buffer.from('<x:xapmeta>a</x:xapmeta> <x:xmpmeta never closed'))).toBe('<x:xapmeta>a</x:xapmeta>');
  });

  it(`the end tag is looked for within ${MAX_PACKET} bytes of the start`, () => {
    const pad = (n: number) => `<x:xmpmeta>${' '.repeat(n)}</x:xmpmeta>`;
    // The end tag's "xmpmeta>" ends exactly at MAX_PACKET bytes from the start: found.
    const fits = pad(MAX_PACKET - '<x:xmpmeta></x:xmpmeta>'.length);
    expect(scanXmp(Buffer.from(fits))).toHaveLength(MAX_PACKET);
    expect(scanXmp(Buffer.from(pad(MAX_PACKET - '<x:xmpmeta></x:xmpmeta>'.length + 1)))).toBeUndefined();
  });

  it('looks at the first and the last SCAN_WINDOW bytes, and a packet across the boundary of the second', () => {
    expect(SCAN_WINDOW).toBe(16 * 1024 * 1024);
    const xmp = withType();
    const file = Buffer.alloc(SCAN_WINDOW * 2 + 100, 0x20);
    Buffer.from(xmp).copy(file, file.length - xmp.length - 10);
    expect(scanXmp(file)).toBe(xmp);
    const middle = Buffer.alloc(SCAN_WINDOW * 3, 0x20);
    Buffer.from(xmp).copy(middle, SCAN_WINDOW + 100);
    expect(scanXmp(middle)).toBeUndefined();
    // A packet that starts 16 bytes before the end of the first window, in a file just over one
    // window long: the second window starts there and finds it whole.
    const edge = Buffer.alloc(SCAN_WINDOW + 1000, 0x20);
    Buffer.from(xmp).copy(edge, SCAN_WINDOW - 16);
    expect(scanXmp(edge)).toBe(xmp);
    const late = Buffer.alloc(SCAN_WINDOW + 1000, 0x20);
    Buffer.from(xmp).copy(late, SCAN_WINDOW - 5);
    expect(scanXmp(late)).toBe(xmp);
  });
});

describe('xmpPacket: which container', () => {
  it('a JPEG or PNG by its own packet only; anything else by a scan', async () => {
    const xmp = withType();
    const jpeg = Buffer.concat([SOI, segment(0xe0, Buffer.from('JFIF\0')), EOI, Buffer.from(xmp)]);
    expect(await xmpPacket(jpeg)).toBeUndefined(); // after the image: not the JPEG's own
    expect(await xmpPacket(Buffer.concat([SOI, app1Xmp(xmp), EOI]))).toBe(xmp);
    expect(await xmpPacket(Buffer.concat([png(), Buffer.from(xmp)]))).toBeUndefined();
    expect(await xmpPacket(png(xmpChunk(xmp)))).toBe(xmp);
    // Not quite a JPEG (FF D8 then not FF) or a PNG (a byte of the first six changed): scanned.
    expect(await xmpPacket(Buffer.concat([Buffer.from([0xff, 0xd8, 0x00]), Buffer.from(xmp)]))).toBe(xmp);
    expect(await xmpPacket(Buffer.concat([Buffer.from([0xff, 0xd9, 0xff]), Buffer.from(xmp)]))).toBe(xmp);
    for (let i = 0; i < 6; i++) {
      const sig = Buffer.from(PNG_SIG);
      sig[i] = sig[i]! ^ 1;
      expect(await xmpPacket(Buffer.concat([sig, Buffer.from(xmp)])), `PNG byte ${i}`).toBe(xmp);
    }
    expect(await xmpPacket(Buffer.from([0xff, 0xd8]))).toBeUndefined();
    expect(await xmpPacket(Buffer.concat([Buffer.from([0x00, 0xd8, 0xff]), Buffer.from(xmp)]))).toBe(xmp);
  });
});

describe('the XML text of a value', () => {
  const value = (text: string) => xmpProperty(packet(`<Iptc4xmpExt:DigitalSourceType>${text}</Iptc4xmpExt:DigitalSourceType>`), IPTC_EXT_NAMESPACE, 'DigitalSourceType');

  it('entities: the five named, decimal and hexadecimal; out of range ones dropped', () => {
    expect(value('&amp;&lt;&gt;&quot;&apos;')).toBe('&<>"\'');
    expect(value('&#65;&#x42;&#X43;&#x1F600;')).toBe('AB&#X43;😀');
    expect(value('a&#0;b&#x110000;c&#x10FFFF;')).toBe(`abc${String.fromCodePoint(0x10ffff)}`);
    expect(value('&nbsp;&amp')).toBe('&nbsp;&amp');
  });

  it('CDATA sections are text: unwrapped, a `<` inside them is no markup', () => {
    expect(value(`<![CDATA[${TYPE}]]>`)).toBe(TYPE);
    expect(value('<![CDATA[a<b]]> &amp; <![CDATA[&amp;]]>')).toBe('a<b & &amp;');
    expect(value('x<![CDATA[]]>y<![CDATA[z]]>')).toBe('xyz');
    expect(value('<![CDATA[unterminated')).toBeUndefined(); // markup: a container without rdf:li
    expect(value('<![CDATA[a]]><![CDATA[b')).toBeUndefined();
    // Markup outside the sections still makes it a container.
    expect(value('<rdf:Alt><rdf:li>v</rdf:li></rdf:Alt><![CDATA[w]]>')).toBe('v');
  });

  it('trimmed, and cut at 1024 characters', () => {
    expect(value('  \n a b \t')).toBe('a b');
    expect(value('v'.repeat(2000))).toBe('v'.repeat(1024));
    expect(value('   ')).toBeUndefined();
  });

  it('the forms: rdf:resource with spaces around =, rdf:li with or without attributes', () => {
    const p = (inner: string) => xmpProperty(packet(inner), IPTC_EXT_NAMESPACE, 'DigitalSourceType');
    expect(p(`<Iptc4xmpExt:DigitalSourceType rdf:resource = "${TYPE}" />`)).toBe(TYPE);
    expect(p(`<Iptc4xmpExt:DigitalSourceType rdf:resource\n=\t'${TYPE}'/>`)).toBe(TYPE);
    expect(p('<Iptc4xmpExt:DigitalSourceType><rdf:Seq><rdf:li>first</rdf:li ><rdf:li>second</rdf:li></rdf:Seq></Iptc4xmpExt:DigitalSourceType>')).toBe('first');
    expect(p('<Iptc4xmpExt:DigitalSourceType><rdf:Alt><rdf:li xml:lang="x-default">v</rdf:li></rdf:Alt></Iptc4xmpExt:DigitalSourceType>')).toBe('v');
    // rdf:resource on an element that is not self-closing: its text is the value.
    expect(p('<Iptc4xmpExt:DigitalSourceType rdf:resource="r">text</Iptc4xmpExt:DigitalSourceType>')).toBe('text');
    // An element never closed is no value, whatever comes after it.
    expect(p('<Iptc4xmpExt:DigitalSourceType>v<rdf:li>later</rdf:li>')).toBeUndefined();
  });

  it('a tag at the very start of the text, and a start tag cut by the end of the text', () => {
    const own = `<Iptc4xmpExt:DigitalSourceType ${NS}>v</Iptc4xmpExt:DigitalSourceType>`;
    expect(xmpProperty(own, IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBe('v');
    expect(xmpProperty(`<x ${NS}/><Iptc4xmpExt:DigitalSourceType`, IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBeUndefined();
    // Text that ends in a start tag with no > after it: that tag is no element, even with an end
    // tag earlier in the text.
    expect(xmpProperty(` ${NS} v</Iptc4xmpExt:DigitalSourceType> <Iptc4xmpExt:DigitalSourceType`, IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBeUndefined();
  });

  it('an element is closed by its own end tag, spaces allowed before the >', () => {
    const p = (inner: string) => xmpProperty(packet(inner), IPTC_EXT_NAMESPACE, 'DigitalSourceType');
    expect(p('<Iptc4xmpExt:DigitalSourceType>v</Iptc4xmpExt:DigitalSourceType \n>')).toBe('v');
    expect(p('<Iptc4xmpExt:DigitalSourceType>v</Iptc4xmpExt:DigitalSourceTypeX>')).toBeUndefined();
    expect(p('<Iptc4xmpExt:DigitalSourceType>v')).toBeUndefined();
    expect(p('<Iptc4xmpExt:DigitalSourceTypes>w</Iptc4xmpExt:DigitalSourceTypes>')).toBeUndefined();
    expect(p('<Iptc4xmpExt:DigitalSourceType/x>w</Iptc4xmpExt:DigitalSourceType>')).toBeUndefined();
    expect(p('<Iptc4xmpExt:DigitalSourceType <b>w</Iptc4xmpExt:DigitalSourceType>')).toBeUndefined();
    expect(p('<Iptc4xmpExt:DigitalSourceType\tkind="x">w</Iptc4xmpExt:DigitalSourceType>')).toBe('w');
  });
});

describe('readHints', () => {
  it('the source type, or nothing when the packet does not name DigitalSourceType or has no value', async () => {
    expect(await readHints(Buffer.concat([SOI, app1Xmp(withType()), EOI]))).toEqual({ iptc_digital_source_type: TYPE });
    expect(await readHints(Buffer.concat([SOI, app1Xmp(packet('<dc:title>x</dc:title>')), EOI]))).toBeUndefined();
    expect(await readHints(Buffer.concat([SOI, app1Xmp(packet('<Iptc4xmpExt:DigitalSourceType> </Iptc4xmpExt:DigitalSourceType>')), EOI]))).toBeUndefined();
    expect(await readHints(Buffer.from('no packet'))).toBeUndefined();
  });
});
