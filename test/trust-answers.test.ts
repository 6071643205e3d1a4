// Trust in every answer (issue 38 items 2 and 3), through the built CLI as users run it
// (bin/provenance.js): a picture signed by a home-made certificate that copies OpenAI's or
// Google's names reads untrusted on the card, in the JSON ("trusted": false in the verdict's
// evidence) and in the HTML report, and its verdict line differs from the genuine file's; the
// genuine file (its root passed with --trust-anchors) reads trusted, with its conforming product
// (the bundled C2PA Conforming Products List) named in the claims and on the card.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLookalikes, type LookalikeSet } from './helpers/lookalike.js';
import { parseLines, runBin } from './helpers/run-cli.js';

let dir: string;
let set: LookalikeSet;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-trust-answers-'));
  set = await makeLookalikes(join(dir, 'files'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every run with its own empty config folder: only --trust-anchors decides. */
const env = () => ({ PROVENANCE_CONFIG_DIR: join(dir, 'config') });

async function jsonOf(name: keyof LookalikeSet['file']) {
  const run = await runBin(['check', '--json', '--trust-anchors', set.anchorFile, set.file[name]], { env: env() });
  expect(run.stderr).toBe('');
  const [line] = parseLines(run.stdout);
  return line;
}

async function cardOf(name: keyof LookalikeSet['file']): Promise<string> {
  const run = await runBin(['check', '--trust-anchors', set.anchorFile, set.file[name]], { env: env() });
  expect(run.code).toBe(0);
  return run.stdout;
}

describe('the JSON line', () => {
  it("OpenAI's own file: trusted evidence, the maker as fact, the conforming product in the claims", async () => {
    const line = await jsonOf('openai-genuine');
    const c2pa = line.matches.find((m: { check: string }) => m.check === 'c2pa');
    expect(c2pa.claims).toMatchObject({
      signature_verified: true,
      validation: { state: 'trusted' },
      conforming_product: { applicant: 'OpenAI OpCo, LLC', product: 'OpenAI Media Service', max_assurance_level: 1, status: 'conformant' },
    });
    expect(line.verdict).toEqual({
      ai: 'generated',
      maker: 'GPT-4o',
      evidence: [{ kind: 'signed_manifest', check: 'c2pa', says: 'generated', maker: 'GPT-4o', detail: 'C2PA manifest signed by trusted signer OpenAI OpCo, LLC', trusted: true }],
    });
  });

  it('the lookalike: trusted false, no conforming product, the maker only claimed', async () => {
    const line = await jsonOf('openai-lookalike');
    const c2pa = line.matches.find((m: { check: string }) => m.check === 'c2pa');
    expect(c2pa.issuer).toBe('OpenAI OpCo, LLC');
    expect(c2pa.claims).toMatchObject({ signature_verified: false, validation: { state: 'valid', codes: ['signingCredential.untrusted'] } });
    expect(c2pa.claims).not.toHaveProperty('conforming_product');
    expect(line.verdict).toEqual({
      ai: 'generated',
      claimed_maker: 'GPT-4o',
      evidence: [
        { kind: 'signed_manifest', check: 'c2pa', says: 'generated', maker: 'GPT-4o', detail: 'signed C2PA manifest whose signer is not on the trust list, so its names are unverified', trusted: false },
      ],
    });
  });

  it('a Pixel capture: the genuine one names Pixel Camera as maker and product; the lookalike only claims it', async () => {
    const genuine = await jsonOf('pixel-genuine');
    expect(genuine.matches[0].claims.conforming_product).toEqual({ applicant: 'Google LLC', product: 'Pixel Camera', max_assurance_level: 2, status: 'conformant' });
    expect(genuine.verdict).toMatchObject({ ai: 'none_found', maker: 'Pixel Camera', evidence: [{ says: 'not_ai', trusted: true }] });
    const lookalike = await jsonOf('pixel-lookalike');
    expect(lookalike.matches[0].claims).not.toHaveProperty('conforming_product');
    expect(lookalike.verdict).toMatchObject({ ai: 'none_found', claimed_maker: 'Pixel Camera', evidence: [{ says: 'not_ai', trusted: false }] });
    expect(lookalike.verdict).not.toHaveProperty('maker');
  });

  it('without the anchor, the genuine file reads as the lookalike does: trust comes from the list, not the names', async () => {
    const run = await runBin(['check', '--json', set.file['openai-genuine']], { env: env() });
    const [line] = parseLines(run.stdout);
    expect(line.verdict.evidence[0].trusted).toBe(false);
    expect(line.matches[0].claims).not.toHaveProperty('conforming_product');
  });
});

describe('the card', () => {
  it("the verdict lines differ, and only the genuine file's signer is named as fact", async () => {
    const genuine = (await cardOf('openai-genuine')).split('\n');
    const lookalike = (await cardOf('openai-lookalike')).split('\n');
    expect(genuine[1]).toBe('  AI-generated: GPT-4o (C2PA manifest signed by trusted signer OpenAI OpCo, LLC)');
    expect(lookalike[1]).toBe('  AI-generated: GPT-4o, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)');
    const text = (lines: string[]) => lines.join('\n');
    expect(text(genuine)).toMatch(/c2pa\s+found: signed by OpenAI OpCo, LLC \(trusted\), made with ChatGPT/);
    expect(text(genuine)).toContain('trust          trusted: the certificate is on the trust list in use (the C2PA Trust List, or an anchor you added)\n');
    expect(text(genuine)).toContain('product        OpenAI Media Service by OpenAI OpCo, LLC: a conformant generator product on the C2PA Conforming Products List (assurance level 1)\n');
    expect(text(lookalike)).toMatch(/c2pa\s+found: signer claims to be OpenAI OpCo, LLC \(unverified\), made with ChatGPT/);
    expect(text(lookalike)).toContain(
      'trust          NOT trusted: the certificate is not on the trust list, so "OpenAI OpCo, LLC" is a name the signer gave itself (anyone can make a certificate with any name)\n',
    );
    expect(text(lookalike)).not.toContain('product  ');
    expect(text(lookalike)).not.toContain('signed by OpenAI OpCo, LLC (trusted)');
  });

  it('a Pixel capture and its lookalike', async () => {
    const genuine = (await cardOf('pixel-genuine')).split('\n');
    const lookalike = (await cardOf('pixel-lookalike')).split('\n');
    // A trusted capture manifest's signals say captured media (docs/C2PA.md "Signals and the verdict").
    expect(genuine[1]).toBe('  Captured with Pixel Camera (C2PA manifest signed by trusted signer Google LLC)');
    expect(lookalike[1]).toBe(
      '  No AI marker found; captured, as claimed: Pixel Camera, a computationalCapture (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)',
    );
    expect(genuine.join('\n')).toContain('product        Pixel Camera by Google LLC: a conformant generator product on the C2PA Conforming Products List (assurance level 2)');
    expect(lookalike.join('\n')).toContain('NOT trusted: the certificate is not on the trust list, so "Google LLC" is a name the signer gave itself');
  });
});

describe('the HTML report', () => {
  it('says trusted or not in the same words, and the verdict lines differ', async () => {
    const out = join(dir, 'report.html');
    const run = await runBin(['check', '--json', '--trust-anchors', set.anchorFile, '--html', out, set.file['openai-genuine'], set.file['openai-lookalike']], { env: env() });
    expect(run.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<p class="verdict verdict-generated">AI-generated: GPT-4o (C2PA manifest signed by trusted signer OpenAI OpCo, LLC)</p>');
    expect(html).toContain(
      '<p class="verdict verdict-generated">AI-generated: GPT-4o, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)</p>',
    );
    expect(html).toContain('found</span> signed by <strong>OpenAI OpCo, LLC</strong> (trusted), made with ChatGPT');
    expect(html).toContain('found</span> signer claims to be <strong>OpenAI OpCo, LLC</strong> (unverified), made with ChatGPT');
    expect(html).toContain('<dt>trust</dt><dd><span class="trust-yes">trusted: the certificate is on the trust list in use (the C2PA Trust List, or an anchor you added)</span></dd>');
    expect(html).toContain(
      '<dt>trust</dt><dd><span class="trust-no">NOT trusted: the certificate is not on the trust list, so &quot;OpenAI OpCo, LLC&quot; is a name the signer gave itself (anyone can make a certificate with any name)</span></dd>',
    );
    expect(html).toContain('<dt>product</dt><dd><span class="product">OpenAI Media Service by OpenAI OpCo, LLC: a conformant generator product on the C2PA Conforming Products List (assurance level 1)</span></dd>');
    expect(html.match(/<dt>product<\/dt>/g)).toHaveLength(1);
  });
});
