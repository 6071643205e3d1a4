// S3 buckets as inputs: `s3://bucket/prefix` (every object below it, as a folder's files) and
// `s3://bucket/key` (one object). The AWS SDK is imported only when an s3:// input appears, so a
// check of local files never loads it. This module itself is small and bundled with its callers
// (not a lazy bundle): the InputErrors it throws are then the callers' own class, which
// `instanceof` in checker.ts and the library's check() rely on.
//
// Credentials, region and endpoint come from the SDK's standard chain (AWS_ACCESS_KEY_ID...,
// AWS_PROFILE, ~/.aws, instance roles; AWS_REGION; AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3 for
// MinIO, R2 and other S3-compatible stores). AWS_S3_FORCE_PATH_STYLE=true asks for path-style
// addressing (http://host/bucket/key), which many of those stores need.
import type { S3Client } from '@aws-sdk/client-s3';
import { InputError } from './input-error.js';
import { MAX_OBJECT_BYTES, objectTooLarge, readObjectBody } from './object-body.js';
import type { ReadRoom } from './read-budget.js';
import { startReadDeadline } from './read-deadline.js';
import type { PathFilter } from './path-filter.js';
/** Keys per ListObjectsV2 page: S3's own most. */
const PAGE_KEYS = 1000;
export interface S3Location {
  bucket: string;
  /** The key, or the prefix, after `s3://bucket/`; may be empty (the whole bucket). */
  key: string;
}

/** One object found by a listing (or named), ready to be read. */
export interface S3ObjectRef {
  bucket: string;
  key: string;
  /**
   * The listing's ETag (with its quotes), when known: the object's identity for --incremental,
   * and read() asks for exactly that version (If-Match).
   */
  etag?: string;
  size?: number;
  /** `room`: the read budget's hold, grown as the body is read (read-budget.ts). */
  read(room?: ReadRoom): Promise<Uint8Array>;
}

export function isS3Url(input: unknown): input is string {
  return typeof input === 'string' && /^s3:\/\//i.test(input);
}

export function s3Url(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

/**
 * `s3://bucket/key-or-prefix` -> its parts, or an InputError saying what is wrong. Bucket names
 * follow S3's rules (3 to 63 characters: lower-case letters, digits, dots, hyphens, starting and
 * ending with a letter or digit); a key is taken as written (no percent-decoding: S3 keys may
 * hold `%`).
 */
export function parseS3Url(input: string): S3Location {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/is.exec(input);
  const bucket = m?.[1] ?? '';
  if (!m || !bucket) throw new InputError('not_found', `${input}: not an S3 location; write s3://BUCKET/PREFIX or s3://BUCKET/KEY.`);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new InputError('not_found', `${input}: "${bucket}" is not a valid bucket name (3 to 63 characters: lower-case letters, digits, dots and hyphens).`);
  }
  return { bucket, key: m[2] ?? '' };
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes)$/i.test(value.trim());
}

type Sdk = typeof import('@aws-sdk/client-s3');
let sdk: Promise<Sdk> | undefined;

/** The SDK, imported on first use (about 60 ES and CommonJS modules). */
function loadSdk(): Promise<Sdk> {
  return (sdk ??= import('@aws-sdk/client-s3'));
}

/** A client with the SDK that made it, for one run. */
export interface S3Connection {
  sdk: Sdk;
  client: S3Client;
  /** One object's whole read, request to last byte (default READ_DEADLINE_MS; `--read-timeout`). */
  deadlineMs?: number;
}

/** The client for one run; its sockets do not keep the process alive once idle. */
export async function openS3(env: NodeJS.ProcessEnv = process.env, deadlineMs?: number): Promise<S3Connection> {
  const loaded = await loadSdk();
  return { sdk: loaded, client: makeClient(loaded, env), deadlineMs };
}

function makeClient({ S3Client }: Sdk, env: NodeJS.ProcessEnv): S3Client {
  return new S3Client({
    forcePathStyle: truthy(env.AWS_S3_FORCE_PATH_STYLE),
    // A bucket in another region than the one configured is followed there, not an error.
    followRegionRedirects: true,
    // An endpoint that accepts no connection fails in seconds rather than hanging the scan.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
  });
}

interface AwsError {
  name?: string;
  code?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Where requests go, for messages: the endpoint set in the environment, else AWS. */
function endpointText(env: NodeJS.ProcessEnv): string {
  return env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || 'AWS S3';
}

/**
 * An SDK failure as the per-input error a user can act on, naming `source` (the URL the user gave
 * or the object's) and `bucket`. Never the credentials themselves.
 */
export function s3InputError(err: unknown, source: string, bucket: string, env: NodeJS.ProcessEnv = process.env): InputError {
  if (err instanceof InputError) return err;
  const e = (err ?? {}) as AwsError;
  const code = e.name && e.name !== 'Error' ? e.name : (e.Code ?? e.code ?? '');
  const status = e.$metadata?.httpStatusCode;
  const where = endpointText(env);
  switch (code) {
    case 'NoSuchBucket':
      return new InputError('not_found', `${source}: no bucket named "${bucket}" at ${where}.`);
    case 'PreconditionFailed':
      // Read with If-Match on the listed ETag: the object was written again since it was listed.
      return new InputError('read_error', `${source}: changed while the scan ran (its ETag is no longer the one listed); check it again.`);
    case 'NoSuchKey':
    case 'NotFound':
      return new InputError('not_found', `${source}: no such object.`);
    case 'InvalidAccessKeyId':
      return new InputError('permission_denied', `${source}: ${where} does not know the access key id (InvalidAccessKeyId); check AWS_ACCESS_KEY_ID or the profile in use.`);
    case 'SignatureDoesNotMatch':
      return new InputError('permission_denied', `${source}: ${where} refused the request's signature (SignatureDoesNotMatch): the secret access key does not match the access key id.`);
    case 'AccessDenied':
    case 'Forbidden':
    case 'AllAccessDisabled':
      return new InputError('permission_denied', `${source}: access denied by ${where}; the credentials in use may not read bucket "${bucket}".`);
    case 'CredentialsProviderError':
      return new InputError('permission_denied', `${source}: no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (the SDK's standard chain).`);
    case 'TimeoutError':
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ECONNRESET':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new InputError('read_error', `${source}: cannot reach ${where} (${e.message || code}).`);
  }
  if (/region is missing/i.test(e.message ?? '')) {
    return new InputError('read_error', `${source}: no AWS region set: set AWS_REGION (any region for an S3-compatible store such as MinIO).`);
  }
  if (status === 404) return new InputError('not_found', `${source}: not found at ${where}.`);
  if (status === 403) return new InputError('permission_denied', `${source}: access denied by ${where} (${code || 'HTTP 403'}).`);
  return new InputError('read_error', `${source}: ${code ? `${code}: ` : ''}${e.message ?? String(err)}`);
}

/**
 * An object's bytes, streamed into one buffer sized by its Content-Length, and refused (before
 * or while it is read) when it reaches the 2 GiB a file may not reach either (object-body.ts).
 */
export async function readObject({ sdk, client, deadlineMs }: S3Connection, bucket: string, key: string, env: NodeJS.ProcessEnv = process.env, etag?: string, room?: ReadRoom): Promise<Uint8Array> {
  const source = s3Url(bucket, key);
  const abort = new AbortController();
  // The whole read, request and body, within the deadline (read-deadline.ts), as an https:// URL's.
  const deadline = startReadDeadline(source, deadlineMs);
  deadline.signal.addEventListener('abort', () => abort.abort(), { once: true });
  try {
    let reply;
    try {
      reply = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key, IfMatch: etag }), { abortSignal: abort.signal });
    } catch (err) {
      if (deadline.signal.aborted) throw deadline.error();
      throw s3InputError(err, source, bucket, env);
    }
    const body = reply.Body as unknown as AsyncIterable<Uint8Array> & { destroy?: () => void };
    return await readObjectBody({
      source,
      chunks: body,
      length: reply.ContentLength,
      deadline,
      room,
      abandon: () => {
        abort.abort();
        body.destroy?.();
      },
    });
  } finally {
    deadline.done();
  }
}

/** The folders a key lies in, below the listed prefix: `a/b/c.jpg` -> `a`, `a/b`. */
function foldersOf(relative: string): string[] {
  const folders: string[] = [];
  for (let at = relative.indexOf('/'); at !== -1; at = relative.indexOf('/', at + 1)) folders.push(relative.slice(0, at));
  return folders;
}

export type S3Item = { source: string; kind: 's3'; object: S3ObjectRef } | { source: string; kind: 'error'; error: InputError };

/**
 * The objects an `s3://` input names, in S3's listing order (keys in UTF-8 binary order), one
 * ListObjectsV2 page of 1,000 keys at a time: the first objects are checked while later pages
 * are listed. `s3://bucket/key` naming an object is that object alone (always checked, as a
 * named file is); otherwise the key is a folder (`key/` is listed) and --include/--exclude apply
 * to the keys below it as to the paths below a folder. Keys ending in `/` (the folder markers
 * that consoles create) are not objects to check. A listing that fails gives one error item and
 * ends this input; the objects already listed stay.
 */
export async function* expandS3(input: string, s3: S3Connection, filter?: PathFilter, env: NodeJS.ProcessEnv = process.env): AsyncGenerator<S3Item> {
  let location: S3Location;
  try {
    location = parseS3Url(input);
  } catch (err) {
    yield { source: input, kind: 'error', error: err as InputError };
    return;
  }
  const { bucket, key } = location;
  const item = (objectKey: string, etag?: string, size?: number): S3Item => ({
    source: s3Url(bucket, objectKey),
    kind: 's3',
    object: { bucket, key: objectKey, etag, size, read: (room) => readObject(s3, bucket, objectKey, env, etag, room) },
  });
  if (key && !key.endsWith('/')) {
    try {
      const head = await s3.client.send(new s3.sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
      yield item(key, head.ETag, head.ContentLength);
      return;
    } catch (err) {
      const failure = s3InputError(err, input, bucket, env);
      // Not an object: a folder, listed below. A missing bucket or refused credentials are named
      // by the listing's answer (a HEAD answer has no body to say which).
      if (failure.type !== 'not_found' && failure.type !== 'permission_denied') {
        yield { source: input, kind: 'error', error: failure };
        return;
      }
    }
  }
  const prefix = key && !key.endsWith('/') ? `${key}/` : key;
  const entered = new Map<string, boolean>();
  const passes = (relative: string): boolean => {
    if (!filter) return true;
    for (const folder of foldersOf(relative)) {
      let enters = entered.get(folder);
      if (enters === undefined) entered.set(folder, (enters = filter.entersFolder(folder)));
      if (!enters) return false;
    }
    return filter.includesFile(relative);
  };
  let token: string | undefined;
  let listed = 0;
  do {
    let page;
    try {
      page = await s3.client.send(new s3.sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, MaxKeys: PAGE_KEYS, ContinuationToken: token }));
    } catch (err) {
      yield { source: input, kind: 'error', error: s3InputError(err, input, bucket, env) };
      return;
    }
    for (const object of page.Contents ?? []) {
      const objectKey = object.Key;
      if (objectKey === undefined || objectKey.endsWith('/')) continue;
      listed++;
      if (!passes(objectKey.slice(prefix.length))) continue;
      if (object.Size !== undefined && object.Size >= MAX_OBJECT_BYTES) {
        const source = s3Url(bucket, objectKey);
        yield { source, kind: 'error', error: objectTooLarge(source) };
        continue;
      }
      yield item(objectKey, object.ETag, object.Size);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  // Nothing there at all: as a path that names nothing (a filtered-out prefix is not this).
  if (listed === 0) yield { source: input, kind: 'error', error: new InputError('not_found', `${input}: no such object, and no objects below it.`) };
}

/**
 * One object's bytes, named by its URL (the library's check()): a client of its own, closed
 * once the object is read.
 */
export async function readS3Url(url: string, env: NodeJS.ProcessEnv = process.env, deadlineMs?: number): Promise<Uint8Array> {
  const { bucket, key } = parseS3Url(url);
  if (!key || key.endsWith('/')) throw new InputError('not_found', `${url}: names a bucket or prefix, not an object; check() reads one object (scan() reads every object below a prefix).`);
  const s3 = await openS3(env, deadlineMs);
  try {
    return await readObject(s3, bucket, key, env);
  } finally {
    s3.client.destroy();
  }
}
