// One verdict per file (issue 31): the rules of src/verdict/verdict.ts, each evidence kind,
// their order, the maker, disagreement, and the line at the top of a card. The rules are pure
// (matches in, a verdict out), so most cases are matches as an API or the engine gives them;
// the C2PA cases that need an ingredient tree are real signed files through detect().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../src/engine/detect.js';
import type { C2paClaims, Match } from '../src/types.js';
import { makeStyle } from '../src/ui/style.js';
import { formatResult } from '../src/ui/text-report.js';
import { disagreementLine, verdictLine, verdictOf } from '../src/verdict/verdict.js';
import { makePki, signC2pa, tinyJpeg, type Pki } from './fixtures/make.js';
import { actionsManifest, created, IPTC } from './helpers/explained.js';

const claims = (over: Partial<C2paClaims> = {}): C2paClaims => ({
  claim_generator: 'Adobe Firefly',
  assertions: ['c2pa.actions.v2'],
  signature_verified: false,
  validation: { state: 'valid', codes: ['signingCredential.untrusted'] },
  ...over,
});
const c2pa = (over: Partial<C2paClaims> = {}): Match => ({ check: 'c2pa', result: 'found', confidence: 1, issuer: 'Adobe Inc.', claims: claims(over) });
const AI = `${IPTC}trainedAlgorithmicMedia`;
const notFound = (check: Match['check']): Match => ({ check, result: 'not_found', confidence: 1 });
const camera: Match = { check: 'camera_reference', result: 'found', confidence: 0.9 };
const comfy: Match = { check: 'generator_metadata', result: 'found', confidence: 0.8, generator: { tool: 'comfyui', where: 'png:tEXt:prompt' } };
const novelai = (signature: 'valid' | 'invalid'): Match => ({
  check: 'generator_metadata',
  result: 'found',
  confidence: signature === 'valid' ? 0.99 : 0.8,
  generator: { tool: 'novelai', where: 'png:tEXt:Comment', signature },
});
const sdxl: Match = { check: 'invisible_watermark', result: 'found', confidence: 0.9, watermark: { method: 'dwtDct', payload: 'sdxl48', bits_matched: 48, bits_total: 48 } };

describe('the verdict rules', () => {
  it('nothing found: none_found, no evidence, and the line says it proves nothing', () => {
    const v = verdictOf({ matches: [notFound('c2pa'), notFound('generator_metadata'), notFound('invisible_watermark')] });
    expect(v).toEqual({ ai: 'none_found', evidence: [] });
    expect(verdictLine(v)).toBe('No AI marker found (that proves nothing)');
  });

  it('a signed manifest with an AI source type: generated, the manifest names the maker', () => {
    const v = verdictOf({ matches: [c2pa({ digital_source_type: AI, ai_generated: true })] });
    expect(v).toEqual({
      ai: 'generated',
      maker: 'Adobe Firefly',
      evidence: [{ kind: 'signed_manifest', check: 'c2pa', says: 'generated', maker: 'Adobe Firefly', detail: 'signed C2PA manifest' }],
    });
    expect(verdictLine(v)).toBe('AI-generated: Adobe Firefly (signed C2PA manifest)');
  });

  it("the legacy com.adobe.generative-ai assertion is generated; compositeWithTrainedAlgorithmicMedia is contains", () => {
    expect(verdictOf({ matches: [c2pa({ assertions: ['com.adobe.generative-ai'] })] }).ai).toBe('generated');
    const v = verdictOf({ matches: [c2pa({ digital_source_type: `${IPTC}compositeWithTrainedAlgorithmicMedia`, ai_generated: true })] });
    expect(v.ai).toBe('contains');
    expect(verdictLine(v)).toBe('Contains AI-generated content: Adobe Firefly composite with AI-generated parts (signed C2PA manifest)');
  });

  it('a manifest whose credential is invalid weighs as an unsigned record', () => {
    const v = verdictOf({ matches: [c2pa({ digital_source_type: AI, validation: { state: 'invalid', codes: ['assertion.dataHash.mismatch'] } })] });
    expect(v.evidence[0]).toMatchObject({ kind: 'unsigned_record', says: 'generated', detail: 'C2PA manifest whose credential is INVALID' });
    expect(verdictLine(v)).toBe('AI-generated: Adobe Firefly (C2PA manifest whose credential is INVALID)');
  });

  it('a manifest that names no source type, or a non-AI edit, says nothing either way', () => {
    expect(verdictOf({ matches: [c2pa()] })).toMatchObject({ ai: 'none_found', maker: 'Adobe Firefly', evidence: [{ says: 'not_stated' }] });
    expect(verdictOf({ matches: [c2pa({ digital_source_type: `${IPTC}composite`, ai_generated: false })] }).evidence[0]!.says).toBe('not_stated');
  });

  it("NovelAI's valid signature is its own kind; a failing one is an unsigned record", () => {
    const valid = verdictOf({ matches: [novelai('valid')] });
    expect(valid).toEqual({
      ai: 'generated',
      maker: 'NovelAI',
      evidence: [{ kind: 'novelai_signature', check: 'generator_metadata', says: 'generated', maker: 'NovelAI', detail: "record signed with the generator's key" }],
    });
    expect(verdictLine(valid)).toBe("AI-generated: NovelAI (record signed with the generator's key)");
    expect(verdictOf({ matches: [novelai('invalid')] }).evidence[0]).toMatchObject({ kind: 'unsigned_record', detail: 'record whose signature FAILS' });
  });

  it('a pixel mark: the AI mark line, the model family as maker', () => {
    const v = verdictOf({ matches: [sdxl] });
    expect(v).toEqual({
      ai: 'generated',
      maker: 'SDXL',
      evidence: [{ kind: 'pixel_mark', check: 'invisible_watermark', says: 'generated', maker: 'SDXL', detail: 'SDXL invisible watermark (48/48 bits)' }],
    });
    expect(verdictLine(v)).toBe('AI mark: SDXL invisible watermark (48/48 bits)');
  });

  it('an unsigned record: generated; a label that names no generator gives no maker', () => {
    expect(verdictLine(verdictOf({ matches: [comfy] }))).toBe('AI-generated: ComfyUI (unsigned record in the file)');
    const unnamed = verdictOf({ matches: [{ ...comfy, generator: { tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' } }] });
    expect(unnamed).toEqual({
      ai: 'generated',
      evidence: [{ kind: 'unsigned_record', check: 'generator_metadata', says: 'generated', detail: 'unsigned label in the file that names no generator' }],
    });
    expect(verdictLine(unnamed)).toBe('AI-generated (unsigned label in the file that names no generator)');
  });

  it("Midjourney named from its XMP job id: the maker, worded as read from the fields' form", () => {
    const note = 'Named Midjourney from XMP Iptc4xmpExt:DigImageGUID d95be554-d446-4c51-ad75-e00d9f9bbb35 (a job id, as Midjourney writes it) beside DigitalSourceType trainedAlgorithmicMedia; both are IPTC fields that any tool could write.';
    const hint: Match = { check: 'generator_metadata', result: 'found', confidence: 0.65, generator: { tool: 'midjourney', app: 'Midjourney', where: 'xmp:Iptc4xmpExt:DigImageGUID' }, note };
    const v = verdictOf({ matches: [hint] });
    expect(v).toEqual({
      ai: 'generated',
      maker: 'Midjourney',
      evidence: [{ kind: 'unsigned_record', check: 'generator_metadata', says: 'generated', maker: 'Midjourney', detail: 'unsigned IPTC job id in the form Midjourney writes' }],
    });
    expect(verdictLine(v)).toBe('AI-generated: Midjourney (unsigned IPTC job id in the form Midjourney writes)');
    // The card says how the name was read.
    const card = formatResult('mj.png', { id: 'x', media: { type: 'image/png', bytes: 1, sha256: '0'.repeat(64) }, matches: [hint], checks_run: ['generator_metadata'], duration_ms: 1 }, makeStyle(false));
    expect(card).toContain('generator: Midjourney');
    expect(card).toContain(note);
  });

  it('evidence strongest first: signed manifest, NovelAI signature, pixel mark, unsigned records', () => {
    const invalid = c2pa({ digital_source_type: AI, validation: { state: 'invalid', codes: [] } });
    const kinds = (matches: Match[]) => verdictOf({ matches }).evidence.map((e) => `${e.kind}:${e.check}`);
    expect(kinds([invalid, camera, novelai('valid'), sdxl])).toEqual([
      'novelai_signature:generator_metadata',
      'pixel_mark:invisible_watermark',
      'unsigned_record:c2pa',
      'unsigned_record:camera_reference',
    ]);
    expect(kinds([c2pa({ digital_source_type: AI }), comfy, sdxl])).toEqual(['signed_manifest:c2pa', 'pixel_mark:invisible_watermark', 'unsigned_record:generator_metadata']);
  });

  it('the maker is the tool a record or manifest names before the model family a watermark names', () => {
    const v = verdictOf({ matches: [comfy, sdxl] });
    expect(v.maker).toBe('ComfyUI');
    expect(verdictLine(v)).toBe('AI mark: SDXL invisible watermark (48/48 bits)');
  });

  it('disagreement: a signed capture and a pixel mark; camera EXIF and a generator record', () => {
    const capture = verdictOf({ matches: [c2pa({ claim_generator: 'Leica M11', digital_source_type: `${IPTC}digitalCapture`, ai_generated: false }), sdxl] });
    expect(capture.ai).toBe('generated');
    expect(capture.disagreement).toBe(
      'c2pa (signed C2PA manifest: Leica M11, a digitalCapture) says not AI-made, but invisible_watermark (SDXL invisible watermark (48/48 bits): SDXL) says AI-made',
    );
    expect(disagreementLine(capture)).toBe(`Checks disagree: ${capture.disagreement}`);
    const exif = verdictOf({ matches: [camera, comfy] });
    expect(exif).toMatchObject({ ai: 'generated', maker: 'ComfyUI' });
    expect(exif.disagreement).toBe(
      'camera_reference (camera EXIF: Apple iPhone/iPad camera, a camera capture) says not AI-made, but generator_metadata (unsigned record in the file: ComfyUI) says AI-made',
    );
  });

  it('no disagreement without both sides: camera EXIF alone, or AI marks that agree', () => {
    expect(verdictOf({ matches: [camera] })).toEqual({
      ai: 'none_found',
      maker: 'Apple iPhone/iPad camera',
      evidence: [{ kind: 'unsigned_record', check: 'camera_reference', says: 'not_ai', maker: 'Apple iPhone/iPad camera', content: 'a camera capture', detail: 'camera EXIF' }],
    });
    expect(verdictOf({ matches: [c2pa({ digital_source_type: AI }), comfy, sdxl] }).disagreement).toBeUndefined();
    expect(disagreementLine(verdictOf({ matches: [camera] }))).toBeUndefined();
  });

  it('unavailable and planned checks are not evidence', () => {
    const v = verdictOf({ matches: [{ check: 'watermark_a', result: 'unavailable', confidence: 0, reason: 'planned' }, { check: 'c2pa', result: 'unavailable', confidence: 0, reason: 'damaged' }] });
    expect(v).toEqual({ ai: 'none_found', evidence: [] });
  });
});

describe('AI through a C2PA ingredient (real signed files)', () => {
  let dir: string;
  let pki: Pki;
  const jpeg = 'image/jpeg';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'prov-verdict-'));
    pki = makePki(join(dir, 'pki'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A Gemini-style edit: c2pa.edited with `composite`, its parent made by a trained model. */
  async function editOf(relationship: string, ownType = 'composite'): Promise<Uint8Array> {
    const parent = await signC2pa(tinyJpeg({ seed: 91 }), jpeg, actionsManifest('parent.jpg', jpeg, [created('trainedAlgorithmicMedia')]), pki);
    // c2pa-rs wants a parentOf ingredient opened; a component is placed into a new picture.
    const first =
      relationship === 'parentOf'
        ? [{ action: 'c2pa.opened', parameters: { ingredientIds: ['parent'] } }]
        : [created('digitalCreation'), ...(relationship === 'componentOf' ? [{ action: 'c2pa.placed', parameters: { ingredientIds: ['parent'] } }] : [])];
    const actions = [...first, { action: 'c2pa.edited', digitalSourceType: IPTC + ownType, softwareAgent: { name: 'Google Gemini' } }];
    return signC2pa(tinyJpeg({ seed: 92 }), jpeg, actionsManifest('edit.jpg', jpeg, actions), pki, {
      ingredients: [{ json: { title: 'parent.jpg', relationship, label: 'parent' }, bytes: parent, format: jpeg }],
    });
  }

  it('an edit (composite) of a trainedAlgorithmicMedia parent contains AI-generated content, and the card says so', async () => {
    const result = await detect(await editOf('parentOf'), { checks: ['c2pa'] });
    // The contract's claim stays as defined: the edit's own type is named and is not an AI one.
    expect(result.matches[0]!.claims).toMatchObject({ digital_source_type: `${IPTC}composite`, ai_generated: false, ingredients: 1 });
    const v = verdictOf(result);
    expect(v).toEqual({
      ai: 'contains',
      maker: 'Google Gemini',
      evidence: [{ kind: 'signed_manifest', check: 'c2pa', says: 'contains', maker: 'Google Gemini', content: 'edit of an AI-made picture', detail: 'signed C2PA manifest' }],
    });
    const card = formatResult('edit.jpg', result, makeStyle(false));
    expect(card.split('\n')[1]).toBe('  Contains AI-generated content: Google Gemini edit of an AI-made picture (signed C2PA manifest)');
    expect(card).toContain(
      'AI-generated   contains AI-generated content: its parentOf ingredient "parent.jpg" is AI-generated (trainedAlgorithmicMedia); the manifest\'s own type is composite (a composite of several elements), named by its c2pa.edited action\n',
    );
    expect(card).not.toContain('AI-generated   no:');
  });

  it('a component that is AI-made: contains, as a composite with an AI-made part', async () => {
    const v = verdictOf(await detect(await editOf('componentOf'), { checks: ['c2pa'] }));
    expect(v.ai).toBe('contains');
    expect(verdictLine(v)).toBe('Contains AI-generated content: Google Gemini composite with an AI-made part (signed C2PA manifest)');
  });

  it('an AI-made picture used only as an input (inputTo) is not in the picture: not "contains"', async () => {
    const result = await detect(await editOf('inputTo'), { checks: ['c2pa'] });
    // The edit's own `composite` type is one the C2PA signals rubric reads as a perceptible
    // transformation possibly using GenAI (issue 38): the verdict follows that signal, and the
    // AI-made input, not in the picture, still does not make it "contains".
    expect(verdictOf(result)).toMatchObject({ ai: 'may_contain', evidence: [{ says: 'may_contain', content: 'edits that may have used generative AI' }] });
    const own = await detect(await editOf('inputTo', 'minorHumanEdits'), { checks: ['c2pa'] });
    expect(verdictOf(own)).toMatchObject({ ai: 'none_found', evidence: [{ says: 'not_stated' }] });
  });

  it('a remote result has no ingredient tree: the same file reads none_found from its claims alone', async () => {
    const result = await detect(await editOf('parentOf'), { checks: ['c2pa'] });
    // What the CLI's remote client gets: the /v1 JSON, without this process's C2PA details.
    const remote = JSON.parse(JSON.stringify(result)) as typeof result;
    expect(verdictOf(remote).ai).toBe('none_found');
  });
});
