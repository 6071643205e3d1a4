// The C2PA Conforming Products List (issue 38 item 3): a trusted signer's certificate subject is
// matched to a listed generator product on the DN fields the list names, each exactly; only a
// trusted manifest is looked up (the list is read then, and never for an untrusted signer).
// With the shared corpus: every real file signed by Google or OpenAI, checked with the bundled
// C2PA Trust List as its anchors, names its product (skipped where the corpus has none).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { foundOutcome, type CrJsonStore, type ReaderStore } from '../src/detectors/c2pa-manifest.js';
import { bundledProducts, conformingProductOf } from '../src/detectors/conforming-products.js';
import { detect } from '../src/engine/detect.js';
import { packageDataFile } from '../src/media/package-data.js';
import { CORPUS_FILES, HAS_CORPUS, loadExpected } from './helpers/corpus.js';

const record = (DN: Record<string, string>, over: Record<string, unknown> = {}) => ({
  applicant: DN.O,
  status: 'conformant',
  product: { productType: 'generatorProduct', DN, assurance: { maxAssuranceLevel: 1 } },
  dates: { conformance: '2025-07-01' },
  ...over,
});

describe('matching a certificate subject to a listed product', () => {
  const list = [
    record({ CN: 'Pixel Camera', O: 'Google LLC', OU: '', C: 'US' }, { product: { productType: 'generatorProduct', DN: { CN: 'Pixel Camera', O: 'Google LLC', OU: '', C: 'US' }, assurance: { maxAssuranceLevel: 2 } } }),
    record({ CN: 'Google Photos', O: 'Google LLC', OU: 'Google Photos Android', C: 'US' }),
    record({ CN: 'Inspect', O: 'Example Inc.', OU: '', C: 'US' }, { product: { productType: 'validatorProduct', DN: { CN: 'Inspect', O: 'Example Inc.', OU: '', C: 'US' } } }),
    record({ CN: '', O: '', OU: '', C: '' }),
  ];

  it('every field the list names must be equal; an empty one must be absent', () => {
    expect(conformingProductOf({ CN: 'Pixel Camera', O: 'Google LLC', C: 'US' }, list)).toEqual({ applicant: 'Google LLC', product: 'Pixel Camera', max_assurance_level: 2, status: 'conformant' });
    expect(conformingProductOf({ CN: 'Google Photos', O: 'Google LLC', OU: 'Google Photos Android', C: 'US' }, list)?.product).toBe('Google Photos');
    // An OU the list does not name, a missing one it does, another country, a near name: none.
    expect(conformingProductOf({ CN: 'Pixel Camera', O: 'Google LLC', OU: 'Elsewhere', C: 'US' }, list)).toBeUndefined();
    expect(conformingProductOf({ CN: 'Google Photos', O: 'Google LLC', C: 'US' }, list)).toBeUndefined();
    expect(conformingProductOf({ CN: 'Pixel Camera', O: 'Google LLC', C: 'GB' }, list)).toBeUndefined();
    expect(conformingProductOf({ CN: 'Pixel Camera', O: 'Google LLC, Inc.', C: 'US' }, list)).toBeUndefined();
    expect(conformingProductOf({ CN: 'pixel camera', O: 'Google LLC', C: 'US' }, list)).toBeUndefined();
  });

  it('only generator products, and never a DN with no name', () => {
    expect(conformingProductOf({ CN: 'Inspect', O: 'Example Inc.', C: 'US' }, list)).toBeUndefined();
    expect(conformingProductOf({}, list)).toBeUndefined();
  });

  it('several records of one DN: conformant first, then the highest assurance level, then the latest conformance date', () => {
    const DN = { CN: 'Cam', O: 'Maker', OU: '', C: 'US' };
    const versions = [
      record(DN, { status: 'revoked', product: { productType: 'generatorProduct', DN, assurance: { maxAssuranceLevel: 2 } } }),
      record(DN, { applicant: 'Maker (2025)', dates: { conformance: '2025-01-01' } }),
      record(DN, { applicant: 'Maker (2026)', dates: { conformance: '2026-01-01' } }),
    ];
    expect(conformingProductOf({ CN: 'Cam', O: 'Maker', C: 'US' }, versions)).toEqual({ applicant: 'Maker (2026)', product: 'Cam', max_assurance_level: 1, status: 'conformant' });
    expect(conformingProductOf({ CN: 'Cam', O: 'Maker', C: 'US' }, versions.slice(0, 1))?.status).toBe('revoked');
  });

  it('the bundled list is the published file, and names OpenAI Media Service and Google Media Processing Services', () => {
    const published = JSON.parse(readFileSync(packageDataFile('c2pa', 'conforming-products-list.json'), 'utf8')) as unknown[];
    expect(bundledProducts()).toEqual(published);
    expect(conformingProductOf({ CN: 'OpenAI Media Service', O: 'OpenAI OpCo, LLC', C: 'US' })).toEqual({ applicant: 'OpenAI OpCo, LLC', product: 'OpenAI Media Service', max_assurance_level: 1, status: 'conformant' });
    expect(conformingProductOf({ CN: 'Google Media Processing Services', O: 'Google LLC', OU: 'Google System 67154', C: 'US' })?.applicant).toBe('Google LLC');
    // A signer no record names (answered from the file's text, unparsed), and a near name.
    expect(conformingProductOf({ CN: 'provenance fixtures', O: 'Provenance Test Signer', C: 'US' })).toBeUndefined();
    expect(conformingProductOf({ CN: 'OpenAI Media Service', O: 'OpenAI OpCo LLC', C: 'US' })).toBeUndefined();
  });
});

describe('only a trusted manifest is looked up', () => {
  const store = (state: string): ReaderStore => ({
    active_manifest: 'urn:x',
    manifests: { 'urn:x': { claim_generator: 'ChatGPT', signature_info: { issuer: 'OpenAI OpCo, LLC', common_name: 'OpenAI Media Service' } } },
    validation_state: state,
  });
  const cr: CrJsonStore = { manifests: [{ label: 'urn:x', signature: { certificateInfo: { subject: { CN: 'OpenAI Media Service', O: 'OpenAI OpCo, LLC', C: 'US' } } } }] };

  it('trusted: asked with the crJSON subject, and the answer is in the claims', () => {
    const lookup = vi.fn(() => ({ applicant: 'OpenAI OpCo, LLC', product: 'OpenAI Media Service', max_assurance_level: 1, status: 'conformant' }));
    const outcome = foundOutcome(store('Trusted'), cr, { trustAnchors: true, conformingProduct: lookup });
    expect(lookup).toHaveBeenCalledWith({ CN: 'OpenAI Media Service', O: 'OpenAI OpCo, LLC', C: 'US' });
    expect(outcome?.claims?.conforming_product).toEqual({ applicant: 'OpenAI OpCo, LLC', product: 'OpenAI Media Service', max_assurance_level: 1, status: 'conformant' });
  });

  it('valid but untrusted, or invalid: never asked, nothing in the claims', () => {
    for (const state of ['Valid', 'Invalid']) {
      const lookup = vi.fn();
      const outcome = foundOutcome(store(state), cr, { trustAnchors: true, conformingProduct: lookup });
      expect(lookup).not.toHaveBeenCalled();
      expect(outcome?.claims).not.toHaveProperty('conforming_product');
    }
  });
});

// Real files from Google (Gemini, Pixel) and OpenAI in the shared corpus, where it has any: with
// the bundled C2PA Trust List as anchors each reads trusted with its product named, except where
// c2pa-rs refuses the credential itself (OpenAI's files of 2024-25, signed under a root not on the
// list, whose certificates have expired: their codes say so, and no product is named for a signer
// that is not trusted).
const expected = HAS_CORPUS ? loadExpected() : {};
const bigNames = Object.entries(expected).filter(([, e]) => /^(Google LLC|OpenAI)/.test(e.c2pa?.issuer ?? '')).map(([name]) => name);

describe.skipIf(!bigNames.length)('real Google and OpenAI files of the shared corpus, with the bundled C2PA Trust List', () => {
  const anchors = readFileSync(packageDataFile('c2pa', 'C2PA-TRUST-LIST.pem'), 'utf8');
  it.each(bigNames)('%s', async (name) => {
    const result = await detect(readFileSync(join(CORPUS_FILES, name)), { checks: ['c2pa'], trustAnchorsPem: anchors });
    const claims = result.matches[0]!.claims!;
    if (claims.validation?.state === 'trusted') {
      expect(claims.conforming_product?.applicant).toMatch(/^(Google LLC|OpenAI)/);
      expect(claims.conforming_product?.status).toBe('conformant');
    } else {
      expect(claims.conforming_product).toBeUndefined();
      expect(claims.validation?.codes.length).toBeGreaterThan(0);
    }
  });
});
