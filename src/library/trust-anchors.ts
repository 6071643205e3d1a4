// The library's `trustAnchors` option: PEM text, or the path of a PEM file. Checked here, so a
// bad file is one clear TrustAnchorError instead of c2pa-rs failing on every manifest.
import { readAnchorFile } from '../config/trust-store.js';
import { parseAnchors } from '../config/pem.js';

/** Every anchor of the option, as one PEM bundle; undefined when none is given. */
export function trustAnchorsPem(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value.trim()) throw new TypeError('trustAnchors must be PEM text or the path of a PEM file.');
  const anchors = value.includes('-----BEGIN') ? parseAnchors(value, 'trustAnchors') : readAnchorFile(value);
  return anchors.map((a) => a.pem).join('');
}
