// The trust anchors one file's read can use: c2pa-rs parses every anchor it is given on every
// read (in the wasm, each read takes its own settings), about 0.04 ms an anchor when its code is
// warm and ten times that on the cold read of a one-file check, where the C2PA lists' 52 anchors
// added 30 to 45 ms of CPU (docs/PERFORMANCE.md, issue 38's cost). Yet an anchor can only matter
// to a file whose certificates name it as their issuer: c2pa-rs (rust_native
// check_certificate_trust) tries an anchor on a chain certificate only when that certificate's
// issuer equals the anchor's subject, and x509-parser's X509Name equality compares the raw DER
// of the name too. Every certificate c2pa-rs checks against anchors (the signer's chain, the time
// stamp authority's in the time stamp token, those of ingredient manifests and identity
// assertions) is carried inside the file's C2PA manifest store. So an anchor whose subject's
// bytes do not occur in the store cannot change the answer and is left out; the rest keep their
// order. Whenever the store cannot be found and measured exactly or holds a compressed manifest
// (a remote manifest, a `brob` box, a JPEG
// whose APP11 segments do not add up to the store's length, a box that runs past the file, a
// certificate this reader cannot walk) every anchor is given, as before.
// test/trust-anchor-filter.test.ts holds c2pa-rs's answers with the kept anchors equal to its
// answers with all of them, on the shared corpus and on files signed here.

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\r?\n?/g;

interface Anchor {
  pem: string;
  /** The content bytes of the certificate's subject Name; undefined when it could not be read. */
  subject?: Buffer;
}

/** One DER element at `at`: where its content starts and ends, or undefined past the buffer. */
function element(der: Buffer, at: number): { tag: number; start: number; end: number } | undefined {
  if (at + 2 > der.length) return undefined;
  const tag = der[at]!;
  let len = der[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n < 1 || n > 4 || start + n > der.length) return undefined;
    len = 0;
    for (let k = 0; k < n; k++) len = len * 256 + der[start + k]!;
    start += n;
  }
  const end = start + len;
  return end <= der.length ? { tag, start, end } : undefined;
}

/** The subject Name's content of a DER certificate: Certificate > TBSCertificate > [version], serial, signature, issuer, validity, subject. */
export function subjectNameBytes(der: Buffer): Buffer | undefined {
  const cert = element(der, 0);
  if (!cert || cert.tag !== 0x30) return undefined;
  const tbs = element(der, cert.start);
  if (!tbs || tbs.tag !== 0x30) return undefined;
  let at = tbs.start;
  const first = element(der, at);
  if (!first) return undefined;
  if (first.tag === 0xa0) at = first.end; // explicit version
  const fields: { tag: number; start: number; end: number }[] = [];
  for (let k = 0; k < 5; k++) {
    const field = element(der, at);
    if (!field || field.end > tbs.end) return undefined;
    fields.push(field);
    at = field.end;
  }
  const [serial, signature, issuer, validity, subject] = fields as [typeof first, typeof first, typeof first, typeof first, typeof first];
  if (serial.tag !== 0x02 || signature.tag !== 0x30 || issuer.tag !== 0x30 || validity.tag !== 0x30 || subject.tag !== 0x30) return undefined;
  return subject.end > subject.start ? der.subarray(subject.start, subject.end) : undefined;
}

let parsed: { text: string; anchors: Anchor[] } | undefined;

/** The anchors of a PEM bundle with their subjects, kept for the last bundle seen (the lists change rarely). */
function anchorsOf(pem: string): Anchor[] {
  if (parsed?.text === pem) return parsed.anchors;
  const anchors = (pem.match(PEM_BLOCK) ?? []).map((block): Anchor => {
    const base64 = block.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    return { pem: block.endsWith('\n') ? block : `${block}\n`, subject: subjectNameBytes(Buffer.from(base64, 'base64')) };
  });
  parsed = { text: pem, anchors };
  return anchors;
}

const JUMB = Buffer.from('jumb', 'latin1');
const BROB = Buffer.from('brob', 'latin1');
const JUMD = Buffer.from('jumd', 'latin1');
const STORE_LABEL = Buffer.from('c2pa\0', 'latin1');

/** A box's header at `start` (LBox, TBox, XLBox): its header size and total size, or undefined. */
function boxAt(buf: Buffer, start: number, limit: number): { header: number; size: number } | undefined {
  if (start < 0 || start + 8 > limit) return undefined;
  const lbox = buf.readUInt32BE(start);
  if (lbox === 1) {
    if (start + 16 > limit) return undefined;
    const size = Number(buf.readBigUInt64BE(start + 8));
    return size >= 16 && start + size <= limit ? { header: 16, size } : undefined;
  }
  if (lbox === 0) return { header: 8, size: limit - start };
  return lbox >= 8 && start + lbox <= limit ? { header: 8, size: lbox } : undefined;
}

/** Whether the superbox whose content starts at `at` is described as the manifest store (label "c2pa"). */
function isStore(box: Buffer, at: number): boolean {
  const jumd = boxAt(box, at, box.length);
  if (!jumd || !box.subarray(at + 4, at + 8).equals(JUMD)) return false;
  const label = at + jumd.header + 16 + 1; // UUID, then toggles
  return label + STORE_LABEL.length <= at + jumd.size && box.subarray(label, label + STORE_LABEL.length).equals(STORE_LABEL);
}

/**
 * JPEG: each JUMBF box's APP11 segments (CI "JP", En, Z, then LBox/TBox repeated in every
 * segment) put back together, when their parts add up to the box's length. Segments are read up
 * to the start of scan; a store with parts after it does not add up and gives no answer.
 */
function jpegStores(buf: Buffer): Buffer[] | undefined {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return undefined;
  const boxes = new Map<number, { header: Buffer; size: number; parts: { z: number; data: Buffer }[] }>();
  let at = 2;
  while (at + 4 <= buf.length) {
    if (buf[at] !== 0xff) return undefined;
    const marker = buf[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // EOI, start of scan
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = buf.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > buf.length) return undefined;
    if (marker === 0xeb && length >= 2 + 8 + 8 && buf[at + 4] === 0x4a && buf[at + 5] === 0x50) {
      const en = buf.readUInt16BE(at + 6);
      const z = buf.readUInt32BE(at + 8);
      const lbox = buf.readUInt32BE(at + 12);
      const header = lbox === 1 ? 16 : 8;
      if (at + 12 + header > end) return undefined;
      const size = lbox === 1 ? Number(buf.readBigUInt64BE(at + 20)) : lbox;
      if (size < header) return undefined; // 0: "to the end", which a segmented box cannot be measured by
      const entry = boxes.get(en) ?? { header: buf.subarray(at + 12, at + 12 + header), size, parts: [] };
      entry.parts.push({ z, data: buf.subarray(at + 12 + header, end) });
      boxes.set(en, entry);
    }
    at = end;
  }
  const stores: Buffer[] = [];
  for (const { header, size, parts } of boxes.values()) {
    parts.sort((a, b) => a.z - b.z);
    const whole = Buffer.concat([header, ...parts.map((p) => p.data)]);
    if (whole.length !== size) return undefined; // the segments do not add up: no guess
    if (whole.subarray(4, 8).equals(JUMB) && isStore(whole, header.length)) stores.push(whole);
  }
  return stores.length ? stores : undefined;
}

/** Other formats: the manifest store is one box, whole in the file (PNG caBX, BMFF uuid, RIFF C2PA, TIFF). */
function boxStores(buf: Buffer): Buffer[] | undefined {
  const stores: Buffer[] = [];
  for (let at = buf.indexOf(JUMB); at !== -1; at = buf.indexOf(JUMB, at + 1)) {
    const box = boxAt(buf, at - 4, buf.length);
    if (box && isStore(buf, at - 4 + box.header)) stores.push(buf.subarray(at - 4, at - 4 + box.size));
  }
  return stores.length ? stores : undefined;
}

/**
 * The anchors of `pem` that can matter to this file, as one PEM bundle: those whose subject occurs
 * in its manifest store, or all of them whenever the store cannot be measured exactly. Undefined
 * when none can matter: c2pa-rs then reads without anchors, which gives the same report as
 * anchors that no certificate of the file names (its trust check fails on either; the test holds
 * the two equal on every file it reads), and its trust-checking code, 11 ms of the cold read even
 * with one anchor, is not run at all.
 */
export function anchorsForFile(bytes: Uint8Array, type: string, pem: string): string | undefined {
  const anchors = anchorsOf(pem);
  if (anchors.length === 0 || anchors.some((a) => !a.subject)) return pem;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stores = type === 'image/jpeg' ? jpegStores(buf) : boxStores(buf);
  if (!stores) return pem;
  // A compressed manifest (C2PA 2.x: its JUMBF in a `brob` box, brotli) carries its certificates
  // compressed, where their names cannot be seen: every anchor, as for a store not measured. The
  // four bytes anywhere in the store are enough (a false match only costs the time saved).
  if (stores.some((store) => store.indexOf(BROB) !== -1)) return pem;
  const kept = anchors.filter((a) => stores.some((store) => store.indexOf(a.subject!) !== -1));
  return kept.length ? kept.map((a) => a.pem).join('') : undefined;
}
