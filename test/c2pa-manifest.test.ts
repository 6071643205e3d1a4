// The mapping from c2pa-rs reader output to the contract's c2pa match, as pure functions.
import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  aiSignal,
  attachDetails,
  assertionLabels,
  c2paDetails,
  claimGenerator,
  detailsOfResult,
  foundOutcome,
  isAiSourceType,
  isoUtc,
  recordedLabels,
  sourceTypeOf,
  validationOf,
} from '../src/detectors/c2pa-manifest.js';
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

describe('issue 7: source type, AI, signing time, ingredients (pure mapping)', () => {
  const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
  const store = (manifest: object, extra: object = {}) => ({ active_manifest: 'm', manifests: { m: manifest }, ...extra });
  const actions = (list: object[], label = 'c2pa.actions.v2') => ({ label, data: { actions: list } });

  it('reads digitalSourceType and parameters["com.adobe.digitalSourceType"], from v1 and v2 labels', () => {
    const manifest = {
      assertions: [
        actions([{ action: 'c2pa.created', parameters: { 'com.adobe.digitalSourceType': `${IPTC}digitalCapture` } }], 'c2pa.actions'),
        actions([{ action: 'c2pa.edited', digitalSourceType: `${IPTC}minorHumanEdits`, softwareAgent: { name: 'Editor', version: '2' } }], 'c2pa.actions__1'),
        { label: 'c2pa.actionsX', data: { actions: [{ action: 'c2pa.created', digitalSourceType: 'ignored' }] } },
      ],
    };
    expect(actionsOf(manifest)).toEqual([
      { action: 'c2pa.created', digitalSourceType: `${IPTC}digitalCapture` },
      { action: 'c2pa.edited', digitalSourceType: `${IPTC}minorHumanEdits`, softwareAgent: 'Editor 2' },
    ]);
  });

  it('an AI type on any action wins; else c2pa.created, then c2pa.opened, then the first named', () => {
    const a = (action: string, t?: string) => ({ action, ...(t ? { digitalSourceType: IPTC + t } : {}) });
    expect(sourceTypeOf([a('c2pa.created', 'digitalCapture'), a('c2pa.edited', 'trainedAlgorithmicMedia')])).toEqual({
      type: `${IPTC}trainedAlgorithmicMedia`,
      action: 'c2pa.edited',
    });
    expect(sourceTypeOf([a('c2pa.edited', 'humanEdits'), a('c2pa.created', 'digitalCapture')])?.action).toBe('c2pa.created');
    expect(sourceTypeOf([a('c2pa.edited', 'humanEdits'), a('c2pa.opened', 'digitalCapture')])?.action).toBe('c2pa.opened');
    expect(sourceTypeOf([a('c2pa.edited', 'humanEdits')])?.action).toBe('c2pa.edited');
    expect(sourceTypeOf([a('c2pa.created')])).toBeUndefined();
  });

  it('AI types: the two trained-model IPTC terms, over http or https or bare; nothing else (not algorithmicMedia)', () => {
    for (const t of ['trainedAlgorithmicMedia', 'compositeWithTrainedAlgorithmicMedia']) {
      expect(isAiSourceType(IPTC + t)).toBe(true);
      expect(isAiSourceType(`https://cv.iptc.org/newscodes/digitalsourcetype/${t}`)).toBe(true);
      expect(isAiSourceType(t)).toBe(true);
    }
    for (const t of ['algorithmicMedia', 'digitalCapture', 'compositeSynthetic', 'algorithmicallyEnhanced', 'digitalCreation']) expect(isAiSourceType(IPTC + t)).toBe(false);
    expect(isAiSourceType('algorithmicMedia')).toBe(false);
    expect(isAiSourceType('http://example.test/trainedAlgorithmicMedia')).toBe(false);
  });

  it('aiSignal: which rule fired', () => {
    expect(aiSignal({ digital_source_type: `${IPTC}trainedAlgorithmicMedia`, assertions: [] }, 'c2pa.created')).toEqual({
      rule: 'source_type',
      ai: true,
      type: `${IPTC}trainedAlgorithmicMedia`,
      action: 'c2pa.created',
    });
    expect(aiSignal({ digital_source_type: `${IPTC}digitalCapture`, assertions: ['com.adobe.generative-ai'] })).toMatchObject({ rule: 'legacy_assertion', ai: true });
    expect(aiSignal({ digital_source_type: `${IPTC}digitalCapture`, assertions: [] })).toMatchObject({ rule: 'source_type', ai: false });
    expect(aiSignal({ assertions: ['com.adobe.generative-ai__1'] })).toMatchObject({ rule: 'legacy_assertion', ai: true });
    expect(aiSignal({ assertions: ['c2pa.actions'] })).toBeUndefined();
  });

  it('isoUtc normalises to UTC with Z, and drops what is not a time', () => {
    expect(isoUtc('2024-08-06T21:53:37+00:00')).toBe('2024-08-06T21:53:37Z');
    expect(isoUtc('2024-08-06T23:53:37.250+02:00')).toBe('2024-08-06T21:53:37.250Z');
    expect(isoUtc('yesterday')).toBeUndefined();
    expect(isoUtc(undefined)).toBeUndefined();
  });

  it('foundOutcome adds the fields, and keeps the v1 fields first and unchanged', () => {
    const out = foundOutcome(
      store(
        {
          claim_generator: 'g',
          assertions: [actions([{ action: 'c2pa.created', digitalSourceType: `${IPTC}trainedAlgorithmicMedia` }])],
          ingredients: [{ title: 'a.jpg' }, { title: 'b.jpg' }],
          signature_info: { issuer: 'Org', time: '2025-01-02T03:04:05+00:00' },
        },
        { validation_state: 'Valid', validation_status: [{ code: 'signingCredential.untrusted' }] },
      ),
      {},
    );
    expect(Object.keys(out!.claims!)).toEqual([
      'claim_generator',
      'assertions',
      'signature_verified',
      'validation',
      'digital_source_type',
      'ai_generated',
      'signed_at',
      'ingredients',
    ]);
    expect(out!.claims).toMatchObject({ digital_source_type: `${IPTC}trainedAlgorithmicMedia`, ai_generated: true, signed_at: '2025-01-02T03:04:05Z', ingredients: 2 });
  });

  it('signature_verified is true only with anchors in use and the state trusted', () => {
    const trusted = store({ claim_generator: 'g' }, { validation_state: 'Trusted' });
    expect(foundOutcome(trusted, {}, { trust: { anchors: 'c2pa-lists', trustedBy: 'c2pa-trust-list' } })!.claims!.signature_verified).toBe(true);
    expect(foundOutcome(trusted, {}, { trust: { anchors: 'own', trustedBy: 'own' } })!.claims!.signature_verified).toBe(true);
    expect(foundOutcome(trusted, {}, {})!.claims!.signature_verified).toBe(false);
    const valid = store({ claim_generator: 'g' }, { validation_state: 'Valid', validation_status: [{ code: 'signingCredential.untrusted' }] });
    expect(foundOutcome(valid, {}, { trust: { anchors: 'c2pa-lists' } })!.claims!.signature_verified).toBe(false);
  });

  it('the report details: ingredient tree with cycles cut, explanations, and they survive only in-process', () => {
    const s = {
      active_manifest: 'a',
      manifests: {
        a: { claim_generator: 'g', ingredients: [{ title: 'b.jpg', relationship: 'parentOf', active_manifest: 'b' }] },
        b: { claim_generator: 'g', ingredients: [{ title: 'a-again.jpg', active_manifest: 'a' }] },
      },
      validation_state: 'Invalid',
      validation_status: [{ code: 'claimSignature.mismatch', explanation: 'claim signature is not valid' }],
    };
    const out = foundOutcome(s, {})!;
    const details = c2paDetails(out.claims)!;
    expect(details.explanations).toEqual({ 'claimSignature.mismatch': 'claim signature is not valid' });
    expect(details.ingredients).toHaveLength(1);
    expect(details.ingredients[0]!.children[0]!.title).toBe('a-again.jpg');
    expect(details.ingredients[0]!.children[0]!.children).toEqual([]); // a is already on the path
    expect(c2paDetails(structuredClone(out.claims))).toBeUndefined();
    // A worker posts the details beside the result; the other side re-attaches them.
    const result = { matches: [{ check: 'c2pa', ...out }] };
    const [cloned, posted] = structuredClone([result, detailsOfResult(result)]);
    attachDetails(cloned, posted);
    expect(c2paDetails(cloned.matches[0]!.claims)).toEqual(details);
  });
});
