// What --incremental compares: a file's size and mtime, an S3 object's size and ETag, an https://
// URL's ETag (else its Last-Modified) and size from a HEAD. Taken at
// listing, and again by the worker just before it reads a file, so that the identity a result is
// stored under is that of the bytes it was made from (a file changed or replaced after the
// listing, or before a `scan retry`, is known by its new identity).
import { stat } from 'node:fs/promises';
import { httpsVersion } from '../engine/https-source.js';
import type { InputItem } from '../engine/inputs.js';

export async function identityOf(item: InputItem): Promise<string | null> {
  if (item.kind === 's3') return item.object.etag !== undefined ? `etag:${item.object.etag}:${item.object.size ?? ''}` : null;
  if (item.kind === 'https') {
    // A HEAD (once per item: the read that follows asks for that version).
    try {
      await item.object.head();
    } catch {
      return null; // read by the worker, which reports why it cannot be
    }
    const version = httpsVersion(item.object);
    return version ? `https:${version.version}:${version.size}` : null;
  }
  if (item.kind !== 'file') return null;
  try {
    const st = await stat(item.path, { bigint: true });
    return `file:${st.size}:${st.mtimeNs}`;
  } catch {
    return null; // read by the worker, which reports why it cannot be
  }
}
