// Issue 38's acceptance on real signed files, kept out of the repository (docs/C2PA.md "Real
// signed files"): skipped unless PROVENANCE_HELDOUT_C2PA names a folder. Its `expectations.tsv`
// lists, one file a line, tab-separated:
//
//   file name (in the folder)   trusted | untrusted   the conforming product's name, or -
//
// ('#' starts a comment line). Each file goes through the built CLI as a new user runs it: a
// fresh config folder, no flags. A `trusted` file must read trusted (the verdict's evidence
// `"trusted": true`, the card's trust row "trusted:"); an `untrusted` one anything else; the
// product must be the one the claims and the card name (- for none).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLines, runBin } from './helpers/run-cli.js';

const FOLDER = process.env.PROVENANCE_HELDOUT_C2PA;

interface Expectation {
  file: string;
  trusted: boolean;
  product?: string;
}

/** The folder's expectations file, parsed; a malformed line fails the run rather than being skipped. */
function expectations(folder: string): Expectation[] {
  const rows: Expectation[] = [];
  for (const [i, raw] of readFileSync(join(folder, 'expectations.tsv'), 'utf8').split('\n').entries()) {
    const line = raw.trimEnd();
    if (!line || line.startsWith('#')) continue;
    const [file, trust, product, ...rest] = line.split('\t');
    if (!file || !product || rest.length || (trust !== 'trusted' && trust !== 'untrusted')) {
      throw new Error(`expectations.tsv line ${i + 1}: want "file<TAB>trusted|untrusted<TAB>product or -", got ${JSON.stringify(raw)}`);
    }
    rows.push({ file, trusted: trust === 'trusted', ...(product === '-' ? {} : { product }) });
  }
  return rows;
}

describe.skipIf(!FOLDER)('real signed files held out of the repository (PROVENANCE_HELDOUT_C2PA)', () => {
  const rows = FOLDER ? expectations(FOLDER) : [];

  it('the expectations file lists files', () => {
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(rows)('$file', async ({ file, trusted, product }) => {
    const config = mkdtempSync(join(tmpdir(), 'prov-heldout-config-'));
    try {
      const path = join(FOLDER!, file);
      const env = { PROVENANCE_CONFIG_DIR: config };
      const json = await runBin(['check', '--json', path], { env });
      const [line] = parseLines(json.stdout);
      const c2pa = line.matches.find((m: { check: string }) => m.check === 'c2pa');
      expect(c2pa?.result, 'a C2PA manifest is found').toBe('found');
      expect(c2pa.claims.validation.state === 'trusted', `trusted (codes: ${c2pa.claims.validation.codes.join(', ') || 'none'})`).toBe(trusted);
      expect(c2pa.claims.conforming_product?.product).toBe(product);
      const evidence = line.verdict.evidence.find((e: { check: string }) => e.check === 'c2pa');
      if (trusted) expect(evidence).toMatchObject({ kind: 'signed_manifest', trusted: true });
      else expect(evidence?.trusted).not.toBe(true);

      const card = await runBin(['check', path], { env });
      expect(card.code).toBe(0);
      const rowOf = (name: string) => card.stdout.split('\n').find((l) => l.trimStart().startsWith(`${name} `))?.trim();
      expect(rowOf('trust')).toMatch(trusted ? /^trust\s+trusted:/ : /^trust\s+not trusted:/i);
      if (product) expect(rowOf('product')).toContain(`${product} by ${c2pa.claims.conforming_product.applicant}`);
      else expect(rowOf('product')).toBeUndefined();
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });
});
