// Unsigned hints the CLI adds to its own output (never to the /v1 body): the XMP field
// Iptc4xmpExt:DigitalSourceType, which some generators write without any C2PA manifest.
// XMP is plain metadata: anyone can write, change or strip it, so it is reported as a hint.
// Works on bytes alone, so the local and the remote mode read it the same way.
import { findJpegSegment, hasTextAt } from './jpeg-segments.js';

/** The `hints` object on the CLI's JSON lines. */
export interface Hints {
  iptc_digital_source_type?: string;
}

export const IPTC_EXT_NAMESPACE = 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/';

const XMP_APP1 = 'http://ns.adobe.com/xap/1.0/\0';
const PNG_XMP_KEYWORD = 'XML:com.adobe.xmp';
/** A generic scan looks at most this far from the start and from the end of the file. */
export const SCAN_WINDOW = 16 * 1024 * 1024;
/** An XMP packet longer than this is not read. */
export const MAX_PACKET = 2 * 1024 * 1024;
const MAX_VALUE = 1024;

const utf8 = new TextDecoder('utf-8');
const latin1 = new TextDecoder('latin1');

function isJpeg(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

function isPng(b: Uint8Array): boolean {
  return b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a;
}

/** The standard XMP packet of a JPEG: the APP1 segment named `http://ns.adobe.com/xap/1.0/`. */
export function jpegXmp(b: Uint8Array): string | undefined {
  const segment = findJpegSegment(b, ({ marker, start }) => marker === 0xe1 && hasTextAt(b, start, XMP_APP1));
  if (!segment) return undefined;
  const from = segment.start + XMP_APP1.length;
  return utf8.decode(b.subarray(from, Math.min(segment.end, from + MAX_PACKET)));
}

/** The XMP packet of a PNG: the iTXt chunk with keyword `XML:com.adobe.xmp` (maybe compressed). */
export async function pngXmp(b: Uint8Array): Promise<string | undefined> {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 8;
  while (p + 12 <= b.length) {
    const len = dv.getUint32(p);
    const type = latin1.decode(b.subarray(p + 4, p + 8));
    const data = b.subarray(p + 8, Math.min(b.length, p + 8 + len));
    if (type === 'IEND') return undefined;
    if (type === 'iTXt' && hasTextAt(data, 0, `${PNG_XMP_KEYWORD}\0`)) {
      let q = PNG_XMP_KEYWORD.length + 1;
      const compressed = data[q] === 1;
      q += 2; // compression flag, method
      for (let nul = 0; nul < 2 && q < data.length; q++) if (data[q] === 0) nul++; // language tag, translated keyword
      const text = data.subarray(q);
      if (!compressed) return utf8.decode(text.subarray(0, MAX_PACKET));
      try {
        const { inflateSync } = await import('node:zlib');
        return utf8.decode(inflateSync(text, { maxOutputLength: MAX_PACKET }));
      } catch {
        return undefined;
      }
    }
    p += 12 + len;
  }
  return undefined;
}

function indexOf(b: Uint8Array, text: string, from: number, to: number): number {
  const needle = Buffer.from(text, 'latin1');
  const hay = Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, Math.min(to, b.length) - from));
  const i = hay.indexOf(needle);
  return i < 0 ? -1 : from + i;
}

function packetAt(b: Uint8Array, start: number): string | undefined {
  const end = indexOf(b, 'xmpmeta>', start, start + MAX_PACKET);
  const endAlt = end < 0 ? indexOf(b, 'xapmeta>', start, start + MAX_PACKET) : end;
  if (endAlt < 0) return undefined;
  return utf8.decode(b.subarray(start, endAlt + 8));
}

/**
 * Any other format (TIFF, WebP, HEIF, MP4, GIF, ...): the first `<x:xmpmeta` packet within the
 * first and the last SCAN_WINDOW bytes.
 */
export function scanXmp(b: Uint8Array): string | undefined {
  const windows: [number, number][] = [[0, Math.min(b.length, SCAN_WINDOW)]];
  if (b.length > SCAN_WINDOW) windows.push([Math.max(SCAN_WINDOW - 16, b.length - SCAN_WINDOW), b.length]);
  for (const [from, to] of windows) {
    for (const open of ['<x:xmpmeta', '<x:xapmeta']) {
      const at = indexOf(b, open, from, to);
      if (at >= 0) {
        const packet = packetAt(b, at);
        if (packet) return packet;
      }
    }
  }
  return undefined;
}

/** The XMP packet of a file, by its container where it has one, else by a bounded scan. */
export async function xmpPacket(bytes: Uint8Array): Promise<string | undefined> {
  // A JPEG's or PNG's own packet only: a scan could pick up the XMP of a thumbnail or of an
  // ingredient stored inside the C2PA manifest.
  if (isJpeg(bytes)) return jpegXmp(bytes);
  if (isPng(bytes)) return pngXmp(bytes);
  return scanXmp(bytes);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
      if (e[0] !== '#') return ENTITIES[e]!;
      const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The value of XMP property `localName` in namespace `namespace`, under whatever prefix the packet
 * binds to it: as an attribute (`Iptc4xmpExt:DigitalSourceType="..."`), an element with a text
 * value, an element with `rdf:resource`, or an element holding an rdf:Alt/Seq/Bag, whose first
 * rdf:li is taken (`dc:description`). At most MAX_VALUE characters.
 */
export function xmpProperty(xmp: string, namespace: string, localName: string): string | undefined {
  const ns = escapeRegExp(namespace);
  const bind = new RegExp(`xmlns:([A-Za-z_][\\w.-]*)\\s*=\\s*(?:"${ns}"|'${ns}')`, 'g');
  const prefixes = new Set([...xmp.matchAll(bind)].map((m) => m[1]!));
  for (const prefix of prefixes) {
    const name = `${escapeRegExp(prefix)}:${escapeRegExp(localName)}`;
    const patterns = [
      new RegExp(`[\\s"']${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`),
      new RegExp(`<${name}\\s[^>]*?rdf:resource\\s*=\\s*(?:"([^"]*)"|'([^']*)')[^>]*/>`),
      new RegExp(`<${name}(?:\\s[^>]*[^/>])?\\s*>([\\s\\S]*?)</${name}\\s*>`),
    ];
    for (const re of patterns) {
      const m = re.exec(xmp);
      let raw = m?.[1] ?? m?.[2];
      if (raw !== undefined && raw.includes('<')) raw = /<rdf:li(?:\s[^>]*)?>([^<]*)<\/rdf:li\s*>/.exec(raw)?.[1];
      if (raw === undefined) continue;
      const value = decodeXml(raw).trim();
      if (value) return value.slice(0, MAX_VALUE);
    }
  }
  return undefined;
}

/** `DigitalSourceType` in the IPTC Extension namespace (see xmpProperty for the forms read). */
export function digitalSourceTypeFromXmp(xmp: string): string | undefined {
  return xmpProperty(xmp, IPTC_EXT_NAMESPACE, 'DigitalSourceType');
}

/** The CLI's hints for a file, or undefined when it has none. */
export async function readHints(bytes: Uint8Array): Promise<Hints | undefined> {
  const packet = await xmpPacket(bytes);
  if (!packet || !packet.includes('DigitalSourceType')) return undefined;
  const type = digitalSourceTypeFromXmp(packet);
  return type ? { iptc_digital_source_type: type } : undefined;
}
