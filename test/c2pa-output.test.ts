// check --crjson and check --rubric (issue 38), the C2PA signals on the JSON line and the card,
// the verdict that follows them, and the library's crJson()/rubric(): on files signed here
// (c2pa-rs signs them; test/fixtures/make.ts), through the CLI as users run it (in-process; the
// built bin for one run), against c2pa-rs's own crJson() for the same bytes and settings.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crJson, rubric } from '../src/library/entry.js';
import { loadC2paWasm, readerSettings } from '../src/media/c2pa-wasm.js';
import { makePki, signC2pa, tinyJpeg, type Pki } from './fixtures/make.js';
import { actionsManifest, created } from './helpers/explained.js';
import { runBin, runCli } from './helpers/run-cli.js';

const jpeg = 'image/jpeg';
let dir: string;
let pki: Pki;
let root: string;
const files: Record<string, string> = {};

/** crJSON with each `validationTime` (the moment c2pa-rs validated: it differs between two reads) blanked. */
function timeless(doc: unknown): unknown {
  return JSON.parse(JSON.stringify(doc), (key, value) => (key === 'validationTime' ? 'T' : value));
}

async function officialCrJson(bytes: Uint8Array, anchors?: string): Promise<unknown> {
  const wasm = await loadC2paWasm();
  const reader = await wasm.WasmReader.fromBytes(jpeg, bytes, readerSettings(anchors));
  try {
    return JSON.parse(reader.crJson());
  } finally {
    reader.free();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-c2pa-output-'));
  pki = makePki(join(dir, 'pki'));
  root = join(dir, 'root.pem');
  writeFileSync(root, pki.rootPem);
  const sign = async (name: string, seed: number, actions: object[]) => {
    const bytes = await signC2pa(tinyJpeg({ seed }), jpeg, actionsManifest(name, jpeg, actions, { label: 'c2pa.actions.v2' }), pki);
    writeFileSync((files[name] = join(dir, name)), bytes);
  };
  await sign('generated.jpg', 71, [created('trainedAlgorithmicMedia', { softwareAgent: { name: 'Image Maker' } })]);
  await sign('screen.jpg', 72, [created('screenCapture')]);
  await sign('capture.jpg', 73, [created('digitalCapture', { softwareAgent: { name: 'Camera App' } })]);
  writeFileSync((files['plain.jpg'] = join(dir, 'plain.jpg')), tinyJpeg({ seed: 74 }));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check --crjson', () => {
  it("prints c2pa-rs's own crJSON, one document per line, with the anchors check uses", async () => {
    const run = await runCli(['check', '--crjson', '--trust-anchors', root, files['generated.jpg']!, files['screen.jpg']!]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const { readFileSync } = await import('node:fs');
    expect(run.stdout).toContain('"validationTime"');
    expect(timeless(JSON.parse(lines[0]!))).toEqual(timeless(await officialCrJson(readFileSync(files['generated.jpg']!), pki.rootPem)));
    expect(timeless(JSON.parse(lines[1]!))).toEqual(timeless(await officialCrJson(readFileSync(files['screen.jpg']!), pki.rootPem)));
    // --trust-list (the harness's name for it) reads the same; the root makes the signer trusted.
    const harness = await runCli(['check', '--crjson', '--trust-list', root, files['generated.jpg']!]);
    expect(timeless(JSON.parse(harness.stdout))).toEqual(timeless(JSON.parse(lines[0]!)));
    expect(harness.stdout).toContain('signingCredential.trusted');
  });

  it('a file without a manifest prints no line, says so on stderr, and the run exits 1', async () => {
    const run = await runCli(['check', '--crjson', files['plain.jpg']!, files['generated.jpg']!]);
    expect(run.code).toBe(1);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toBe(`provenance: ${files['plain.jpg']}: no C2PA manifest, so no crJSON.\n`);
  });

  it('a file of a type c2pa-rs does not read is called that, not damaged, even when it names "c2pa"', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'Our c2pa notes: the manifest store is a jumb box.\n');
    const run = await runCli(['check', '--crjson', notes]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`provenance: ${notes}: The media type application/octet-stream is not read by c2pa-rs.\n`);
  });

  it.each([
    [['--crjson', '--rubric', 'signals'], /--crjson and --rubric cannot be used together/],
    [['--rubric', 'labels'], /--rubric: unknown rubric "labels"\. The rubrics: signals, conformance-2\.2, conformance-2\.4\./],
    [['--crjson', '--validation-time', '2025-06-01T00:00:00Z'], /--validation-time: not supported\. c2pa-rs/],
    [['--crjson', '--json'], /--json does not go with --crjson/],
    [['--rubric', 'signals', '--remote', '--html', 'r.html'], /--html, --remote do not go with --rubric/],
    [['--crjson', '--trust-list', 'a.pem', '--trust-anchors', 'b.pem'], /--trust-list and --trust-anchors cannot be used together/],
    [['--crjson', '--tsa-trust-list', '/nonexistent.pem'], /--tsa-trust-list: /],
    [['--trust-list', 'a.pem'], /--trust-list goes with --crjson or --rubric/],
  ])('refuses %j with exit 2', async (flags, message) => {
    const run = await runCli(['check', ...flags, files['generated.jpg'] ?? 'x.jpg']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});

describe('check --rubric', () => {
  it('signals: the official output, the fully GenAI inception on the active manifest', async () => {
    const run = await runCli(['check', '--rubric', 'signals', files['generated.jpg']!]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ rubricName: 'C2PA Asset Signals Rubric (Local)', rubricVersion: '1.0' });
    expect(out.manifests[0].localInceptions).toEqual([{ trait: 'inception:signal_fullyGenAIMedia', reportText: 'Contains Fully GenAI Media', multiple: false }]);
  });

  it('conformance-2.4: the conformance evaluator\'s format, from the built CLI', async () => {
    const run = await runBin(['check', '--rubric', 'conformance-2.4', files['generated.jpg']!]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.rubricName).toBe('C2PA Asset Conformance 0.2 Spec 2.4 Rubric');
    expect(Object.keys(out)).toEqual(['rubricName', 'rubricVersion', 'true', 'false', 'warning']);
  });
});

describe('the signals in check', () => {
  it('the JSON line carries the active manifest\'s signals, and the verdict follows them', async () => {
    const run = await runCli(['check', '--json', files['generated.jpg']!, files['screen.jpg']!, files['plain.jpg']!], undefined, {});
    const [generated, screen, plain] = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(generated.signals).toEqual({
      rubricName: 'C2PA Asset Signals Rubric (Local)',
      rubricVersion: '1.0',
      localInceptions: [{ trait: 'inception:signal_fullyGenAIMedia', reportText: 'Contains Fully GenAI Media', multiple: false }],
      // The manifest does not say allActionsIncluded: the rubric calls its actions ambiguous.
      localTransformations: [{ trait: 'transformation:signal_ambiguousActions', reportText: 'Contains ambiguous actions', multiple: false }],
    });
    expect(Object.keys(generated).slice(-2)).toEqual(['signals', 'verdict']);
    // The test signer is on no trust list in use: the manifest's maker is its claim.
    expect(generated.verdict).toMatchObject({ ai: 'generated', claimed_maker: 'Image Maker' });
    expect(generated.verdict.maker).toBeUndefined();
    expect(screen.signals.localInceptions.map((s: { trait: string }) => s.trait)).toEqual(['inception:signal_screenCaptureMayContainGenAI']);
    expect(screen.verdict).toMatchObject({ ai: 'may_contain', evidence: [{ says: 'may_contain', content: 'a screen capture that may contain AI-generated content' }] });
    expect(plain.signals).toBeUndefined();
  });

  it('the card shows the signals in the rubric\'s words, and a screen capture reads "may contain"', async () => {
    const run = await runCli(['check', files['screen.jpg']!]);
    expect(run.stdout.split('\n')[1]).toBe(
      '  May contain AI-generated content: provenance-fixtures/1.0, a screen capture that may contain AI-generated content, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)',
    );
    expect(run.stdout).toContain('C2PA signals   Contains Screen Capture Which May Contain GenAI Content; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)\n');
  });

  it('a captured-media inception says captured only when the signer is trusted', async () => {
    const trusted = JSON.parse((await runCli(['check', '--json', '--trust-anchors', root, files['capture.jpg']!])).stdout);
    expect(trusted.verdict.evidence[0]).toMatchObject({ says: 'not_ai', content: 'captured with Camera App' });
    const card = (await runCli(['check', '--trust-anchors', root, files['capture.jpg']!])).stdout;
    expect(card.split('\n')[1]).toBe('  Captured with Camera App (C2PA manifest signed by trusted signer Provenance Test Signer)');
    // Without anchors the signer is only a claim: the rule before the signals (a digitalCapture).
    const untrusted = JSON.parse((await runCli(['check', '--json', files['capture.jpg']!])).stdout);
    expect(untrusted.verdict.evidence[0]).toMatchObject({ says: 'not_ai', content: 'a digitalCapture' });
  });
});

describe('the library', () => {
  it('crJson() gives the document, rubric() the output, null without a manifest', async () => {
    const { readFileSync } = await import('node:fs');
    expect(timeless(await crJson(files['generated.jpg']!, { trustAnchors: pki.rootPem }))).toEqual(timeless(await officialCrJson(readFileSync(files['generated.jpg']!), pki.rootPem)));
    expect(await crJson(files['plain.jpg']!)).toBeNull();
    const signals = await rubric(files['screen.jpg']!, 'signals');
    expect(signals).toMatchObject({ manifests: [{ localInceptions: [{ trait: 'inception:signal_screenCaptureMayContainGenAI' }] }] });
    expect(await rubric(files['plain.jpg']!, 'conformance-2.2')).toBeNull();
    await expect(rubric(files['plain.jpg']!, 'labels' as never)).rejects.toThrow(/unknown rubric "labels"/);
  });
});
