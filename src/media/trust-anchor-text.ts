// The PEM text of a check's C2PA trust anchors, for c2pa-rs's settings: the C2PA lists read from
// their files the first time a manifest needs them (a file without a manifest, and a run without
// one, never reads them), kept per process and read again only when a file changed (`provenance
// trust update` replaces one by a rename, so a long-lived process sees the new list), plus the
// anchors given as text. The lists are not parsed here: c2pa-rs parses them, and `trust update`
// and the package's own tests check every certificate before a list is used.
import { readFileSync, statSync } from 'node:fs';
import type { TrustListFile, TrustOptions } from '../types.js';

/** A list file larger than this is refused (the C2PA Trust List is 38 KB, its TSA list 29 KB). */
export const TRUST_LIST_MAX_BYTES = 4 * 1024 * 1024;

const read = new Map<string, { version: string; text: string }>();

/** The text of one list file, from this process's copy when the file has not changed. */
export function trustListText(list: TrustListFile): string {
  let version: string;
  try {
    const st = statSync(list.file);
    if (!st.isFile()) throw Object.assign(new Error('it is not a file'), { code: 'ENOTFILE' });
    if (st.size > TRUST_LIST_MAX_BYTES) throw new Error(`it is larger than ${TRUST_LIST_MAX_BYTES} bytes`);
    version = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch (err) {
    throw new Error(`the trust list ${list.file} cannot be read: ${(err as Error).message}`);
  }
  const known = read.get(list.file);
  if (known?.version === version) return known.text;
  const text = readFileSync(list.file, 'utf8');
  read.set(list.file, { version, text });
  return text;
}

/** Every anchor of the options as one PEM bundle (lists first), or undefined when there are none. */
export function trustAnchorText(trust: TrustOptions): string | undefined {
  const parts = (trust.trustLists ?? []).map((list) => {
    const text = trustListText(list);
    return text.endsWith('\n') ? text : `${text}\n`;
  });
  if (trust.trustAnchorsPem) parts.push(trust.trustAnchorsPem);
  return parts.length ? parts.join('') : undefined;
}
