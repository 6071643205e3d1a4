// The extended key usages c2pa-rs accepts for a claim signer (media/c2pa-wasm.ts
// C2PA_SIGNING_EKUS). OpenAI's certificates of 2026 carry c2pa-kp-claimSigning
// (1.3.6.1.4.1.62558.2.1) and documentSigning, not emailProtection; the wasm reader, unless told
// the accepted EKUs, refused them ("certificate missing required EKU") and a genuine gpt-image
// picture on the C2PA Trust List read INVALID. Here a test PKI reproduces that certificate: on
// the list it reads trusted with its conforming product named; a certificate with an EKU C2PA
// does not accept (codeSigning) still reads signingCredential.invalid. Real certificates
// (openssl), real c2pa-rs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../src/engine/detect.js';
import type { Match, TrustListFile } from '../src/types.js';
import { signC2pa, simpleManifest, tinyJpeg } from './fixtures/make.js';
import { makeSplitPki, type SplitPki } from './helpers/trust-pki.js';

let dir: string;
let claimSigning: SplitPki;
let codeSigning: SplitPki;
let claimSigned: Uint8Array;
let codeSigned: Uint8Array;

const c2paOf = (matches: Match[]) => matches.find((m) => m.check === 'c2pa')!;
const listOf = (name: string, pem: string): TrustListFile[] => {
  const file = join(dir, name);
  writeFileSync(file, pem);
  return [{ list: 'c2pa-trust-list', file, origin: 'bundled', date: '2026-08-13T00:15:44Z' }];
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-ekus-'));
  // The subject OpenAI's product record on the Conforming Products List names (C=US, O, CN).
  claimSigning = makeSplitPki(join(dir, 'claim'), 3600, { org: 'OpenAI OpCo, LLC', cn: 'OpenAI Media Service', eku: '1.3.6.1.4.1.62558.2.1, 1.3.6.1.5.5.7.3.36' });
  codeSigning = makeSplitPki(join(dir, 'code'), 3600, { eku: 'codeSigning' });
  claimSigned = await signC2pa(tinyJpeg({ seed: 741 }), 'image/jpeg', simpleManifest('claim.jpg', 'image/jpeg'), claimSigning.signer);
  // c2pa-rs refuses to sign with it unless told not to check what it signed.
  codeSigned = await signC2pa(tinyJpeg({ seed: 742 }), 'image/jpeg', simpleManifest('code.jpg', 'image/jpeg'), codeSigning.signer, { unchecked: true });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the EKUs a claim signer may carry', () => {
  it('c2pa-kp-claimSigning and documentSigning, chained to the list: trusted, its conforming product named', async () => {
    const m = c2paOf((await detect(claimSigned, { checks: ['c2pa'], trustLists: listOf('claim.pem', claimSigning.signerRootPem) })).matches);
    expect(m.claims?.validation).toEqual({ state: 'trusted', codes: [] });
    expect(m.claims?.signature_verified).toBe(true);
    expect(m.claims?.conforming_product).toMatchObject({ applicant: 'OpenAI OpCo, LLC', product: 'OpenAI Media Service', status: 'conformant' });
  });

  it('the same certificate with no anchors is untrusted, never invalid: its EKUs are accepted', async () => {
    const m = c2paOf((await detect(claimSigned, { checks: ['c2pa'] })).matches);
    expect(m.claims?.validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
  });

  it('an EKU C2PA does not accept (codeSigning) still makes the certificate invalid, on the list or not', async () => {
    const m = c2paOf((await detect(codeSigned, { checks: ['c2pa'], trustLists: listOf('code.pem', codeSigning.signerRootPem) })).matches);
    expect(m.claims?.validation?.state).toBe('invalid');
    expect(m.claims?.validation?.codes).toContain('signingCredential.invalid');
    expect(m.claims?.signature_verified).toBe(false);
    expect(m.claims?.conforming_product).toBeUndefined();
  });
});
