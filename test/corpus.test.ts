// The real-world corpus (../shared/corpus): `provenance check --json` on the whole folder, as a
// real subprocess, agrees with expected.json on every file. Skipped where the corpus is absent.
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_FILES, HAS_CORPUS, loadExpected, type ExpectedEntry } from './helpers/corpus.js';
import { parseLines, runBin } from './helpers/run-cli.js';

const PLANNED = ['watermark_a', 'watermark_b', 'open_content_seal'];

describe.skipIf(!HAS_CORPUS)('shared corpus', () => {
  let expected: Record<string, ExpectedEntry>;
  let lines: any[];
  let exitCode: number;

  beforeAll(async () => {
    expected = loadExpected();
    const run = await runBin(['check', '--json', CORPUS_FILES]);
    exitCode = run.code;
    lines = parseLines(run.stdout);
  });

  it('checks every file, one line each, in sorted order, exit 0', () => {
    expect(exitCode).toBe(0);
    const names = lines.map((l) => basename(l.source));
    expect(names).toEqual(readdirSync(CORPUS_FILES).sort());
    expect(new Set(names)).toEqual(new Set(Object.keys(expected)));
  });

  it.each(HAS_CORPUS ? Object.keys(loadExpected()) : [])('%s agrees with expected.json', (name) => {
    const want = expected[name]!;
    const line = lines.find((l) => basename(l.source) === name);
    expect(line, `no output line for ${name}`).toBeDefined();
    expect(line.media).toEqual({ type: want.type, bytes: want.bytes, sha256: want.sha256 });

    const byCheck = Object.fromEntries(line.matches.map((m: any) => [m.check, m]));
    const c2pa = byCheck.c2pa;
    const accepted = [want.c2pa.result, ...(want.c2pa.also_accepted ?? [])];
    expect(accepted).toContain(c2pa.result);
    if (c2pa.result === 'unavailable') expect(c2pa.reason).toMatch(/\S/);
    if (want.c2pa.result === 'found') {
      expect(c2pa.issuer ?? null).toBe(want.c2pa.issuer);
      expect(c2pa.claims.claim_generator).toBe(want.c2pa.claim_generator);
      expect(c2pa.claims.assertions).toEqual(want.c2pa.assertions);
      expect(c2pa.claims.validation.state).toBe(want.c2pa.validation_state!.toLowerCase());
      expect(c2pa.claims.signature_verified).toBe(false);
    }
    expect(byCheck.camera_reference.result).toBe(want.camera_reference.result);
    for (const id of PLANNED) expect(byCheck[id]).toMatchObject({ result: 'unavailable', confidence: 0 });
  });

  it('names the remote manifest URL of cloud.jpg instead of fetching it', () => {
    const line = lines.find((l) => basename(l.source) === 'cloud.jpg');
    const c2pa = line.matches.find((m: any) => m.check === 'c2pa');
    expect(c2pa.reason).toMatch(/^The manifest is stored remotely at https:\/\/\S+ and remote manifests are not fetched\.$/);
  });
});
