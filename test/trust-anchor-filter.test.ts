// The c2pa check gives c2pa-rs only the anchors whose subject occurs in the file's manifest store
// (src/media/trust-anchor-filter.ts). That must never change an answer: on every file of the shared
// corpus with a manifest, and on files signed here (JPEG, PNG, MP4; a JPEG whose store spans many
// APP11 segments), c2pa-rs's whole report with the kept anchors (none, where no certificate of the
// file names one) equals its report with all of them, the C2PA lists plus the test root, with
// which the files signed here read trusted. And a store that cannot be measured exactly keeps
// every anchor.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadC2paWasm, readerSettings } from '../src/media/c2pa-wasm.js';
import { packageDataFile } from '../src/media/package-data.js';
import { sniffMediaType } from '../src/media/sniff.js';
import { anchorsForFile, subjectNameBytes } from '../src/media/trust-anchor-filter.js';
import { signC2pa, simpleManifest, tinyJpeg, type Pki } from './fixtures/make.js';
import { corpusFilesWithManifest, HAS_CORPUS } from './helpers/corpus.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

const LISTS = ['C2PA-TRUST-LIST.pem', 'C2PA-TSA-TRUST-LIST.pem'].map((f) => readFileSync(packageDataFile('c2pa', f), 'utf8')).join('');
const count = (pem: string | undefined) => (pem?.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;

/** c2pa-rs's report of a file with these anchors, both forms (its error message when it cannot read it). */
async function report(bytes: Uint8Array, type: string, anchors: string | undefined): Promise<unknown> {
  const wasm = await loadC2paWasm();
  try {
    const reader = await wasm.WasmReader.fromBytes(type, bytes, readerSettings(anchors));
    try {
      // validationTime: the clock at the read, the one field two reads never share.
      const untimed = (text: string) => JSON.parse(text, (key, value) => (key === 'validationTime' ? undefined : value));
      return { json: untimed(reader.json()), crJson: untimed(reader.crJson()) };
    } finally {
      reader.free();
    }
  } catch (err) {
    return { error: String(err) };
  }
}

let signed: SignedSet;
let big: Uint8Array;
let bigPki: Pki;
beforeAll(async () => {
  signed = await makeSignedSet();
  bigPki = signed.pki;
  // A manifest of over 64 KB: c2pa-rs writes it over several APP11 segments.
  const manifest = simpleManifest('big.jpg', 'image/jpeg') as Record<string, unknown>;
  manifest.assertions = [...((manifest.assertions as unknown[]) ?? []), { label: 'org.provenance.test.padding', data: { padding: 'x'.repeat(150_000) } }];
  big = await signC2pa(tinyJpeg({ seed: 9 }), 'image/jpeg', manifest, bigPki);
}, 120_000);
afterAll(() => signed?.cleanup());

describe('the anchors given to c2pa-rs for one file', () => {
  it('reads the subject of every certificate on the C2PA lists', () => {
    const blocks = LISTS.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)!;
    expect(blocks.length).toBeGreaterThan(40);
    for (const block of blocks) {
      const der = Buffer.from(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64');
      const subject = subjectNameBytes(der);
      expect(subject, block.slice(28, 80)).toBeDefined();
      // The subject's first attribute is a SET of a SEQUENCE holding an OID.
      expect([subject![0], subject![2], subject![4]]).toEqual([0x31, 0x30, 0x06]);
    }
  });

  it('files signed here: fewer anchors, the same report, trusted where the root is among them', async () => {
    const anchors = LISTS + bigPki.rootPem;
    const files: [string, Uint8Array, string][] = [
      ['jpeg', signed.jpeg, 'image/jpeg'],
      ['jpeg, claim v1', signed.jpegV1, 'image/jpeg'],
      ['png', signed.png, 'image/png'],
      ['mp4', signed.mp4, 'video/mp4'],
      ['jpeg, store over several APP11 segments', big, 'image/jpeg'],
    ];
    expect(Buffer.from(big).indexOf(Buffer.from([0xff, 0xeb]), Buffer.from(big).indexOf(Buffer.from([0xff, 0xeb])) + 2)).toBeGreaterThan(0);
    for (const [name, bytes, type] of files) {
      const kept = anchorsForFile(bytes, type, anchors);
      expect(count(kept), name).toBe(1); // the test root alone: no list certificate issued these
      expect(kept, name).toBe(bigPki.rootPem.endsWith('\n') ? bigPki.rootPem : `${bigPki.rootPem}\n`);
      const all = await report(bytes, type, anchors);
      expect(await report(bytes, type, kept), name).toEqual(all);
      expect((all as { json: { validation_state: string } }).json.validation_state, name).toBe('Trusted');
    }
  }, 120_000);

  it('a store whose segments do not add up, or a file without one, keeps every anchor', () => {
    const anchors = LISTS + bigPki.rootPem;
    const cut = Buffer.from(big);
    // The last APP11 segment of the store, cut short by one byte of its payload: its length field says one less.
    let last = -1;
    for (let at = cut.indexOf(Buffer.from([0xff, 0xeb])); at !== -1; at = cut.indexOf(Buffer.from([0xff, 0xeb]), at + 2)) last = at;
    cut.writeUInt16BE(cut.readUInt16BE(last + 2) - 1, last + 2);
    cut[last + 2 + cut.readUInt16BE(last + 2)] = 0xff; // keep the marker walk going: a fill byte
    expect(anchorsForFile(cut, 'image/jpeg', anchors)).toBe(anchors);
    expect(anchorsForFile(tinyJpeg({ seed: 4 }), 'image/jpeg', anchors)).toBe(anchors);
    expect(anchorsForFile(Buffer.from('no store here, only jumb in text'), 'image/png', anchors)).toBe(anchors);
  });

  it('a store holding a compressed manifest (a brob box) keeps every anchor: its certificates cannot be seen', () => {
    const anchors = LISTS + bigPki.rootPem;
    expect(count(anchorsForFile(signed.png, 'image/png', anchors))).toBe(1);
    // The same store with one of its boxes named brob (the compressed form C2PA 2.x allows).
    const compressed = Buffer.from(signed.png);
    const at = compressed.indexOf(Buffer.from('cbor', 'latin1'), compressed.indexOf(Buffer.from('jumb', 'latin1')));
    expect(at).toBeGreaterThan(0);
    compressed.write('brob', at, 'latin1');
    expect(anchorsForFile(compressed, 'image/png', anchors)).toBe(anchors);
  });

  it.skipIf(!HAS_CORPUS)('every corpus file with a manifest: the same report with the kept anchors as with all', async () => {
    const files = corpusFilesWithManifest();
    expect(files.length).toBeGreaterThan(3);
    let fewer = 0;
    let none = 0;
    for (const file of files) {
      const bytes = readFileSync(file);
      const type = await sniffMediaType(bytes);
      const kept = anchorsForFile(bytes, type, LISTS);
      if (count(kept) < count(LISTS)) fewer += 1;
      if (kept === undefined) none += 1;
      expect(await report(bytes, type, kept), file).toEqual(await report(bytes, type, LISTS));
    }
    expect(fewer).toBeGreaterThan(0);
    expect(none).toBeGreaterThan(0);
  }, 600_000);
});
