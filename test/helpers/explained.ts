// Fixtures for issue 7 (C2PA explained): manifests that name (or do not name) an IPTC digital
// source type, the legacy generative-AI assertion, ingredients, and files that carry only the
// XMP field Iptc4xmpExt:DigitalSourceType. Built in memory with the project's fixture library.
import { deflateSync } from 'node:zlib';
import { concat, crc32, signC2pa, type IngredientSpec, type Pki, type SignOptions } from '../fixtures/make.js';

export const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
export const IPTC_EXT = 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/';
const enc = new TextEncoder();

/** A manifest definition with one actions assertion under `label` (c2pa.actions or c2pa.actions.v2). */
export function actionsManifest(
  title: string,
  format: string,
  actions: object[],
  opts: { label?: string; extra?: object[]; ingredients?: object[] } = {},
): object {
  return {
    claim_generator_info: [{ name: 'provenance-fixtures', version: '1.0' }],
    title,
    format,
    assertions: [{ label: opts.label ?? 'c2pa.actions', data: { actions } }, ...(opts.extra ?? [])],
    ...(opts.ingredients ? { ingredients: opts.ingredients } : {}),
  };
}

export function created(sourceType?: string, extra: object = {}): object {
  return { action: 'c2pa.created', ...(sourceType ? { digitalSourceType: IPTC + sourceType } : {}), ...extra };
}

export type { IngredientSpec } from '../fixtures/make.js';

/** Like signC2pa, with ingredients added to the builder (signed ones keep their manifest). */
export function signWithIngredients(
  asset: Uint8Array,
  format: string,
  manifest: object,
  pki: Pki,
  ingredients: IngredientSpec[],
  opts: SignOptions = {},
): Promise<Uint8Array> {
  return signC2pa(asset, format, manifest, pki, { ...opts, ingredients });
}

// ---------------------------------------------------------------------------------------------
// XMP

/** An XMP packet with DigitalSourceType as an attribute, an element, or an rdf:resource. */
export function xmpPacket(value: string, form: 'attribute' | 'element' | 'resource' = 'attribute', prefix = 'Iptc4xmpExt'): string {
  const ns = `xmlns:${prefix}="${IPTC_EXT}"`;
  const body =
    form === 'attribute'
      ? `<rdf:Description rdf:about="" ${ns} ${prefix}:DigitalSourceType="${value}"/>`
      : form === 'element'
        ? `<rdf:Description rdf:about="" ${ns}>\n    <${prefix}:DigitalSourceType>${value}</${prefix}:DigitalSourceType>\n   </rdf:Description>`
        : `<rdf:Description rdf:about="" ${ns}>\n    <${prefix}:DigitalSourceType rdf:resource="${value}"/>\n   </rdf:Description>`;
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="provenance-fixtures">',
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    `  ${body}`,
    ' </rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

/** The JPEG with an XMP APP1 segment right after SOI. */
export function jpegWithXmp(jpeg: Uint8Array, xmp: string): Uint8Array {
  const payload = concat(enc.encode('http://ns.adobe.com/xap/1.0/\0'), enc.encode(xmp));
  const len = payload.length + 2;
  const segment = concat(new Uint8Array([0xff, 0xe1, len >>> 8, len & 0xff]), payload);
  return concat(jpeg.subarray(0, 2), segment, jpeg.subarray(2));
}

function u32be(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

/** The PNG with an iTXt `XML:com.adobe.xmp` chunk after IHDR, plain or zlib-compressed. */
export function pngWithXmp(png: Uint8Array, xmp: string, compressed = false): Uint8Array {
  const text = enc.encode(xmp);
  const data = concat(
    enc.encode('XML:com.adobe.xmp\0'),
    new Uint8Array([compressed ? 1 : 0, 0]),
    enc.encode('\0\0'), // no language tag, no translated keyword
    compressed ? new Uint8Array(deflateSync(text)) : text,
  );
  const typed = concat(enc.encode('iTXt'), data);
  const chunk = concat(u32be(data.length), typed, u32be(crc32(typed)));
  const ihdrEnd = 8 + 12 + 13;
  return concat(png.subarray(0, ihdrEnd), chunk, png.subarray(ihdrEnd));
}

// ---------------------------------------------------------------------------------------------
// The issue-7 fixture set, written to `dir` as files too (name.jpg / name.png)

export interface ExplainedSet {
  pki: Pki;
  /** A second, unrelated CA: as an anchor it must not make anything trusted. */
  otherPki: Pki;
  bytes: Record<string, Uint8Array>;
  type: Record<string, string>;
  /** name -> file path in `dir`. */
  file: Record<string, string>;
}

export async function makeExplainedSet(dir: string): Promise<ExplainedSet> {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { makePki, simpleManifest, tinyJpeg, tinyPng } = await import('../fixtures/make.js');
  mkdirSync(dir, { recursive: true });
  const pki = makePki(join(dir, 'pki'));
  const otherPki = makePki(join(dir, 'other-pki'));
  const set: ExplainedSet = { pki, otherPki, bytes: {}, type: {}, file: {} };
  const jpeg = 'image/jpeg';
  const png = 'image/png';
  const AI = `${IPTC}trainedAlgorithmicMedia`;
  const COMPOSITE = `${IPTC}compositeWithTrainedAlgorithmicMedia`;
  const add = async (name: string, t: string, bytes: Promise<Uint8Array> | Uint8Array) => {
    set.bytes[name] = await bytes;
    set.type[name] = t;
    set.file[name] = join(dir, `${name}.${t === png ? 'png' : 'jpg'}`);
    writeFileSync(set.file[name]!, set.bytes[name]!);
  };
  const opened = (id: string) => ({ action: 'c2pa.opened', parameters: { ingredientIds: [id] } });

  await add('ai-v2', jpeg, signC2pa(tinyJpeg({ seed: 71 }), jpeg, actionsManifest('ai-v2.jpg', jpeg, [created('trainedAlgorithmicMedia')], { label: 'c2pa.actions.v2' }), pki, { signedAt: true }));
  // The wasm builder records every actions assertion as c2pa.actions.v2; a recorded v1
  // c2pa.actions is covered by the corpus file C.jpg.
  await add('ai-v1', jpeg, signC2pa(tinyJpeg({ seed: 72 }), jpeg, actionsManifest('ai-v1.jpg', jpeg, [created('trainedAlgorithmicMedia')]), pki, { claimVersion: 1 }));
  await add(
    'ai-v1-param',
    jpeg,
    signC2pa(tinyJpeg({ seed: 73 }), jpeg, actionsManifest('ai-v1-param.jpg', jpeg, [{ action: 'c2pa.created', parameters: { 'com.adobe.digitalSourceType': AI } }]), pki, {
      claimVersion: 1,
    }),
  );
  await add('composite', png, signC2pa(tinyPng({ seed: 74 }), png, actionsManifest('composite.png', png, [created('compositeWithTrainedAlgorithmicMedia')]), pki, { signedAt: true }));
  // algorithmicMedia: made by an algorithm without training data, so not AI-generated (issue 18).
  await add('algorithmic', jpeg, signC2pa(tinyJpeg({ seed: 70 }), jpeg, actionsManifest('algorithmic.jpg', jpeg, [created('algorithmicMedia')], { label: 'c2pa.actions.v2' }), pki, { signedAt: true }));
  await add('capture', jpeg, signC2pa(tinyJpeg({ seed: 75 }), jpeg, simpleManifest('capture.jpg', jpeg), pki, { signedAt: true }));
  // Claim v1 allows c2pa.created without a source type (v2 requires one).
  await add('none', jpeg, signC2pa(tinyJpeg({ seed: 76 }), jpeg, actionsManifest('none.jpg', jpeg, [created()]), pki, { claimVersion: 1 }));
  await add(
    'legacy',
    jpeg,
    signC2pa(tinyJpeg({ seed: 77 }), jpeg, actionsManifest('legacy.jpg', jpeg, [created()], { extra: [{ label: 'com.adobe.generative-ai', data: { description: 'Made with a generative model' } }] }), pki, {
      claimVersion: 1,
    }),
  );
  // A photo, then a generative edit: the AI type of the edit decides.
  await add('edited', jpeg, signC2pa(tinyJpeg({ seed: 78 }), jpeg, actionsManifest('edited.jpg', jpeg, [created('digitalCapture'), { action: 'c2pa.edited', digitalSourceType: COMPOSITE }]), pki));
  // Ingredients: a signed AI-generated parent (with its own manifest) and an unsigned logo.
  const parent = await signC2pa(tinyJpeg({ seed: 79 }), jpeg, actionsManifest('parent.jpg', jpeg, [created('trainedAlgorithmicMedia')]), pki);
  await add(
    'ingredients',
    jpeg,
    signWithIngredients(
      tinyJpeg({ seed: 80 }),
      jpeg,
      actionsManifest('child.jpg', jpeg, [opened('parent'), { action: 'c2pa.placed', parameters: { ingredientIds: ['logo'] } }]),
      pki,
      [
        { json: { title: 'parent.jpg', relationship: 'parentOf', label: 'parent' }, bytes: parent, format: jpeg },
        { json: { title: 'logo.png', format: 'image/png', relationship: 'componentOf', label: 'logo' } },
      ],
      { signedAt: true },
    ),
  );
  // Four generations: the card draws three and counts the rest.
  let generation = await signC2pa(tinyJpeg({ seed: 84 }), jpeg, actionsManifest('gen0.jpg', jpeg, [created('digitalCapture')]), pki);
  for (let g = 1; g <= 4; g++) {
    const actions = g === 2 ? [opened('prev'), { action: 'c2pa.edited', digitalSourceType: COMPOSITE }] : [opened('prev')];
    generation = await signWithIngredients(tinyJpeg({ seed: 84 + g }), jpeg, actionsManifest(`gen${g}.jpg`, jpeg, actions), pki, [
      { json: { title: `gen${g - 1}.jpg`, relationship: 'parentOf', label: 'prev' }, bytes: generation, format: jpeg },
    ]);
  }
  await add('deep', jpeg, generation);
  // XMP only, no C2PA: attribute form in a JPEG, element form (other prefix) in a compressed PNG iTXt.
  await add('xmp-jpeg', jpeg, jpegWithXmp(tinyJpeg({ seed: 81 }), xmpPacket(AI, 'attribute')));
  await add('xmp-png', png, pngWithXmp(tinyPng({ seed: 82 }), xmpPacket(COMPOSITE, 'element', 'iptcExt'), true));
  // XMP that says AI on a file whose signed manifest says digitalCapture: both are reported.
  await add('xmp-signed', jpeg, signC2pa(jpegWithXmp(tinyJpeg({ seed: 83 }), xmpPacket(AI, 'element')), jpeg, simpleManifest('xmp-signed.jpg', jpeg), pki));
  writeFileSync(join(dir, 'root.pem'), pki.rootPem);
  writeFileSync(join(dir, 'other-root.pem'), otherPki.rootPem);
  return set;
}
