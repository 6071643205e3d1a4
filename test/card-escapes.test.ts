// Terminal escapes from a C2PA manifest (issue 40 item 6): every string of the c2pa card that
// comes from a file goes through printable() before it reaches a terminal. Each such field is
// fed an OSC title sequence, a screen clear, a colour change, a C1 CSI and a bidi override; the
// card (plain and coloured, with --explain) must carry none of them raw. Then a real signed
// manifest whose AI action is named `com.example.generate` + those sequences, through detect().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachDetails, type C2paDetails, type IngredientNode } from '../src/detectors/c2pa-manifest.js';
import { detect } from '../src/engine/detect.js';
import type { DetectionResult, Match } from '../src/types.js';
import { makeStyle } from '../src/ui/style.js';
import { formatResult } from '../src/ui/text-report.js';
import { makePki, signC2pa, tinyJpeg, type Pki } from './fixtures/make.js';
import { actionsManifest, IPTC } from './helpers/explained.js';

/** An OSC window title, a screen clear, a colour change, a C1 CSI and a right-to-left override. */
const EVIL = '\u001b]0;pwned\u0007\u001b[2J\u001b[31m\u009b1m\u202e';

/** Any control or format character other than the newline that ends a line. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The SGR colour codes the card's own Style writes, removed before looking for raw escapes. */
const OWN_COLOURS = /\u001b\[(1|2|22|31|32|33|39)m/g;

function hostile(field: string): string {
  return `${field}${EVIL}`;
}

function ingredient(over: Partial<IngredientNode> = {}): IngredientNode {
  return {
    title: hostile('parent.jpg'),
    format: hostile('image/jpeg'),
    relationship: hostile('parentOf'),
    hasManifest: true,
    signer: hostile('Ingredient Signer'),
    digitalSourceType: hostile(`${IPTC}trainedAlgorithmicMedia`),
    aiGenerated: true,
    problems: [hostile('assertion.dataHash.mismatch')],
    children: [],
    ...over,
  };
}

/** A found c2pa match whose every file-derived field carries EVIL, and its report details. */
function hostileResult(sourceType: string, ingredients: IngredientNode[], state: 'valid' | 'trusted' | 'invalid' = 'valid'): DetectionResult {
  const match: Match = {
    check: 'c2pa',
    result: 'found',
    confidence: 1,
    issuer: hostile('OpenAI OpCo, LLC'),
    claims: {
      claim_generator: hostile('ChatGPT'),
      assertions: [hostile('c2pa.actions.v2')],
      signature_verified: state === 'trusted',
      validation: { state, codes: state === 'trusted' ? [hostile('timeStamp.trusted')] : [hostile('signingCredential.untrusted'), hostile('claimSignature.mismatch')] },
      digital_source_type: sourceType,
      ai_generated: true,
      signed_at: hostile('2026-09-01T10:00:00Z'),
      ingredients: ingredients.length,
      ...(state === 'trusted'
        ? { conforming_product: { applicant: hostile('OpenAI OpCo, LLC'), product: hostile('OpenAI Media Service'), max_assurance_level: 1, status: hostile('conformant') } }
        : {}),
    },
  };
  const result: DetectionResult = { id: 'det_x', media: { type: 'image/png', bytes: 10, sha256: '0'.repeat(64) }, matches: [match], checks_run: ['c2pa'], duration_ms: 1 };
  const details: C2paDetails = {
    signer: { issuer: hostile('OpenAI OpCo, LLC'), commonName: hostile('OpenAI Media Service') },
    softwareAgents: [hostile('GPT-4o')],
    device: hostile('Pixel 9'),
    actions: [
      { action: hostile('com.example.generate'), digitalSourceType: sourceType, softwareAgent: hostile('GPT-4o') },
      { action: hostile('c2pa.converted'), softwareAgent: hostile('OpenAI API') },
    ],
    sourceTypeAction: hostile('com.example.generate'),
    ingredients,
    explanations: { [hostile('claimSignature.mismatch')]: hostile('claim signature is not valid'), [hostile('timeStamp.trusted')]: hostile('timestamp cert trusted') },
    trustAnchors: true,
  };
  attachDetails(result, details);
  return result;
}

function expectNoRawEscape(card: string): void {
  const found = RAW.exec(card.replace(OWN_COLOURS, ''));
  expect(found, found ? `raw U+${found[0].codePointAt(0)!.toString(16).padStart(4, '0')} near ${JSON.stringify(card.slice(Math.max(0, found.index - 40), found.index + 10))}` : '').toBeNull();
}

describe('the c2pa card makes every field from the file printable', () => {
  const cases: [string, () => DetectionResult][] = [
    // The AI row from the action that names the source type: the action and the type.
    ['an AI source type named by an action', () => hostileResult(hostile(`${IPTC}trainedAlgorithmicMedia`), [ingredient({ aiGenerated: false, digitalSourceType: hostile(`${IPTC}digitalCapture`) })])],
    // The AI row from an ingredient: its relationship, title and type, and the manifest's own type.
    ['an AI-made ingredient (contains)', () => hostileResult(hostile(`${IPTC}composite`), [ingredient(), ingredient({ hasManifest: false, children: [] })])],
    // The legacy assertion with a named type; a trusted signer and its conforming product.
    ['a trusted signer with a conforming product', () => hostileResult(hostile(`${IPTC}algorithmicMedia`), [ingredient({ children: [ingredient()] })], 'trusted')],
    ['an invalid credential', () => hostileResult(hostile(`${IPTC}trainedAlgorithmicMedia`), [], 'invalid')],
  ];
  for (const [name, make] of cases) {
    it(name, () => {
      for (const color of [false, true]) {
        const card = formatResult(hostile('a.png'), make(), makeStyle(color), { explain: true, trustAnchors: true });
        expectNoRawEscape(card);
        // The sequences are there, shown as text.
        expect(card).toContain('\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\x9b1m\\u202e');
      }
    });
  }

  it('the action that names the source type is shown, made printable', () => {
    const card = formatResult('a.png', hostileResult(`${IPTC}trainedAlgorithmicMedia`, []), makeStyle(false), { trustAnchors: true });
    expect(card).toContain('named by its com.example.generate\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\x9b1m\\u202e action');
  });
});

describe('a real signed manifest with escapes in its action name', () => {
  let dir: string;
  let pki: Pki;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'prov-card-escapes-'));
    pki = makePki(join(dir, 'pki'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('com.example.generate followed by an OSC title, a screen clear and a colour change reaches the card as text', async () => {
    const action = `com.example.generate${EVIL}`;
    const bytes = await signC2pa(
      tinyJpeg({ seed: 401 }),
      'image/jpeg',
      // c2pa-rs wants c2pa.created first; the AI type on the later action is the one the card names.
      actionsManifest(
        'evil.jpg',
        'image/jpeg',
        [
          { action: 'c2pa.created', digitalSourceType: `${IPTC}digitalCreation` },
          { action, digitalSourceType: `${IPTC}trainedAlgorithmicMedia`, softwareAgent: { name: `GPT-4o${EVIL}` } },
        ],
        { label: 'c2pa.actions.v2' },
      ),
      pki,
    );
    const result = await detect(bytes, { checks: ['c2pa'] });
    expect(result.matches[0]).toMatchObject({ result: 'found', claims: { ai_generated: true } });
    for (const color of [false, true]) {
      const card = formatResult('evil.jpg', result, makeStyle(color), { explain: true });
      expectNoRawEscape(card);
      expect(card).toContain('named by its com.example.generate\\x1b]0;pwned\\x07');
    }
  });
});
