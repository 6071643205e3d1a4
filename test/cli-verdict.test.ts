// The verdict in the CLI (issue 31): on each `check --json` line (after the /v1 result and its
// hints, also when the scan cache answers), counted by --summary, and gated by
// `--fail-on verdict=...` with exit 4 as the other gates. Real files through the built CLI.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg, tinyPng } from './fixtures/make.js';
import { jpegWith, pngWithText, tEXt, tiffBlock, userComment, xmpPacket } from './helpers/generator-fixtures.js';
import { parseLines, runBin, runCli } from './helpers/run-cli.js';

// An AUTOMATIC1111 `parameters` record, as its own processing.py writes it (see generator-metadata.test.ts).
const A1111 = 'a red fox in the snow\nNegative prompt: blurry\nSteps: 30, Sampler: Euler a, CFG scale: 7, Seed: 3141592653, Size: 512x768, Model: dreamshaper_8, Version: v1.10.1';

let dir: string;
let folder: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-verdict-cli-'));
  folder = join(dir, 'mixed');
  mkdirSync(folder);
  writeFileSync(join(folder, 'a-generated.png'), pngWithText(tEXt('parameters', A1111)));
  writeFileSync(join(folder, 'b-camera.jpg'), tinyJpeg({ seed: 3, exif: exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) }));
  writeFileSync(join(folder, 'c-plain.png'), tinyPng({ seed: 4 }));
  // The scan cache keeps no file changed in the last seconds (its time could still move): an hour ago.
  const past = new Date(Date.now() - 3_600_000);
  for (const name of ['a-generated.png', 'b-camera.jpg', 'c-plain.png']) utimesSync(join(folder, name), past, past);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check --json: the verdict on every line', () => {
  it('after the /v1 result: generated with its maker and evidence, none_found for the others', async () => {
    const run = await runBin(['check', '--json', folder]);
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    expect(lines.map((l) => [l.source.split('/').pop(), l.verdict.ai])).toEqual([
      ['a-generated.png', 'generated'],
      ['b-camera.jpg', 'none_found'],
      ['c-plain.png', 'none_found'],
    ]);
    expect(lines[0].verdict).toEqual({
      ai: 'generated',
      maker: 'AUTOMATIC1111',
      evidence: [{ kind: 'unsigned_record', check: 'generator_metadata', says: 'generated', maker: 'AUTOMATIC1111', detail: 'unsigned record in the file' }],
    });
    expect(lines[1].verdict.evidence).toEqual([expect.objectContaining({ check: 'camera_reference', says: 'not_ai' })]);
    // The verdict is added last; the /v1 result's own fields come first, unchanged.
    expect(Object.keys(lines[0])).toEqual(['source', 'id', 'media', 'matches', 'checks_run', 'duration_ms', 'verdict']);
  });

  it('a scan-cache hit (--incremental) writes the same verdict as a fresh check', async () => {
    const env = { PROVENANCE_CACHE_DIR: join(dir, 'cache') };
    const first = parseLines((await runBin(['check', '--json', '--incremental', folder], { env })).stdout);
    const again = await runBin(['check', '--json', '--incremental', '--summary', folder], { env });
    expect(JSON.parse(again.stderr.trim().split('\n').pop()!).from_cache).toBe(3);
    expect(parseLines(again.stdout).map((l) => l.verdict)).toEqual(first.map((l) => l.verdict));
  });
});

describe('--summary counts the verdicts', () => {
  it('files by verdict, and how many had checks that disagree', async () => {
    const run = await runCli(['check', '--json', '--summary', folder]);
    const summary = JSON.parse(run.stderr.trim().split('\n').pop()!);
    expect(summary.verdicts).toEqual({ generated: 1, contains: 0, may_contain: 0, none_found: 2, disagreements: 0 });
  });

  it('a file whose camera EXIF and generator record disagree is counted as such', async () => {
    // Apple's Make and maker note (camera_reference) and an A1111 record in the Exif IFD's
    // UserComment (generator_metadata) in one JPEG.
    const tiff = tiffBlock({
      ifd0: [{ tag: 0x010f, type: 2, value: 'Apple' }],
      exif: [
        { tag: 0x927c, type: 7, value: APPLE_MAKER_NOTE },
        { tag: 0x9286, type: 7, value: userComment(A1111, 'ascii') },
      ],
    });
    const file = join(dir, 'both.jpg');
    writeFileSync(file, jpegWith({ tiff }));
    const run = await runCli(['check', '--json', '--summary', file]);
    const [line] = parseLines(run.stdout);
    expect(line.verdict.ai).toBe('generated');
    expect(line.verdict.disagreement).toMatch(/^camera_reference \(camera EXIF: .*\) says not AI-made, but generator_metadata \(unsigned record in the file: AUTOMATIC1111\) says AI-made$/);
    expect(JSON.parse(run.stderr.trim().split('\n').pop()!).verdicts).toEqual({ generated: 1, contains: 0, may_contain: 0, none_found: 0, disagreements: 1 });
    // The card says it under the verdict.
    const card = (await runCli(['check', file])).stdout.split('\n');
    expect(card[1]).toBe('  AI-generated: AUTOMATIC1111 (unsigned record in the file)');
    expect(card[2]).toMatch(/^ {2}Checks disagree: camera_reference /);
  });
});

describe('--fail-on verdict=...', () => {
  it('verdict=generated: exit 4 when a file is AI-generated, every input still checked', async () => {
    const run = await runBin(['check', '--json', '--summary', '--fail-on', 'verdict=generated', folder]);
    expect(run.code).toBe(4);
    expect(parseLines(run.stdout)).toHaveLength(3);
    expect(JSON.parse(run.stderr.trim().split('\n').pop()!).failed_on).toBe(1);
  });

  it('exit 0 when no file has the verdict', async () => {
    expect((await runBin(['check', '--fail-on', 'verdict=generated', join(folder, 'b-camera.jpg'), join(folder, 'c-plain.png')])).code).toBe(0);
    expect((await runBin(['check', '--fail-on', 'verdict=contains', folder])).code).toBe(0);
  });

  it('verdict=none_found gates the other way: fail unless every file carries an AI marker', async () => {
    expect((await runCli(['check', '--fail-on', 'verdict=none_found', join(folder, 'a-generated.png')])).code).toBe(0);
    expect((await runCli(['check', '--fail-on', 'verdict=none_found', folder])).code).toBe(4);
  });

  it('is never idle: a verdict is made from whichever checks run', async () => {
    const run = await runCli(['check', '--fail-on', 'verdict=generated', '--checks', 'c2pa', folder]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
  });

  it.each([
    ['verdict=maybe', /unknown verdict "maybe"\. Valid verdicts: generated, contains, may_contain, none_found\./],
    ['verdicts=generated', /unknown check "verdicts"\. Valid: .*, or verdict\./],
  ])('--fail-on %s is a usage error', async (value, message) => {
    const run = await runCli(['check', '--fail-on', value, folder]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

// Issue 40, item 20: Imagen on Vertex AI's XMP (IPTC source type and credit, no manifest).
describe('an XMP that states AI origin, without a manifest', () => {
  const ns = { Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/', photoshop: 'http://ns.adobe.com/photoshop/1.0/' };
  const file = (name: string, term: string) => {
    const xmp = xmpPacket(ns, `Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/${term}" photoshop:Credit="AI-Generated with Google"`);
    const path = join(dir, name);
    writeFileSync(path, jpegWith({ xmp }));
    return path;
  };

  it('every check: generated (or contains for the composite type) by Google AI, an unsigned record; the card says it first', async () => {
    const generated = file('vertex.jpg', 'trainedAlgorithmicMedia');
    const composite = file('vertex-composite.jpg', 'compositeWithTrainedAlgorithmicMedia');
    const lines = parseLines((await runBin(['check', '--json', generated, composite])).stdout);
    expect(lines.map((l) => l.verdict)).toEqual([
      { ai: 'generated', maker: 'Google AI', evidence: [{ kind: 'unsigned_record', check: 'generator_metadata', says: 'generated', maker: 'Google AI', detail: 'unsigned record in the file' }] },
      {
        ai: 'contains',
        maker: 'Google AI',
        evidence: [{ kind: 'unsigned_record', check: 'generator_metadata', says: 'contains', maker: 'Google AI', content: 'composite with AI-generated parts', detail: 'unsigned record in the file' }],
      },
    ]);
    const card = await runBin(['check', generated]);
    expect(card.stdout.split('\n')[1]).toBe('  AI-generated: Google AI (unsigned record in the file)');
    expect((await runBin(['check', '--fail-on', 'verdict=contains', composite])).code).toBe(4);
  });

  it('--catalogue hosted (no generator_metadata): the XMP hint makes the verdict, no longer "No AI marker found"', async () => {
    const generated = file('vertex-hosted.jpg', 'trainedAlgorithmicMedia');
    const [line] = parseLines((await runBin(['check', '--json', '--catalogue', 'hosted', generated])).stdout);
    expect(line.checks_run).not.toContain('generator_metadata');
    expect(line.verdict).toEqual({ ai: 'generated', evidence: [{ kind: 'unsigned_record', check: 'generator_metadata', says: 'generated', detail: 'unsigned IPTC source type in the XMP' }] });
    const card = await runBin(['check', '--catalogue', 'hosted', generated]);
    expect(card.stdout.split('\n')[1]).toBe('  AI-generated (unsigned IPTC source type in the XMP)');
    const summary = await runBin(['check', '--catalogue', 'hosted', '--fail-on', 'verdict=generated', generated]);
    expect(summary.code).toBe(4);
  });
});
