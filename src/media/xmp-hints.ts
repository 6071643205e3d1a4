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

/** The packet whose `<x:xmpmeta` (or `<x:xapmeta`, 10 characters) is at `start`, up to its end
 * tag. The end is looked for after the opening name: `<x:xmpmeta>` without attributes itself ends
 * in `xmpmeta>`. */
function packetAt(b: Uint8Array, start: number): string | undefined {
  const end = indexOf(b, 'xmpmeta>', start + 10, start + MAX_PACKET);
  const endAlt = end < 0 ? indexOf(b, 'xapmeta>', start + 10, start + MAX_PACKET) : end;
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

// Every lookup below is linear in the packet, which is text from the file (up to MAX_PACKET): no
// pattern can retry a long stretch from each of many start positions. Start tags are cut at the
// first `<` or `>` (neither belongs inside a tag of well-formed XML), so the spans that are
// scanned never overlap.

/**
 * The text with each `<![CDATA[...]]>` replaced by its content as it is (XML reads no entity in
 * it), or dropped when `keep` is false, and `outside` applied to the text between the sections.
 * A loop, not a lazy regex that would scan to the end again from every unterminated opening.
 */
function replaceCdata(text: string, keep: boolean, outside: (s: string) => string = (s) => s): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<![CDATA[', from);
    if (open < 0) break;
    const close = text.indexOf(']]>', open + 9);
    if (close < 0) break; // no later opening can close either
    out += outside(text.slice(from, open)) + (keep ? text.slice(open + 9, close) : '');
    from = close + 3;
  }
  return out + outside(text.slice(from));
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    if (e[0] !== '#') return ENTITIES[e]!;
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

function decodeXml(text: string): string {
  return replaceCdata(text, true, decodeEntities);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A packet binds a namespace to one prefix, rarely two; more than this is not looked through. */
const MAX_PREFIXES = 8;
const TAG_END = /[<>]/g;
const RESOURCE = /rdf:resource\s*=\s*(?:"([^"]*)"|'([^']*)')/;
// `[^<>]` in the li's start tag: with `[^>]` each `<rdf:li` left open would scan on to the same
// far `>`.
const FIRST_LI = /<rdf:li(?:\s[^<>]*)?>([^<]*)<\/rdf:li\s*>/;

interface StartTag {
  /** The text between the name and the closing `>` (or `/>`). */
  attributes: string;
  /** Where the text after the tag starts. */
  after: number;
  selfClosing: boolean;
}

/** The well-formed start tags `<name ...>` of the packet, in order. */
function* startTags(xmp: string, name: string): Generator<StartTag> {
  const open = `<${name}`;
  for (let at = xmp.indexOf(open); at >= 0; at = xmp.indexOf(open, at + 1)) {
    const nameEnd = at + open.length;
    TAG_END.lastIndex = nameEnd;
    const end = TAG_END.exec(xmp)?.index;
    if (end === undefined) return; // no `>` anywhere after: no tag can close
    if (xmp[end] === '<') continue; // cut short by another tag
    const selfClosing = xmp[end - 1] === '/';
    const attributes = xmp.slice(nameEnd, selfClosing ? end - 1 : end);
    if (attributes !== '' && !/^\s/.test(attributes)) continue; // a longer name, `<name/x>`
    yield { attributes, after: end + 1, selfClosing };
  }
}

/** Where the first `</name>` (spaces allowed before the `>`) at or after `from` starts. */
function closingTag(xmp: string, name: string, from: number): number {
  const close = `</${name}`;
  for (let at = xmp.indexOf(close, from); at >= 0; at = xmp.indexOf(close, at + 1)) {
    let p = at + close.length;
    while (p < xmp.length && /\s/.test(xmp[p]!)) p++;
    if (xmp[p] === '>') return at;
  }
  return -1;
}

/** The attribute `name="..."` (or '...') anywhere in the packet. */
function attributeForm(xmp: string, name: string): string | undefined {
  const m = new RegExp(`[\\s"']${escapeRegExp(name)}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(xmp);
  return m?.[1] ?? m?.[2];
}

/** `<name rdf:resource="..."/>`: the first self-closing tag of the name with that attribute. */
function resourceForm(xmp: string, name: string): string | undefined {
  for (const tag of startTags(xmp, name)) {
    if (!tag.selfClosing || tag.attributes === '') continue;
    const m = RESOURCE.exec(tag.attributes);
    if (m) return m[1] ?? m[2];
  }
  return undefined;
}

/** `<name>value</name>`: the content of the first element of the name that is not self-closing. */
function elementForm(xmp: string, name: string): string | undefined {
  for (const tag of startTags(xmp, name)) {
    if (tag.selfClosing) continue;
    const close = closingTag(xmp, name, tag.after);
    return close < 0 ? undefined : xmp.slice(tag.after, close);
  }
  return undefined;
}

/**
 * The value of XMP property `localName` in namespace `namespace`, under whatever prefix the packet
 * binds to it: as an attribute (`Iptc4xmpExt:DigitalSourceType="..."`), an element with a text
 * value, an element with `rdf:resource`, or an element holding an rdf:Alt/Seq/Bag, whose first
 * rdf:li is taken (`dc:description`). At most MAX_VALUE characters.
 */
export function xmpProperty(xmp: string, namespace: string, localName: string): string | undefined {
  const ns = escapeRegExp(namespace);
  // A prefix is an XML name; 64 characters is far past any real one.
  const bind = new RegExp(`xmlns:([A-Za-z_][\\w.-]{0,63})\\s*=\\s*(?:"${ns}"|'${ns}')`, 'g');
  const prefixes = new Set<string>();
  for (const m of xmp.matchAll(bind)) {
    prefixes.add(m[1]!);
    if (prefixes.size >= MAX_PREFIXES) break;
  }
  for (const prefix of prefixes) {
    const name = `${prefix}:${localName}`;
    for (const form of [attributeForm, resourceForm, elementForm]) {
      let raw = form(xmp, name);
      // Markup outside the value's CDATA sections is an rdf container: its first rdf:li is taken.
      if (raw !== undefined && replaceCdata(raw, false).includes('<')) raw = FIRST_LI.exec(raw)?.[1];
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
