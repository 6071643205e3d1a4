// How an input travels from the machine that lists it to any worker: a listed item (engine's
// InputItem) as plain JSON in its row, and back to an item the checker reads. A path is made
// absolute (workers run elsewhere: a shared file system mounted at the same path on each); an
// S3 object keeps its listed ETag, so every worker reads the version that was listed; an https://
// URL is kept as given (with any token in it: the workers must request it), shown masked.
import { resolve } from 'node:path';
import { type FsPath } from '../engine/byte-paths.js';
import { InputError } from '../engine/input-error.js';
import type { InputItem } from '../engine/inputs.js';
import { httpsInput, type HttpsConnection } from '../engine/https-source.js';
import { isS3Url, readObject, type S3Connection } from '../engine/s3-source.js';
import type { ErrorInfo } from '../types.js';

export type InputLocation =
  | { path: string }
  /** A path that is not valid UTF-8, as base64 of its bytes. */
  | { pathBytes: string }
  | { s3: { bucket: string; key: string; etag?: string; size?: number } }
  /** The URL as given, secrets and all: the workers must request it (its shown form is the source). */
  | { url: string }
  /** Listed as an error (a missing file, a folder loop): read again only by `scan retry`. */
  | { listError: ErrorInfo; path?: string };

function absolute(path: FsPath): { path: string } | { pathBytes: string } {
  if (typeof path === 'string') return { path: resolve(path) };
  // resolve() would decode the bytes; an absolute byte path is kept, a relative one gets the
  // current folder's bytes in front.
  const bytes = path[0] === 0x2f ? path : Buffer.concat([Buffer.from(`${process.cwd()}/`), path]);
  return { pathBytes: bytes.toString('base64') };
}

/** The row form of a listed item; standard input is refused earlier (a scan cannot send it). */
export function locationOf(item: InputItem): InputLocation {
  switch (item.kind) {
    case 'file':
      return absolute(item.path);
    case 's3':
      return { s3: { bucket: item.object.bucket, key: item.object.key, etag: item.object.etag, size: item.object.size } };
    case 'https':
      return { url: item.object.url };
    case 'error':
      // A path that could not be stat'ed may be there by the time of a `scan retry`.
      return isS3Url(item.source) ? { listError: item.error.toInfo() } : { listError: item.error.toInfo(), path: resolve(item.source) };
    case 'stdin':
      throw new InputError('read_error', 'standard input cannot be a scan source: list the files (or --files-from with a file).');
  }
}

/** A worker's connections, each made on the first input that needs it. */
export interface SourceConnections {
  s3(): Promise<S3Connection>;
  https(): Promise<HttpsConnection>;
}

/** Back to an item the checker reads. */
export async function itemOf(source: string, location: InputLocation, connections: SourceConnections): Promise<InputItem> {
  if ('path' in location && !('listError' in location)) return { source, kind: 'file', path: location.path };
  if ('pathBytes' in location) return { source, kind: 'file', path: Buffer.from(location.pathBytes, 'base64') };
  if ('s3' in location) {
    const { bucket, key, etag, size } = location.s3;
    return { source, kind: 's3', object: { bucket, key, etag, size, read: async (room) => readObject(await connections.s3(), bucket, key, process.env, etag, room) } };
  }
  if ('url' in location) return httpsInput(location.url, connections.https);
  // A listing error: a retry reads the path again if it had one, else it is the same error.
  if (location.path) return { source, kind: 'file', path: location.path };
  const { type, message } = location.listError;
  return { source, kind: 'error', error: new InputError(type as ConstructorParameters<typeof InputError>[0], message) };
}
