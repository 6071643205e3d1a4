// The Verify page (issue 38 item 2): the card the daemon draws says whether the signer is on
// the trust list the service uses, in the same words as the terminal and the HTML report, and a
// lookalike of OpenAI's file (same names, a home-made root) reads differently from the genuine
// one (its root among the daemon's --trust-anchors). The /v1 result keeps the hosted shape (no
// verdict); its claims carry the conforming product only for the trusted signer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLookalikes, type LookalikeSet } from '../helpers/lookalike.js';
import { signIn, webApp, type WebApp, type WebClient } from './signin-helpers.js';

let t: WebApp;
let dir: string;
let set: LookalikeSet;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-verify-trust-'));
  set = await makeLookalikes(dir);
  t = await webApp({}, { trust: { trustAnchorsPem: set.anchorPem } });
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function verify(c: WebClient, csrf: string, name: keyof LookalikeSet['file']) {
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const r = await fetch(`${t.base}/verify/detect`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie, 'x-csrf-token': csrf, 'x-file-name': `${name}.png` },
    body: set.bytes[name],
  });
  expect(r.status).toBe(200);
  return (await r.json()) as { html: string; result: { matches: { claims?: Record<string, unknown> }[] } };
}

describe('the Verify page with the daemon\'s trust anchors', () => {
  it('the genuine file reads trusted with its product; the lookalike says its names are a claim', async () => {
    const c = t.client();
    await signIn(t, c, 'trust@example.com');
    const csrf = /id="csrf" value="([^"]+)"/.exec((await c.get('/verify')).text)![1]!;
    const genuine = await verify(c, csrf, 'openai-genuine');
    const lookalike = await verify(c, csrf, 'openai-lookalike');
    expect(genuine.html).toContain('<p class="verdict verdict-generated">AI-generated: GPT-4o (C2PA manifest signed by trusted signer OpenAI OpCo, LLC)</p>');
    expect(lookalike.html).toContain(
      '<p class="verdict verdict-generated">AI-generated: GPT-4o, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)</p>',
    );
    expect(genuine.html).toContain(
      '<dt>trust</dt><dd><span class="trust-yes">trusted: the certificate is on the service&#39;s trust list (the C2PA Trust List, or an anchor its operator added)</span></dd>',
    );
    expect(genuine.html).toContain('<dt>product</dt><dd><span class="product">OpenAI Media Service by OpenAI OpCo, LLC: a conformant generator product');
    expect(lookalike.html).toContain(
      '<dt>trust</dt><dd><span class="trust-no">NOT trusted by the service: the certificate is not on its trust list, so &quot;OpenAI OpCo, LLC&quot; is a name the signer gave itself (anyone can make a certificate with any name)</span></dd>',
    );
    expect(lookalike.html).not.toContain('<dt>product</dt>');
    expect(genuine.result.matches[0]!.claims).toMatchObject({ signature_verified: true, conforming_product: { product: 'OpenAI Media Service' } });
    expect(lookalike.result.matches[0]!.claims).not.toHaveProperty('conforming_product');
    expect(genuine.result).not.toHaveProperty('verdict');
  });
});
