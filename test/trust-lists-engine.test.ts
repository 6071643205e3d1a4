// The C2PA lists through the engine (issue 38, item 1): a check given the lists as files reads
// them only when it finds a manifest; a signer that chains to the Trust List reads `trusted`, and
// a time stamp from an authority on the TSA list keeps a certificate that expired after signing
// valid (without it, c2pa-rs judges the certificate at today's date: signingCredential.expired,
// as real Gemini pictures of 2025 read). The c2pa details say which anchors placed a trusted
// chain. Real certificates and time stamps (openssl), real c2pa-rs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { c2paDetails } from '../src/detectors/c2pa-manifest.js';
import { detect } from '../src/engine/detect.js';
import type { Match, TrustListFile } from '../src/types.js';
import { makePki, signC2pa, simpleManifest, tinyJpeg, type Pki } from './fixtures/make.js';
import { makeSplitPki, type SplitPki } from './helpers/trust-pki.js';

let dir: string;
let split: SplitPki;
let other: Pki;
let expiredSince: Uint8Array;
let untimed: Uint8Array;
const LEAF_SECONDS = 10;

const list = (name: string, pem: string, kind: TrustListFile['list']): TrustListFile => {
  const file = join(dir, name);
  writeFileSync(file, pem);
  return { list: kind, file, origin: 'bundled', date: '2026-08-13T00:15:44Z' };
};
const c2paOf = (matches: Match[]) => matches.find((m) => m.check === 'c2pa')!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-trust-lists-'));
  split = makeSplitPki(join(dir, 'split'), LEAF_SECONDS);
  other = makePki(join(dir, 'other'));
  expiredSince = await signC2pa(tinyJpeg({ seed: 381 }), 'image/jpeg', simpleManifest('stamped.jpg', 'image/jpeg'), split.signer, { signedAt: true });
  untimed = await signC2pa(tinyJpeg({ seed: 382 }), 'image/jpeg', simpleManifest('untimed.jpg', 'image/jpeg'), other);
  // Checked once the signer's certificate has expired: only a trusted time stamp vouches that it
  // was valid when it signed.
  const wait = split.leafNotAfter.getTime() + 1500 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the C2PA lists as files', () => {
  it('a time stamp from an authority on the TSA list keeps a certificate that expired since signing valid: trusted', async () => {
    expect(Date.now()).toBeGreaterThan(split.leafNotAfter.getTime());
    const lists = [list('trust.pem', split.signerRootPem, 'c2pa-trust-list'), list('tsa.pem', split.tsaRootPem, 'c2pa-tsa-trust-list')];
    const m = c2paOf((await detect(expiredSince, { checks: ['c2pa'], trustLists: lists })).matches);
    expect(m.claims?.validation).toEqual({ state: 'trusted', codes: [] });
    expect(m.claims?.signature_verified).toBe(true);
    expect(c2paDetails(m.claims)?.trust).toEqual({ anchors: 'c2pa-lists', trustedBy: 'c2pa-trust-list', lists });
  });

  it('without the TSA on the list the time stamp is not trusted: the certificate is judged today, expired', async () => {
    const lists = [list('trust-only.pem', split.signerRootPem, 'c2pa-trust-list'), list('tsa-other.pem', other.rootPem, 'c2pa-tsa-trust-list')];
    const m = c2paOf((await detect(expiredSince, { checks: ['c2pa'], trustLists: lists })).matches);
    expect(m.claims?.validation?.state).toBe('invalid');
    expect(m.claims?.validation?.codes).toContain('signingCredential.expired');
    expect(m.claims?.signature_verified).toBe(false);
    expect(c2paDetails(m.claims)?.trust).toEqual({ anchors: 'c2pa-lists', lists });
  });

  it('a signer on neither list is valid but untrusted, with the lists named as what it was checked against', async () => {
    const lists = [list('t1.pem', split.signerRootPem, 'c2pa-trust-list'), list('t2.pem', split.tsaRootPem, 'c2pa-tsa-trust-list')];
    const m = c2paOf((await detect(untimed, { checks: ['c2pa'], trustLists: lists })).matches);
    expect(m.claims?.validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
    expect(m.claims?.signature_verified).toBe(false);
    expect(c2paDetails(m.claims)?.trust).toEqual({ anchors: 'c2pa-lists', lists });
  });

  it('anchors added by hand beside the lists: a chain that ends at one of them is placed there, not on the C2PA list', async () => {
    const lists = [list('t3.pem', split.signerRootPem, 'c2pa-trust-list'), list('t4.pem', split.tsaRootPem, 'c2pa-tsa-trust-list')];
    const byHand = c2paOf((await detect(untimed, { checks: ['c2pa'], trustLists: lists, trustAnchorsPem: other.rootPem })).matches);
    expect(byHand.claims?.validation?.state).toBe('trusted');
    expect(c2paDetails(byHand.claims)?.trust.trustedBy).toBe('own');
    const onList = c2paOf((await detect(expiredSince, { checks: ['c2pa'], trustLists: lists, trustAnchorsPem: other.rootPem })).matches);
    expect(onList.claims?.validation?.state).toBe('trusted');
    expect(c2paDetails(onList.claims)?.trust.trustedBy).toBe('c2pa-trust-list');
  });

  it('anchors given alone (--trust-anchors) replace the lists', async () => {
    const m = c2paOf((await detect(untimed, { checks: ['c2pa'], trustAnchorsPem: other.rootPem })).matches);
    expect(m.claims?.signature_verified).toBe(true);
    expect(c2paDetails(m.claims)?.trust).toEqual({ anchors: 'own', trustedBy: 'own' });
    const none = c2paOf((await detect(untimed, { checks: ['c2pa'] })).matches);
    expect(c2paDetails(none.claims)?.trust).toEqual({ anchors: 'none' });
  });

  it('the lists are read only when a manifest is found: a file without one never opens them', async () => {
    const missing: TrustListFile[] = [{ list: 'c2pa-trust-list', file: join(dir, 'no-such-list.pem'), origin: 'updated', date: '2026-12-01T00:00:00Z' }];
    const plain = await detect(tinyJpeg({ seed: 383 }), { checks: ['c2pa'], trustLists: missing });
    expect(c2paOf(plain.matches).result).toBe('not_found');
    const signed = c2paOf((await detect(untimed, { checks: ['c2pa'], trustLists: missing })).matches);
    expect(signed.result).toBe('unavailable');
    expect(signed.reason).toContain(`the trust list ${join(dir, 'no-such-list.pem')} cannot be read`);
  });

  it('a list replaced on disk (as `trust update` does, by a rename) is read again by a running process', async () => {
    const file = join(dir, 'changing.pem');
    writeFileSync(file, other.rootPem);
    const lists: TrustListFile[] = [{ list: 'c2pa-trust-list', file, origin: 'updated', date: '2026-12-01T00:00:00Z' }];
    expect(c2paOf((await detect(untimed, { checks: ['c2pa'], trustLists: lists })).matches).claims?.validation?.state).toBe('trusted');
    writeFileSync(`${file}.new`, split.signerRootPem);
    const { renameSync } = await import('node:fs');
    renameSync(`${file}.new`, file);
    expect(c2paOf((await detect(untimed, { checks: ['c2pa'], trustLists: lists })).matches).claims?.validation?.state).toBe('valid');
  });
});
