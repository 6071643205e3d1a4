// Test PKIs for the C2PA lists: a claim signer under one root and a time-stamping authority under
// another, as the C2PA Trust List and TSA Trust List keep them apart, and a signer certificate
// that expires seconds after it signs (`openssl ca -enddate` sets it to the second), so that a
// check made after that reads a credential whose certificate has expired since it signed.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { certSections, makeEcKey, openssl, pemToDer, writePkcs8, type Pki } from '../fixtures/make.js';

// `openssl ca` (not `x509 -req`) sets a certificate's end to the second; it wants a CA section
// with its database and serial files beside the extension sections every test PKI shares.
const CA_SECTIONS = `
[ca]
default_ca = ca_default

[ca_default]
dir = .
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = policy_any
copy_extensions = none
unique_subject = no

[policy_any]
countryName = optional
organizationName = optional
commonName = supplied
`;

export interface SplitPki {
  /** Signs with the short-lived leaf (x5chain: the leaf alone); its time stamps come from the TSA. */
  signer: Pki;
  /** The claim signer's root: what a test's C2PA Trust List holds. */
  signerRootPem: string;
  /** The TSA's root: what a test's TSA Trust List holds. */
  tsaRootPem: string;
  /** When the signer's certificate stops being valid. */
  leafNotAfter: Date;
}

function utcTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/**
 * A signer root and a leaf valid from a minute ago until `leafSeconds` from now, and a TSA root
 * with its TSA certificate, in `dir`. The Pki it gives signs with fixtures/make.ts (signC2pa with
 * `signedAt`): makeTimeStamp reads tsa.pem, tsa.pk8 and intermediate.pem (here the TSA's root,
 * carried in the token) from the same folder.
 */
export function makeSplitPki(dir: string, leafSeconds: number, names: { org?: string; cn?: string; eku?: string } = {}): SplitPki {
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]) => openssl(dir, args);
  // The leaf's EKUs as openssl writes them: emailProtection and documentSigning unless given
  // (OpenAI's certificates of 2026 carry c2pa-kp-claimSigning, 1.3.6.1.4.1.62558.2.1, instead).
  writeFileSync(join(dir, 'ext.cnf'), CA_SECTIONS + certSections(names.eku));
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '4001\n');
  for (const n of ['signer-root', 'leaf', 'tsa-root', 'tsa']) makeEcKey(dir, n);
  for (const [n, subj] of [
    ['signer-root', '/C=US/O=Provenance Split Test/CN=split signer root'],
    ['tsa-root', '/C=US/O=Provenance Split Test/CN=split tsa root'],
  ] as const) {
    run(['req', '-new', '-x509', '-sha256', '-days', '30', '-key', `${n}.key`, '-out', `${n}.pem`, '-subj', subj, '-config', 'ext.cnf', '-extensions', 'root']);
  }
  const now = Date.now();
  const leafNotAfter = new Date(now + leafSeconds * 1000);
  run(['req', '-new', '-sha256', '-key', 'leaf.key', '-subj', `/C=US/O=${names.org ?? 'Provenance Split Signer'}/CN=${names.cn ?? 'split leaf'}`, '-out', 'leaf.csr']);
  run([
    'ca', '-batch', '-config', 'ext.cnf', '-extensions', 'leaf', '-cert', 'signer-root.pem', '-keyfile', 'signer-root.key',
    '-startdate', utcTime(new Date(now - 60_000)), '-enddate', utcTime(leafNotAfter), '-in', 'leaf.csr', '-out', 'leaf.pem', '-notext',
  ]);
  run(['req', '-new', '-sha256', '-key', 'tsa.key', '-subj', '/C=US/O=Provenance Split Test/CN=split tsa', '-out', 'tsa.csr']);
  run(['x509', '-req', '-sha256', '-days', '30', '-in', 'tsa.csr', '-CA', 'tsa-root.pem', '-CAkey', 'tsa-root.key', '-set_serial', '0x5001', '-extfile', 'ext.cnf', '-extensions', 'tsa', '-out', 'tsa.pem']);
  writePkcs8(dir, 'leaf');
  writePkcs8(dir, 'tsa');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  // makeTimeStamp puts intermediate.pem in the token as the TSA's chain.
  writeFileSync(join(dir, 'intermediate.pem'), read('tsa-root.pem'));
  const leafPem = read('leaf.pem');
  const signer: Pki = {
    dir,
    chainDer: [pemToDer(leafPem)],
    chainPem: leafPem,
    keyPem: read('leaf.pk8'),
    rootPem: read('signer-root.pem'),
    rootDer: pemToDer(read('signer-root.pem')),
    tsaCertPem: read('tsa.pem'),
    tsaKeyPem: read('tsa.pk8'),
  };
  return { signer, signerRootPem: read('signer-root.pem'), tsaRootPem: read('tsa-root.pem'), leafNotAfter };
}
