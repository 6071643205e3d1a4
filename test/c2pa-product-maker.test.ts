// Where a manifest names no software agent, the verdict names the conforming product that signed
// it. Google's Gemini and Imagen pictures are signed so: their actions name no agent and their
// claim generator is "Google C2PA Core Generator Library" with build numbers. Here a picture
// signed as they are (the subject Google's record on the Conforming Products List names, OU
// included), once under a root passed as an anchor and once under a home-made root: the first
// reads "AI-generated: Google Media Processing Services", the second keeps the claim generator,
// "as claimed" (no product is named for a signer that is not trusted). Through the built CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePki, signC2pa, tinyPng } from './fixtures/make.js';
import { googleManifest } from './helpers/lookalike.js';
import { parseLines, runBin } from './helpers/run-cli.js';

const GOOGLE_LEAF = '/C=US/O=Google LLC/OU=Google System 60032/CN=Google Media Processing Services';
const GENERATOR = 'Google C2PA Core Generator Library/851316892:851316892';

let dir: string;
let anchors: string;
const file: Record<'genuine' | 'lookalike', string> = { genuine: '', lookalike: '' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-product-maker-'));
  const root = '/C=US/O=Provenance Test Trust List/CN=trusted test root';
  const genuine = makePki(join(dir, 'genuine'), { leaf: GOOGLE_LEAF, root });
  const home = makePki(join(dir, 'home'), { leaf: GOOGLE_LEAF, root });
  for (const [name, pki] of [['genuine', genuine], ['lookalike', home]] as const) {
    file[name] = join(dir, `${name}.png`);
    writeFileSync(file[name], await signC2pa(tinyPng({ seed: 743 }), 'image/png', googleManifest(), pki, { signedAt: true }));
  }
  anchors = join(dir, 'anchors.pem');
  writeFileSync(anchors, genuine.rootPem);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runBin(['check', '--trust-anchors', anchors, ...args], { env: { PROVENANCE_CONFIG_DIR: join(dir, 'config') } });

describe('the maker of a manifest that names no software agent', () => {
  it('a trusted conforming product is the maker: in the JSON and on the card', async () => {
    const [line] = parseLines((await run(['--json', file.genuine])).stdout);
    expect(line.matches.find((m: { check: string }) => m.check === 'c2pa').claims.conforming_product).toMatchObject({ applicant: 'Google LLC', product: 'Google Media Processing Services' });
    expect(line.verdict).toMatchObject({ ai: 'generated', maker: 'Google Media Processing Services', evidence: [{ kind: 'signed_manifest', trusted: true }] });
    const card = (await run([file.genuine])).stdout.split('\n');
    expect(card[1]).toBe('  AI-generated: Google Media Processing Services (C2PA manifest signed by trusted signer Google LLC)');
  });

  it('an untrusted signer with the same names: no product, the claim generator "as claimed"', async () => {
    const [line] = parseLines((await run(['--json', file.lookalike])).stdout);
    expect(line.matches.find((m: { check: string }) => m.check === 'c2pa').claims).not.toHaveProperty('conforming_product');
    expect(line.verdict).toMatchObject({ ai: 'generated', claimed_maker: GENERATOR });
    const card = (await run([file.lookalike])).stdout.split('\n');
    expect(card[1]).toBe(`  AI-generated: ${GENERATOR}, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)`);
  });
});
