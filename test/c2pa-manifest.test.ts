// The mapping from c2pa-rs reader output to the contract's c2pa match, as pure functions.
import { describe, expect, it } from 'vitest';
import { assertionLabels, claimGenerator, foundOutcome, recordedLabels, validationOf } from '../src/detectors/c2pa-manifest.js';
import { outcomeForError } from '../src/detectors/c2pa.js';

describe('claim_generator', () => {
  it('is the v1 claim_generator string when present', () => {
    expect(claimGenerator({ claim_generator: 'make_test_images/0.33.1 c2pa-rs/0.33.1', claim_generator_info: [{ name: 'x', version: '1' }] })).toBe(
      'make_test_images/0.33.1 c2pa-rs/0.33.1',
    );
  });
  it('is name/version of the first claim_generator_info entry for v2 claims', () => {
    expect(claimGenerator({ claim_generator_info: [{ name: 'Tool', version: '2.1' }, { name: 'c2pa-rs', version: '0.6' }] })).toBe('Tool/2.1');
    expect(claimGenerator({ claim_generator_info: [{ name: 'Tool' }] })).toBe('Tool');
    expect(claimGenerator({})).toBe('');
  });
});

describe('assertion labels', () => {
  const cr = {
    manifests: [
      {
        label: 'urn:1',
        claim: {
          assertions: [
            { url: 'self#jumbf=/c2pa/urn:1/c2pa.assertions/c2pa.thumbnail.claim.jpeg' },
            { url: 'self#jumbf=/c2pa/urn:1/c2pa.assertions/stds.schema-org.CreativeWork' },
            { url: 'self#jumbf=/c2pa/urn:1/c2pa.assertions/c2pa.actions' },
            { url: 'self#jumbf=/c2pa/urn:1/c2pa.assertions/my.assertion__1' },
            { url: 'self#jumbf=/c2pa/urn:1/c2pa.assertions/c2pa.hash.data' },
          ],
        },
      },
    ],
  };

  it('keeps the reader list but restores the recorded v1 label c2pa.actions', () => {
    const manifest = { assertions: [{ label: 'stds.schema-org.CreativeWork' }, { label: 'c2pa.actions.v2' }, { label: 'my.assertion' }] };
    expect(assertionLabels(manifest, recordedLabels(cr, 'urn:1'))).toEqual(['stds.schema-org.CreativeWork', 'c2pa.actions', 'my.assertion']);
  });

  it('keeps c2pa.actions.v2 where the claim records it so (v2 claims list created/gathered assertions)', () => {
    const v2 = { manifests: [{ label: 'urn:2', claim: { created_assertions: [{ url: 'self#jumbf=c2pa.assertions/c2pa.actions.v2' }] } }] };
    expect(assertionLabels({ assertions: [{ label: 'c2pa.actions.v2' }] }, recordedLabels(v2, 'urn:2'))).toEqual(['c2pa.actions.v2']);
  });
});

describe('validation', () => {
  it('lower-cases the state and lists each code once', () => {
    expect(
      validationOf({
        validation_state: 'Invalid',
        validation_status: [{ code: 'signingCredential.untrusted' }, { code: 'claimSignature.mismatch' }, { code: 'signingCredential.untrusted' }],
      }),
    ).toEqual({ state: 'invalid', codes: ['signingCredential.untrusted', 'claimSignature.mismatch'] });
    expect(validationOf({ validation_state: 'Trusted' })).toEqual({ state: 'trusted', codes: [] });
    expect(validationOf({})).toBeUndefined();
  });

  it('a store without an active manifest is no match', () => {
    expect(foundOutcome({ manifests: {} }, {})).toBeUndefined();
  });

  it('an issuer-less certificate gives issuer null', () => {
    const out = foundOutcome({ active_manifest: 'm', manifests: { m: { claim_generator: 'g', signature_info: { common_name: 'cn' } } } }, {});
    expect(out).toMatchObject({ result: 'found', confidence: 1, issuer: null });
  });
});

describe('c2pa-rs errors', () => {
  it('a remote manifest is unavailable, with its URL, and is not fetched', () => {
    expect(outcomeForError('C2pa(RemoteManifestUrl("https://example.test/m.c2pa"))')).toEqual({
      result: 'unavailable',
      confidence: 0,
      reason: 'The manifest is stored remotely at https://example.test/m.c2pa and remote manifests are not fetched.',
    });
  });
  it('no JUMBF means not_found', () => {
    expect(outcomeForError('C2pa(JumbfNotFound)')).toEqual({ result: 'not_found', confidence: 1 });
  });
  it('a damaged file is unavailable with c2pa-rs\'s words', () => {
    expect(outcomeForError('C2pa(InvalidAsset("TIFF file has too many subfiles"))')).toEqual({
      result: 'unavailable',
      confidence: 0,
      reason: 'The file is damaged in a way the c2pa check cannot read: TIFF file has too many subfiles.',
    });
    expect(outcomeForError(new Error('boom')).reason).toMatch(/damaged.*boom/);
  });
});
