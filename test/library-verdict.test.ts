// The verdict in the library (issue 31, docs/LIBRARY.md): check() and scan() results carry
// `verdict` beside the /v1 fields. scan() checks on worker threads, so the C2PA details a verdict
// needs for an AI ingredient cross the thread boundary beside the result: the Gemini-style edit
// below reads `contains` through scan() as through check().
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, scan, type CheckedResult } from '../src/index.js';
import { makePki, signC2pa, tinyJpeg, tinyPng } from './fixtures/make.js';
import { actionsManifest, created, IPTC } from './helpers/explained.js';
import { pngWithText, tEXt } from './helpers/generator-fixtures.js';

let dir: string;
let edit: Uint8Array;
/** The test root as the library's trustAnchors option: the edit's signer is then trusted. */
let anchors: string;
const jpeg = 'image/jpeg';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-lib-verdict-'));
  const pki = makePki(join(dir, 'pki'));
  anchors = pki.rootPem;
  const parent = await signC2pa(tinyJpeg({ seed: 61 }), jpeg, actionsManifest('parent.jpg', jpeg, [created('trainedAlgorithmicMedia')]), pki);
  const actions = [
    { action: 'c2pa.opened', parameters: { ingredientIds: ['parent'] } },
    { action: 'c2pa.edited', digitalSourceType: `${IPTC}composite`, softwareAgent: { name: 'Google Gemini' } },
  ];
  edit = await signC2pa(tinyJpeg({ seed: 62 }), jpeg, actionsManifest('edit.jpg', jpeg, actions), pki, {
    ingredients: [{ json: { title: 'parent.jpg', relationship: 'parentOf', label: 'parent' }, bytes: parent, format: jpeg }],
  });
  mkdirSync(join(dir, 'files'));
  writeFileSync(join(dir, 'files', 'edit.jpg'), edit);
  writeFileSync(join(dir, 'files', 'generated.png'), pngWithText(tEXt('parameters', 'a fox\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1, Size: 512x512, Model: sd15')));
  writeFileSync(join(dir, 'files', 'plain.png'), tinyPng({ seed: 63 }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the library', () => {
  it('check() adds the verdict to the /v1 result', async () => {
    const result: CheckedResult = await check(edit, { trustAnchors: anchors });
    expect(result.matches[0]).toMatchObject({ check: 'c2pa', result: 'found' });
    expect(result.verdict).toMatchObject({ ai: 'contains', maker: 'Google Gemini', evidence: [{ kind: 'signed_manifest', content: 'edit of an AI-made picture', trusted: true }] });
    // Without the anchor its signer is a name it gave itself: the maker is only claimed (issue 38).
    const untrusted = (await check(edit)).verdict;
    expect(untrusted).toMatchObject({ ai: 'contains', claimed_maker: 'Google Gemini', evidence: [{ kind: 'signed_manifest', trusted: false }] });
    expect(untrusted.maker).toBeUndefined();
    expect((await check(join(dir, 'files', 'plain.png'))).verdict).toEqual({ ai: 'none_found', evidence: [] });
  });

  it('scan() gives every entry its verdict, the C2PA ingredient read on a worker thread included', async () => {
    const verdicts: Record<string, string> = {};
    for await (const entry of scan(join(dir, 'files'), { concurrency: 2, trustAnchors: anchors })) {
      if (!entry.ok) throw new Error(entry.error.message);
      verdicts[entry.source.split('/').pop()!] = `${entry.result.verdict.ai}:${entry.result.verdict.maker ?? ''}`;
    }
    expect(verdicts).toEqual({ 'edit.jpg': 'contains:Google Gemini', 'generated.png': 'generated:AUTOMATIC1111', 'plain.png': 'none_found:' });
  });
});
