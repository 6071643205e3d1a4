// The XMP property lookup (xmp-hints.ts) reads start tags and closing tags by linear scans. On
// well-formed packets it must answer exactly what the regular expressions it replaced answered
// (kept here as the reference: quadratic on hostile text, fine on these small packets), and it
// must find the value in each form XMP writers use.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IPTC_EXT_NAMESPACE, readHints, xmpProperty } from '../src/media/xmp-hints.js';
import { iTXt, makePng, patternPixels } from './helpers/generator-fixtures.js';

const DC = 'http://purl.org/dc/elements/1.1/';
const TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

// ---- the reference: the lookup as it was written with regular expressions -------------------
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
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
function referenceProperty(xmp: string, namespace: string, localName: string): string | undefined {
  const ns = esc(namespace);
  const bind = new RegExp(`xmlns:([A-Za-z_][\\w.-]*)\\s*=\\s*(?:"${ns}"|'${ns}')`, 'g');
  const prefixes = new Set([...xmp.matchAll(bind)].map((m) => m[1]!));
  for (const prefix of prefixes) {
    const name = `${esc(prefix)}:${esc(localName)}`;
    const patterns = [
      new RegExp(`[\\s"']${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`),
      new RegExp(`<${name}\\s[^>]*?rdf:resource\\s*=\\s*(?:"([^"]*)"|'([^']*)')[^>]*/>`),
      new RegExp(`<${name}(?:\\s[^>]*[^/>])?\\s*>([\\s\\S]*?)</${name}\\s*>`),
    ];
    for (const re of patterns) {
      const m = re.exec(xmp);
      let raw = m?.[1] ?? m?.[2];
      // (One change since: a value whose only `<` are in CDATA sections is text, not a container.)
      if (raw !== undefined && raw.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '').includes('<')) raw = /<rdf:li(?:\s[^>]*)?>([^<]*)<\/rdf:li\s*>/.exec(raw)?.[1];
      if (raw === undefined) continue;
      const value = decodeXml(raw).trim();
      if (value) return value.slice(0, 1024);
    }
  }
  return undefined;
}
// ---------------------------------------------------------------------------------------------

function packet(bindings: string, attributes: string, elements: string): string {
  return `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""${bindings}${attributes}>${elements}</rdf:Description></rdf:RDF></x:xmpmeta>`;
}

describe('XMP property lookup', () => {
  it('reads each form: attribute, element text, rdf:resource, the first rdf:li, entities', () => {
    const bind = ` xmlns:Iptc4xmpExt="${IPTC_EXT_NAMESPACE}" xmlns:dc="${DC}"`;
    const cases: [string, string, string | undefined][] = [
      [packet(bind, ` Iptc4xmpExt:DigitalSourceType="${TYPE}"`, ''), 'DigitalSourceType', TYPE],
      [packet(bind, '', `<Iptc4xmpExt:DigitalSourceType>${TYPE}</Iptc4xmpExt:DigitalSourceType >`), 'DigitalSourceType', TYPE],
      [packet(bind, '', `<Iptc4xmpExt:DigitalSourceType rdf:resource='${TYPE}' />`), 'DigitalSourceType', TYPE],
      [packet(bind, '', `<Iptc4xmpExt:DigitalSourceType/><Iptc4xmpExt:DigitalSourceType >x &amp; y</Iptc4xmpExt:DigitalSourceType>`), 'DigitalSourceType', 'x & y'],
      [packet(bind, '', '<Iptc4xmpExt:DigitalSourceTypeX>no</Iptc4xmpExt:DigitalSourceTypeX>'), 'DigitalSourceType', undefined],
      [packet(bind, '', '<Iptc4xmpExt:DigitalSourceType>open, never closed'), 'DigitalSourceType', undefined],
      [packet(bind, '', '<dc:description><rdf:Alt><rdf:li xml:lang="x-default"> a &#233;t&#xe9; &lt;night&gt; </rdf:li><rdf:li>second</rdf:li></rdf:Alt></dc:description>'), 'description', 'a été <night>'],
      [packet(bind, '', '<dc:description><rdf:Alt><rdf:li><![CDATA[<b>]]></rdf:li></rdf:Alt></dc:description>'), 'description', undefined],
    ];
    for (const [xmp, name, want] of cases) {
      const ns = name === 'description' ? DC : IPTC_EXT_NAMESPACE;
      expect(xmpProperty(xmp, ns, name), xmp).toBe(want);
      expect(referenceProperty(xmp, ns, name), `reference: ${xmp}`).toBe(want);
    }
  });

  it('looks at no more than 8 prefixes bound to the namespace, of at most 64 characters', () => {
    const many = Array.from({ length: 9 }, (_, i) => ` xmlns:p${i}="${IPTC_EXT_NAMESPACE}"`).join('');
    expect(xmpProperty(packet(many, ` p7:DigitalSourceType="${TYPE}"`, ''), IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBe(TYPE);
    expect(xmpProperty(packet(many, ` p8:DigitalSourceType="${TYPE}"`, ''), IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBeUndefined();
    const long = 'p'.repeat(64);
    expect(xmpProperty(packet(` xmlns:${long}="${IPTC_EXT_NAMESPACE}"`, ` ${long}:DigitalSourceType="${TYPE}"`, ''), IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBe(TYPE);
    const tooLong = 'p'.repeat(65);
    expect(xmpProperty(packet(` xmlns:${tooLong}="${IPTC_EXT_NAMESPACE}"`, ` ${tooLong}:DigitalSourceType="${TYPE}"`, ''), IPTC_EXT_NAMESPACE, 'DigitalSourceType')).toBeUndefined();
  });

  it('answers as the regular expressions did on generated well-formed packets', () => {
    const value = fc.constantFrom('v', ' padded ', TYPE, 'a &amp; b', '&#65;&#x42;', '<![CDATA[c]]>', '', ' ', 'x&lt;y');
    const prefix = fc.constantFrom('I', 'Iptc4xmpExt', 'p.q', 'dc', 'other');
    const ws = fc.constantFrom('', ' ', '\n  ', '\t');
    const binding = fc.tuple(prefix, fc.constantFrom(IPTC_EXT_NAMESPACE, DC, 'http://example.com/ns/'), fc.constantFrom('"', "'"), ws).map(
      ([p, ns, q, w]) => ` xmlns:${p}${w}=${w}${q}${ns}${q}`,
    );
    const local = fc.constantFrom('DigitalSourceType', 'description', 'DigitalSourceTypeX', 'Other');
    const attribute = fc.tuple(prefix, local, value, fc.constantFrom('"', "'"), ws).map(([p, l, v, q, w]) => ` ${p}:${l}${w}=${w}${q}${v.replace(/["'<]/g, '')}${q}`);
    const element = fc.oneof(
      fc.tuple(prefix, local, value, ws).map(([p, l, v, w]) => `<${p}:${l}${w}>${v}</${p}:${l}${w}>`),
      fc.tuple(prefix, local, value, ws).map(([p, l, v, w]) => `<${p}:${l} rdf:resource="${v.replace(/["'<>]/g, '')}"${w}/>`),
      fc.tuple(prefix, local, ws).map(([p, l, w]) => `<${p}:${l}${w}/>`),
      fc.tuple(prefix, local, fc.array(value, { minLength: 1, maxLength: 3 }), fc.constantFrom('Alt', 'Seq', 'Bag')).map(
        ([p, l, vs, kind]) => `<${p}:${l}><rdf:${kind}>${vs.map((v) => `<rdf:li xml:lang="x-default">${v}</rdf:li>`).join('')}</rdf:${kind}></${p}:${l}>`,
      ),
      fc.tuple(prefix, local, value).map(([p, l, v]) => `<${p}:${l} a="1" b='2'>${v}</${p}:${l}>`),
    );
    fc.assert(
      fc.property(fc.array(binding, { maxLength: 4 }), fc.array(attribute, { maxLength: 3 }), fc.array(element, { maxLength: 4 }), local, (b, a, e, name) => {
        const xmp = packet(b.join(''), a.join(''), e.join(''));
        for (const ns of [IPTC_EXT_NAMESPACE, DC]) expect(xmpProperty(xmp, ns, name), xmp).toBe(referenceProperty(xmp, ns, name));
      }),
      { numRuns: 3000 },
    );
  });

  it('readHints finds the source type in a PNG whose XMP is a compressed iTXt chunk', async () => {
    const xmp = packet(` xmlns:Iptc4xmpExt="${IPTC_EXT_NAMESPACE}"`, '', `<Iptc4xmpExt:DigitalSourceType rdf:resource="${TYPE}"/>`);
    const png = makePng(patternPixels(4, 4, 3), { before: [iTXt('XML:com.adobe.xmp', xmp, true)] });
    expect(await readHints(png)).toEqual({ iptc_digital_source_type: TYPE });
  });
});
