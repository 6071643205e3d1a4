// `check --crjson` against the crJSON schema and against c2pa-rs itself (issue 38, item 4). The
// built CLI (bin/provenance.js, as users run it) reads files signed here (test/fixtures/make.ts),
// the signed files of examples/ and every file with a manifest in ../shared/corpus. Each line it
// prints must be valid against the crJSON schema of the c2pa-rs the package runs
// (test/fixtures/schemas/README.md says which and why), and equal the document the installed
// c2pa-wasm's own reader gives for the same bytes and trust anchors, called here directly with
// the settings docs/C2PA.md names (no remote manifest, no OCSP). The harness's flags are held to
// what docs/C2PA.md "crJSON" says of them.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePki, signC2pa, tamper, tinyJpeg, tinyMp4, tinyPng, type Pki } from './fixtures/make.js';
import { CORPUS_DIR, CORPUS_FILES, HAS_CORPUS, loadExpected, ROOT } from './helpers/corpus.js';
import { actionsManifest, created } from './helpers/explained.js';
import { runBin } from './helpers/run-cli.js';

const SCHEMA = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'schemas', 'crJSON-schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(SCHEMA);

/** The anchors a default check gives c2pa-rs: the two C2PA lists shipped in data/c2pa/. */
const C2PA_LISTS = ['C2PA-TRUST-LIST.pem', 'C2PA-TSA-TRUST-LIST.pem'].map((f) => readFileSync(join(ROOT, 'data', 'c2pa', f), 'utf8')).join('\n');

// ---------------------------------------------------------------------------------------------
// c2pa-rs's own crJSON: the installed package, loaded and called here, not through src/.

type C2paWasm = typeof import('@contentauth/c2pa-wasm');
let wasm: C2paWasm | undefined;

async function c2paRs(): Promise<C2paWasm> {
  if (!wasm) {
    const mod: C2paWasm = await import('@contentauth/c2pa-wasm');
    const file = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
    mod.initSync({ module: new WebAssembly.Module(readFileSync(file)) });
    wasm = mod;
  }
  return wasm;
}

/** c2pa-rs's crJSON of a file, read with these anchors; null when it gives none (no manifest, or one it cannot read). */
async function officialCrJson(file: string, anchorsPem: string): Promise<unknown> {
  const { WasmReader } = await c2paRs();
  const settings = { verify: { remote_manifest_fetch: false, ocsp_fetch: false }, trust: { trust_anchors: anchorsPem } };
  let reader: InstanceType<typeof WasmReader>;
  try {
    // c2pa-rs takes a file extension for the format as well as a media type.
    reader = await WasmReader.fromBytes(extname(file).slice(1).toLowerCase(), readFileSync(file), JSON.stringify(settings));
  } catch {
    return null;
  }
  try {
    return JSON.parse(reader.crJson());
  } finally {
    reader.free();
  }
}

/** A document as text with each `validationTime` (when c2pa-rs validated: two reads differ in it alone) blanked. */
function timeless(doc: unknown): string {
  return JSON.stringify(doc, (key, value) => (key === 'validationTime' ? 'T' : value));
}

// ---------------------------------------------------------------------------------------------
// The schema, and what c2pa-rs writes that it refuses.

interface CrJsonManifest {
  validationResults?: Record<string, { code: string; url?: string }[] | string>;
}

/**
 * The schema's complaints about a document, less the one c2pa-rs makes itself: a
 * `signature.timeStampInfo` without `timestamp` (the schema requires it) on a manifest whose
 * time stamp c2pa-rs found not to match its signature (`timeStamp.mismatch`), so that it has no
 * time to write (test/fixtures/schemas/README.md). Printed as is, as c2pa-rs wrote it.
 */
function schemaProblems(doc: unknown): ErrorObject[] {
  if (validate(doc)) return [];
  const manifests = (doc as { manifests: CrJsonManifest[] }).manifests;
  return (validate.errors ?? []).filter((e) => {
    const at = /^\/manifests\/(\d+)\/signature\/timeStampInfo$/.exec(e.instancePath);
    if (!at || e.keyword !== 'required' || e.params.missingProperty !== 'timestamp') return true;
    const results = Object.values(manifests[Number(at[1])]?.validationResults ?? {});
    return !results.some((list) => Array.isArray(list) && list.some((r) => r.code === 'timeStamp.mismatch'));
  });
}

/** Every validation status code c2pa-rs gives in the document, of any manifest. */
function codes(doc: unknown): string[] {
  return (doc as { manifests: CrJsonManifest[] }).manifests.flatMap((m) =>
    Object.values(m.validationResults ?? {}).flatMap((list) => (Array.isArray(list) ? list.map((r) => r.code) : [])),
  );
}

/**
 * Runs the built CLI's `check --crjson` on the files with the flags, and holds every line to the
 * schema and to c2pa-rs's own crJSON with `anchorsPem`: a line for each file c2pa-rs gives a
 * document for, in input order, none for the others. Returns the documents by file.
 */
async function checkAgainstC2paRs(files: string[], flags: string[], anchorsPem: string, env?: NodeJS.ProcessEnv): Promise<Map<string, unknown>> {
  const run = await runBin(['check', '--crjson', ...flags, ...files], { env });
  const expected = new Map<string, unknown>();
  for (const file of files) {
    const doc = await officialCrJson(file, anchorsPem);
    if (doc !== null) expected.set(file, doc);
  }
  expect(run.code, run.stderr).toBe(expected.size === files.length ? 0 : 1);
  const lines = run.stdout.split('\n').filter(Boolean);
  expect(lines.length, run.stderr).toBe(expected.size);
  const docs = new Map<string, unknown>();
  [...expected].forEach(([file, official], i) => {
    const doc: unknown = JSON.parse(lines[i]!);
    const name = relative(ROOT, file);
    expect(timeless(doc), name).toBe(timeless(official));
    expect(schemaProblems(doc), name).toEqual([]);
    docs.set(file, doc);
  });
  return docs;
}

// ---------------------------------------------------------------------------------------------
// Files signed here.

const jpeg = 'image/jpeg';
let dir: string;
/** The signer's PKI (its root, its TSA), and a second one whose TSA alone stamps `stamped-elsewhere.jpg`. */
let signer: Pki;
let other: Pki;
let signerRoot: string;
let otherRoot: string;
const own: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-crjson-schema-'));
  signer = makePki(join(dir, 'pki'));
  other = makePki(join(dir, 'pki-other'), { root: '/C=US/O=Other Test CA/CN=other test root' });
  writeFileSync((signerRoot = join(dir, 'signer-root.pem')), signer.rootPem);
  writeFileSync((otherRoot = join(dir, 'other-root.pem')), other.rootPem);
  const save = (name: string, bytes: Uint8Array) => writeFileSync((own[name] = join(dir, name)), bytes);
  const generated = await signC2pa(tinyJpeg({ seed: 81 }), jpeg, actionsManifest('generated.jpg', jpeg, [created('trainedAlgorithmicMedia')], { label: 'c2pa.actions.v2' }), signer, { signedAt: true });
  save('generated.jpg', generated);
  save('tampered.jpg', tamper(generated, jpeg));
  save('claim-v1.jpg', await signC2pa(tinyJpeg({ seed: 82 }), jpeg, actionsManifest('claim-v1.jpg', jpeg, [created('digitalCapture')]), signer, { claimVersion: 1, signedAt: true }));
  save('unstamped.png', await signC2pa(tinyPng({ seed: 83 }), 'image/png', actionsManifest('unstamped.png', 'image/png', [created('digitalCreation')]), signer));
  save('video.mp4', await signC2pa(tinyMp4(), 'video/mp4', actionsManifest('video.mp4', 'video/mp4', [created('digitalCapture')]), signer, { signedAt: true }));
  // An edit of the generated picture: its manifest, with the parent's as an ingredient's, and a thumbnail.
  const actions = [{ action: 'c2pa.opened', parameters: { ingredientIds: ['parent'] } }, { action: 'c2pa.color_adjustments' }];
  save(
    'edit.jpg',
    await signC2pa(tinyJpeg({ seed: 84 }), jpeg, actionsManifest('edit.jpg', jpeg, actions, { label: 'c2pa.actions.v2' }), signer, {
      signedAt: true,
      thumbnail: { format: jpeg, bytes: tinyJpeg({ seed: 85, width: 8, height: 8 }) },
      ingredients: [{ json: { title: 'generated.jpg', relationship: 'parentOf', label: 'parent' }, bytes: generated, format: jpeg }],
    }),
  );
  // Signed by the signer, time-stamped by the other PKI's TSA (makeTimeStamp takes the TSA from `dir`).
  save('stamped-elsewhere.jpg', await signC2pa(tinyJpeg({ seed: 86 }), jpeg, actionsManifest('stamped-elsewhere.jpg', jpeg, [created('digitalCapture')]), { ...signer, dir: other.dir }, { signedAt: true }));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check --crjson: valid crJSON, equal to c2pa-rs\'s', () => {
  it('files signed here, with the anchors of a default check (the C2PA lists) and with the harness\'s --trust-list', async () => {
    const files = Object.values(own);
    const byDefault = await checkAgainstC2paRs(files, [], C2PA_LISTS);
    expect(byDefault.size).toBe(files.length);
    expect(codes(byDefault.get(own['generated.jpg']!))).toContain('signingCredential.untrusted');
    const harness = await checkAgainstC2paRs(files, ['--trust-list', signerRoot], signer.rootPem);
    expect(codes(harness.get(own['generated.jpg']!))).toContain('signingCredential.trusted');
    expect(codes(harness.get(own['tampered.jpg']!))).toContain('assertion.dataHash.mismatch');
    // The edit carries the parent's manifest too.
    expect((harness.get(own['edit.jpg']!) as { manifests: unknown[] }).manifests).toHaveLength(2);
  });

  it('the signed files of examples/', async () => {
    const folder = join(ROOT, 'examples');
    const files = readdirSync(folder).sort().map((f) => join(folder, f));
    const docs = await checkAgainstC2paRs(files, [], C2PA_LISTS);
    expect([...docs.keys()].map((f) => relative(folder, f))).toEqual(expect.arrayContaining(['ai-generated.png', 'signed.jpg', 'signed.mp4', 'tampered.jpg']));
  });

  describe.skipIf(!HAS_CORPUS)('../shared/corpus', () => {
    it('every file with a manifest, as c2pa-rs reads it with the C2PA lists', async () => {
      const all: string[] = [];
      const walk = (d: string): void => {
        for (const name of readdirSync(d).sort()) {
          const path = join(d, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (!/\.(md|json)$/.test(name)) all.push(path);
        }
      };
      walk(CORPUS_DIR);
      const docs = await checkAgainstC2paRs(all, [], C2PA_LISTS);
      // Every file the corpus says carries a manifest (c2pa-rs found it) is among them.
      const found = Object.entries(loadExpected()).filter(([, e]) => e.c2pa.result === 'found').map(([name]) => join(CORPUS_FILES, name));
      expect(found.length).toBeGreaterThan(0);
      expect([...docs.keys()]).toEqual(expect.arrayContaining(found));
      // E-sig-CA.jpg is the one whose crJSON the schema refuses as c2pa-rs writes it (schemaProblems).
      const eSig = docs.get(join(CORPUS_FILES, 'E-sig-CA.jpg'));
      expect(validate(eSig)).toBe(false);
      expect(codes(eSig)).toContain('timeStamp.mismatch');
    });
  });
});

describe('the conformance harness\'s flags, as docs/C2PA.md says', () => {
  it('--tsa-trust-list joins the anchors: the other TSA\'s time stamp becomes trusted', async () => {
    const file = own['stamped-elsewhere.jpg']!;
    const signerOnly = await checkAgainstC2paRs([file], ['--trust-list', signerRoot], signer.rootPem);
    expect(codes(signerOnly.get(file))).toEqual(expect.arrayContaining(['signingCredential.trusted', 'timeStamp.untrusted']));
    const withTsa = await checkAgainstC2paRs([file], ['--trust-list', signerRoot, '--tsa-trust-list', otherRoot], signer.rootPem + other.rootPem);
    expect(codes(withTsa.get(file))).toEqual(expect.arrayContaining(['signingCredential.trusted', 'timeStamp.trusted']));
    // Without --trust-list it joins the C2PA lists.
    await checkAgainstC2paRs([file], ['--tsa-trust-list', otherRoot], `${C2PA_LISTS}\n${other.rootPem}`);
    // One set of anchors: a signer under an authority given only as a TSA is trusted as a signer
    // too (docs/C2PA.md "The lists that ship with provenance"), as c2pa-rs decides.
    const swapped = await checkAgainstC2paRs([file], ['--trust-list', otherRoot, '--tsa-trust-list', signerRoot], other.rootPem + signer.rootPem);
    expect(codes(swapped.get(file))).toEqual(expect.arrayContaining(['signingCredential.trusted', 'timeStamp.trusted']));
  });

  it('--trust-list replaces the C2PA lists and the anchors added with `trust add`', async () => {
    const config = join(dir, 'config');
    mkdirSync(config);
    const env = { PROVENANCE_CONFIG_DIR: config };
    const add = await runBin(['trust', 'add', otherRoot], { env });
    expect(add.code, add.stderr).toBe(0);
    const file = own['stamped-elsewhere.jpg']!;
    // A default check: the lists and the added anchor (the other TSA is trusted, the signer not).
    const stored = await checkAgainstC2paRs([file], [], `${C2PA_LISTS}\n${other.rootPem}`, env);
    expect(codes(stored.get(file))).toEqual(expect.arrayContaining(['signingCredential.untrusted', 'timeStamp.trusted']));
    // --trust-list: that file alone.
    const harness = await checkAgainstC2paRs([file], ['--trust-list', signerRoot], signer.rootPem, env);
    expect(codes(harness.get(file))).toEqual(expect.arrayContaining(['signingCredential.trusted', 'timeStamp.untrusted']));
  });

  it('--validation-time is refused with exit 2 and a reason: c2pa-rs cannot validate at a given time', async () => {
    const run = await runBin(['check', '--crjson', '--trust-list', signerRoot, '--validation-time', '2026-01-01T00:00:00Z', own['generated.jpg']!]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'provenance: --validation-time: not supported. c2pa-rs, which validates the credentials, has no setting for a validation time: it judges a certificate at its trusted time stamp\'s time, else at the present time (docs/C2PA.md "crJSON").\n',
    );
  });
});
