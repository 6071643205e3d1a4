// Issue 7: the additive claims (digital_source_type, ai_generated, signed_at, ingredients), trust
// anchors (`trusted` and signature_verified only with the CA as anchor), and the CLI's unsigned
// XMP hint, on fixtures made here and signed by c2pa-rs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../src/engine/detect.js';
import type { C2paClaims, DetectionResult, Match } from '../src/types.js';
import { tamper, type Pki } from './fixtures/make.js';
import { HAS_CORPUS, CORPUS_FILES } from './helpers/corpus.js';
import { IPTC, makeExplainedSet, type ExplainedSet } from './helpers/explained.js';
import { parseLines, runCli } from './helpers/run-cli.js';

const AI = `${IPTC}trainedAlgorithmicMedia`;
const COMPOSITE = `${IPTC}compositeWithTrainedAlgorithmicMedia`;
const CAPTURE = `${IPTC}digitalCapture`;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

let dir: string;
let set: ExplainedSet;
let pki: Pki;
let otherPki: Pki;
let f: Record<string, Uint8Array>;

function c2paOf(result: DetectionResult): Match {
  const m = result.matches.find((x) => x.check === 'c2pa');
  if (!m) throw new Error('no c2pa match');
  return m;
}

async function claimsOf(name: string, trustAnchorsPem?: string): Promise<C2paClaims> {
  const m = c2paOf(await detect(f[name]!, { checks: ['c2pa'], trustAnchorsPem }));
  expect(m.result, `${name}: ${m.reason ?? ''}`).toBe('found');
  return m.claims!;
}

/** The issue-7 fields of a claims object, absent ones left out. */
function explained(c: C2paClaims) {
  const { digital_source_type, ai_generated, signed_at, ingredients } = c;
  return Object.fromEntries(Object.entries({ digital_source_type, ai_generated, signed_at, ingredients }).filter(([, v]) => v !== undefined));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-explained-'));
  set = await makeExplainedSet(dir);
  ({ pki, otherPki, bytes: f } = set);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('digital_source_type and ai_generated', () => {
  it('c2pa.created + trainedAlgorithmicMedia in c2pa.actions.v2 (claim v2): AI-generated, with the signing time', async () => {
    const c = await claimsOf('ai-v2');
    expect(explained(c)).toEqual({ digital_source_type: AI, ai_generated: true, signed_at: expect.stringMatching(ISO_UTC), ingredients: 0 });
    expect(c.assertions).toEqual(['c2pa.actions.v2']);
  });

  it('c2pa.created + trainedAlgorithmicMedia written as c2pa.actions in a v1 claim: same fields, no time stamp, no signed_at', async () => {
    expect(explained(await claimsOf('ai-v1'))).toEqual({ digital_source_type: AI, ai_generated: true, ingredients: 0 });
  });

  it('the older parameters["com.adobe.digitalSourceType"] form counts too', async () => {
    expect(explained(await claimsOf('ai-v1-param'))).toEqual({ digital_source_type: AI, ai_generated: true, ingredients: 0 });
  });

  it('algorithmicMedia (an algorithm without training data) is not AI-generated (issue 18)', async () => {
    expect(explained(await claimsOf('algorithmic'))).toEqual({
      digital_source_type: `${IPTC}algorithmicMedia`,
      ai_generated: false,
      signed_at: expect.stringMatching(ISO_UTC),
      ingredients: 0,
    });
  });

  it('compositeWithTrainedAlgorithmicMedia is AI-generated', async () => {
    expect(explained(await claimsOf('composite'))).toEqual({
      digital_source_type: COMPOSITE,
      ai_generated: true,
      signed_at: expect.stringMatching(ISO_UTC),
      ingredients: 0,
    });
  });

  it('digitalCapture is named and is not AI-generated', async () => {
    expect(explained(await claimsOf('capture'))).toEqual({
      digital_source_type: CAPTURE,
      ai_generated: false,
      signed_at: expect.stringMatching(ISO_UTC),
      ingredients: 0,
    });
  });

  it('a manifest that names no type has neither field', async () => {
    const c = await claimsOf('none');
    expect(explained(c)).toEqual({ ingredients: 0 });
    expect('digital_source_type' in c).toBe(false);
    expect('ai_generated' in c).toBe(false);
  });

  it('the legacy com.adobe.generative-ai assertion alone makes ai_generated true', async () => {
    const c = await claimsOf('legacy');
    expect(explained(c)).toEqual({ ai_generated: true, ingredients: 0 });
    expect(c.assertions).toContain('com.adobe.generative-ai');
  });

  it('an AI type on a later edit wins over digitalCapture on c2pa.created', async () => {
    expect(explained(await claimsOf('edited'))).toEqual({ digital_source_type: COMPOSITE, ai_generated: true, ingredients: 0 });
  });

  it('signed_at is the time stamp of the signature, in UTC', async () => {
    const c = await claimsOf('capture');
    // The offline TSA stamps "now": within a few minutes of this run.
    expect(Math.abs(Date.parse(c.signed_at!) - Date.now())).toBeLessThan(10 * 60_000);
  });

  it('ingredients counts the active manifest ingredients (not theirs)', async () => {
    expect(explained(await claimsOf('ingredients'))).toEqual({ ingredients: 2, signed_at: expect.stringMatching(ISO_UTC) });
    expect(explained(await claimsOf('deep'))).toEqual({ ingredients: 1 });
  });

  it.skipIf(!HAS_CORPUS)('corpus C.jpg (a recorded v1 c2pa.actions): algorithmicMedia, not AI-generated (issue 18), signed 2024-08-06', async () => {
    const { readFileSync } = await import('node:fs');
    const m = c2paOf(await detect(readFileSync(join(CORPUS_FILES, 'C.jpg')), { checks: ['c2pa'] }));
    expect(m.claims?.assertions).toEqual(['stds.schema-org.CreativeWork', 'c2pa.actions']);
    expect(explained(m.claims!)).toEqual({
      digital_source_type: `${IPTC}algorithmicMedia`,
      ai_generated: false,
      signed_at: '2024-08-06T21:53:37Z',
      ingredients: 0,
    });
  });

  it.skipIf(!HAS_CORPUS)('corpus CA.jpg: one ingredient, no source type named', async () => {
    const { readFileSync } = await import('node:fs');
    const m = c2paOf(await detect(readFileSync(join(CORPUS_FILES, 'CA.jpg')), { checks: ['c2pa'] }));
    expect(explained(m.claims!)).toEqual({ signed_at: '2024-08-06T21:53:37Z', ingredients: 1 });
  });
});

describe('trust anchors', () => {
  it('without anchors: valid, signingCredential.untrusted, signature_verified false', async () => {
    const c = await claimsOf('capture');
    expect(c.validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
    expect(c.signature_verified).toBe(false);
  });

  it('with the test CA as anchor: trusted, no codes, signature_verified true', async () => {
    for (const name of ['capture', 'ai-v2', 'composite', 'ai-v1']) {
      const c = await claimsOf(name, pki.rootPem);
      expect(c.validation, name).toEqual({ state: 'trusted', codes: [] });
      expect(c.signature_verified, name).toBe(true);
    }
  });

  it("with another CA as anchor: stays valid and untrusted, never invalid", async () => {
    const c = await claimsOf('capture', otherPki.rootPem);
    expect(c.validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
    expect(c.signature_verified).toBe(false);
  });

  it('a tampered file stays invalid with the anchor, and is not verified', async () => {
    const m = c2paOf(await detect(tamper(f.capture!, 'image/jpeg'), { checks: ['c2pa'], trustAnchorsPem: pki.rootPem }));
    expect(m.claims?.validation?.state).toBe('invalid');
    expect(m.claims?.validation?.codes).toContain('assertion.dataHash.mismatch');
    expect(m.claims?.signature_verified).toBe(false);
  });

  it('the v1 fields do not change with anchors', async () => {
    const plain = await claimsOf('capture');
    const trusted = await claimsOf('capture', pki.rootPem);
    expect({ ...trusted, validation: undefined, signature_verified: undefined }).toEqual({ ...plain, validation: undefined, signature_verified: undefined });
  });
});

describe('CLI: --trust-anchors, hints, --explain', () => {
  it('--trust-anchors makes the JSON line trusted and verified', async () => {
    const run = await runCli(['check', '--json', '--checks', 'c2pa', '--trust-anchors', join(dir, 'root.pem'), join(dir, 'capture.jpg')], undefined, {
      PROVENANCE_CONFIG_DIR: join(dir, 'empty-config'),
    });
    expect(run.code, run.stderr).toBe(0);
    const claims = parseLines(run.stdout)[0].matches[0].claims;
    expect(claims.validation).toEqual({ state: 'trusted', codes: [] });
    expect(claims.signature_verified).toBe(true);
  });

  it('the readable report says so', async () => {
    const env = { PROVENANCE_CONFIG_DIR: join(dir, 'empty-config') };
    const trusted = await runCli(['check', '--trust-anchors', join(dir, 'root.pem'), join(dir, 'capture.jpg')], undefined, env);
    expect(trusted.stdout).toContain('credential intact, signer chains to a trusted anchor');
    const other = await runCli(['check', '--trust-anchors', join(dir, 'other-root.pem'), join(dir, 'capture.jpg')], undefined, env);
    expect(other.stdout).toContain('credential intact (hashes and signature match); signer is NOT on the trust lists in use');
    expect(other.stdout).not.toContain('INVALID');
    // No flags: the C2PA lists are the anchors (issue 38), and the test CA is not on them.
    const none = await runCli(['check', join(dir, 'capture.jpg')], undefined, env);
    expect(none.stdout).toContain('credential intact (hashes and signature match); signer is NOT on the trust lists in use');
  });

  it.each([
    ['a text file', 'notes.txt', 'just some text\n', /notes\.txt is not a PEM certificate file: no -----BEGIN CERTIFICATE----- block found/],
    ['an empty file', 'empty.pem', '', /empty\.pem is empty/],
    ['a damaged block', 'bad.pem', '-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n', /bad\.pem: certificate 1 cannot be read/],
    ['a missing file', 'missing.pem', undefined, /missing\.pem cannot be read: no such file/],
  ])('--trust-anchors with %s is a usage error (exit 2)', async (_what, name, content, message) => {
    if (content !== undefined) writeFileSync(join(dir, name), content);
    const run = await runCli(['check', '--trust-anchors', join(dir, name), join(dir, 'capture.jpg')], undefined, {
      PROVENANCE_CONFIG_DIR: join(dir, 'empty-config'),
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^provenance: --trust-anchors: /);
    expect(run.stderr).toMatch(message);
  });

  it('a DER file gets a conversion hint', async () => {
    writeFileSync(join(dir, 'root.der'), pki.rootDer);
    const run = await runCli(['check', '--trust-anchors', join(dir, 'root.der'), join(dir, 'capture.jpg')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('openssl x509 -inform der');
  });

  it('files with only the XMP field get hints on their JSON line, and c2pa not_found', async () => {
    const run = await runCli(['check', '--json', join(dir, 'xmp-jpeg.jpg'), join(dir, 'xmp-png.png'), join(dir, 'capture.jpg')]);
    expect(run.code).toBe(0);
    const [jpeg, png, capture] = parseLines(run.stdout);
    expect(jpeg.hints).toEqual({ iptc_digital_source_type: AI });
    expect(jpeg.matches[0]).toEqual({ check: 'c2pa', result: 'not_found', confidence: 1 });
    expect(png.hints).toEqual({ iptc_digital_source_type: COMPOSITE });
    expect(capture).not.toHaveProperty('hints');
  });

  it('the engine result (the daemon body) never carries hints', async () => {
    const result = await detect(f['xmp-jpeg']!);
    expect(result).not.toHaveProperty('hints');
    expect(JSON.stringify(result)).not.toContain('iptc_digital_source_type');
  });

  it('a signed file with the XMP field: the manifest and the hint are both reported', async () => {
    const run = await runCli(['check', '--json', join(dir, 'xmp-signed.jpg')]);
    const line = parseLines(run.stdout)[0];
    expect(line.hints).toEqual({ iptc_digital_source_type: AI });
    const claims = line.matches[0].claims;
    expect(claims.digital_source_type).toBe(CAPTURE);
    expect(claims.ai_generated).toBe(false);
    expect(claims.validation.state).toBe('valid');
    const text = await runCli(['check', join(dir, 'xmp-signed.jpg')]);
    expect(text.stdout).toContain('xmp hint             says AI-generated: IPTC digital source type trainedAlgorithmicMedia');
    expect(text.stdout).toContain('unsigned XMP metadata (Iptc4xmpExt:DigitalSourceType): anyone can write, edit or remove it');
  });

  it('--explain spells out each validation code in a sentence', async () => {
    writeFileSync(join(dir, 'tampered.jpg'), tamper(f.capture!, 'image/jpeg'));
    const run = await runCli(['check', '--explain', join(dir, 'tampered.jpg')], undefined, { PROVENANCE_CONFIG_DIR: join(dir, 'empty-config') });
    expect(run.stdout).toContain('credential INVALID: the pixels changed after signing (assertion.dataHash.mismatch)');
    // The code that made the verdict first, the trust note after it.
    expect(run.stdout).toMatch(/why +assertion\.dataHash\.mismatch: The file's content changed after signing/);
    expect(run.stdout).toMatch(/\n +signingCredential\.untrusted: The signing certificate does not chain/);
    const plain = await runCli(['check', join(dir, 'tampered.jpg')]);
    expect(plain.stdout).not.toMatch(/\bwhy\b/);
  });

  it('--json output is unchanged by --explain', async () => {
    const a = parseLines((await runCli(['check', '--json', join(dir, 'ai-v2.jpg')])).stdout)[0];
    const b = parseLines((await runCli(['check', '--json', '--explain', join(dir, 'ai-v2.jpg')])).stdout)[0];
    for (const x of [a, b]) {
      delete x.id;
      delete x.duration_ms;
    }
    expect(b).toEqual(a);
  });
});
