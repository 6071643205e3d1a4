// PEM certificate bundles for C2PA trust anchors: parsed and checked here, so that a bad file is
// a clear usage error instead of c2pa-rs failing on every manifest it reads.
import { createHash, X509Certificate } from 'node:crypto';

import { TrustAnchorError } from './trust-anchor-error.js';

export { TrustAnchorError };

export interface Anchor {
  /** The certificate, PEM, normalised (64-column base64, LF). */
  pem: string;
  /** SHA-256 of the DER certificate, lower-case hex without colons. */
  fingerprint: string;
  /** e.g. `C=US, O=Example, CN=Example Root`. */
  subject: string;
  /** ISO 8601 end of validity. */
  not_after: string;
  /** The certificate is a CA (basicConstraints CA:TRUE). */
  ca: boolean;
}

const BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

function wrap64(b64: string): string {
  return b64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
}

function isoDate(text: string): string {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Every certificate of a PEM bundle, validated. `source` names the file in error messages. */
export function parseAnchors(data: string | Uint8Array, source: string): Anchor[] {
  const bytes = typeof data === 'string' ? undefined : data;
  const text = typeof data === 'string' ? data : new TextDecoder('latin1').decode(data);
  if (!text.trim()) {
    throw new TrustAnchorError(`${source} is empty: expected PEM certificates (-----BEGIN CERTIFICATE-----).`);
  }
  const blocks = [...text.matchAll(BLOCK)];
  if (blocks.length === 0) {
    const der = bytes ? bytes[0] === 0x30 && (bytes[1] === 0x82 || bytes[1] === 0x81) : false;
    const hint = der
      ? ' It looks like a DER certificate: convert it with `openssl x509 -inform der -in FILE -out FILE.pem`.'
      : '';
    throw new TrustAnchorError(`${source} is not a PEM certificate file: no -----BEGIN CERTIFICATE----- block found.${hint}`);
  }
  // A block begun and never ended (a file cut off in transfer) would otherwise be skipped unseen.
  const begun = text.split('-----BEGIN CERTIFICATE-----').length - 1;
  if (begun !== blocks.length) {
    throw new TrustAnchorError(`${source}: certificate ${blocks.length + 1} has no -----END CERTIFICATE----- line (is the file cut off?).`);
  }
  return blocks.map((block, i) => {
    const b64 = block[1]!.replace(/\s+/g, '');
    const der = Buffer.from(b64, 'base64');
    let cert: X509Certificate;
    try {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new Error('the base64 text is damaged');
      cert = new X509Certificate(der);
    } catch (err) {
      throw new TrustAnchorError(`${source}: certificate ${i + 1} cannot be read: ${(err as Error).message}.`);
    }
    return {
      pem: `-----BEGIN CERTIFICATE-----\n${wrap64(der.toString('base64'))}\n-----END CERTIFICATE-----\n`,
      fingerprint: createHash('sha256').update(der).digest('hex'),
      subject: cert.subject.split('\n').join(', '),
      not_after: isoDate(cert.validTo),
      ca: cert.ca,
    };
  });
}

/** `ab12cd...` -> `AB:12:CD:...`, the form openssl and browsers show. */
export function colonFingerprint(hex: string): string {
  return hex.toUpperCase().replace(/(..)(?=.)/g, '$1:');
}
