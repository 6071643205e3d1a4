// check(): one file, in this thread, as `provenance check FILE` does it (no worker start-up): the
// input read here, then check-bytes.ts, the step from bytes to a result that the CLI shares.
import { fileURLToPath } from 'node:url';
import { inputErrorFrom } from '../engine/input-error.js';
import { readRegularFile } from '../engine/local-file.js';
import { isHttpsUrl, isPlainHttpUrl, readHttpsUrl } from '../engine/https-source.js';
import { isS3Url, readS3Url } from '../engine/s3-source.js';
import { detectorsBody } from '../detectors/catalogue.js';
import type { CatalogueName, CheckedResult, DetectorInfo } from '../types.js';
import { readHints } from '../media/xmp-hints.js';
import { verdictOf } from '../verdict/verdict.js';
import { abortReason } from './abort.js';
import { checkBytes } from './check-bytes.js';
import { crJsonOfBytes, isRubricName, RUBRIC_NAMES, rubricOutput, type ConformanceOutput, type CrJsonOptions, type RubricName, type SignalsOutput } from './c2pa-output.js';
import { detectOptions, type CommonOptions } from './options.js';
import { validateReadTimeout } from './validate.js';

/** A file's path (or file: URL), an S3 object's `s3://bucket/key`, an `https://` URL, its bytes, or a readable stream (Node or web) of them. */
export type CheckInput = string | URL | Uint8Array | AsyncIterable<Uint8Array | string>;

export type CheckOptions = CommonOptions;

async function readAll(stream: AsyncIterable<Uint8Array | string>, signal?: AbortSignal): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    if (signal?.aborted) throw abortReason(signal);
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks);
}

export async function bytesOf(input: CheckInput, signal?: AbortSignal, readTimeoutMs?: number): Promise<Uint8Array> {
  if (input instanceof Uint8Array) return input;
  const remote = input instanceof URL && input.protocol !== 'file:' ? input.href : input;
  if (isS3Url(remote) || isHttpsUrl(remote) || isPlainHttpUrl(remote)) {
    // http:// is refused there, before any request.
    const bytes = await (isS3Url(remote) ? readS3Url(remote, process.env, readTimeoutMs) : readHttpsUrl(remote, { deadlineMs: readTimeoutMs }));
    signal?.throwIfAborted();
    return bytes;
  }
  if (typeof input === 'string' || input instanceof URL) {
    const path = typeof input === 'string' ? input : fileURLToPath(input);
    try {
      return await readRegularFile(path, { signal });
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      // not_found, permission_denied, ...: the same InputError (and words) as the CLI's.
      throw inputErrorFrom(err, path);
    }
  }
  if (input && typeof (input as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') return readAll(input, signal);
  throw new TypeError('check takes a file path, a file: URL, an s3:// or https:// URL, a Uint8Array or Buffer, or a readable stream.');
}

/**
 * Checks one file for provenance markers and returns the /v1 detection result, the same one the
 * daemon answers with and `provenance check --json` prints.
 *
 * Runs in the calling thread; for many files use {@link scan}, which spreads them over worker
 * threads. The c2pa-rs WebAssembly module is loaded on the first file that carries a C2PA marker.
 *
 * @throws InputError (`type` not_found, permission_denied, ...) when a path or URL cannot be read;
 *   CheckSelectionError for an unknown check id; TrustAnchorError for a bad `trustAnchors`.
 */
export async function check(input: CheckInput, options: CheckOptions = {}): Promise<CheckedResult> {
  const { signal } = options;
  const detectWith = detectOptions(options);
  const readTimeoutMs = validateReadTimeout(options.readTimeoutMs);
  signal?.throwIfAborted();
  const bytes = await bytesOf(input, signal, readTimeoutMs);
  const result = await checkBytes(bytes, detectWith, signal);
  // The C2PA details this thread's engine linked to the claims are read by verdictOf(); the XMP's
  // source type as the CLI reads it (an AI type no check read is an unsigned record there too).
  return Object.assign(result, { verdict: verdictOf(result, undefined, await readHints(bytes)) });
}

/** The file's crJSON (c2pa-rs's), or null when it has no C2PA manifest. */
export async function crJson(input: CheckInput, options: CrJsonOptions = {}): Promise<Record<string, unknown> | null> {
  options.signal?.throwIfAborted();
  return crJsonOfBytes(await bytesOf(input, options.signal), options);
}

/** A C2PA Asset Rubric's official output for the file, or null when it has no C2PA manifest. */
export async function rubric(input: CheckInput, name: RubricName, options: CrJsonOptions = {}): Promise<SignalsOutput | ConformanceOutput | null> {
  if (!isRubricName(name)) throw new TypeError(`rubric: unknown rubric "${String(name)}"; the rubrics are ${RUBRIC_NAMES.join(', ')}.`);
  const doc = await crJson(input, options);
  return doc === null ? null : rubricOutput(doc, name);
}

/** The detectors of this build, as GET /v1/detectors lists them (available and planned). */
export function detectors(catalogue?: CatalogueName): DetectorInfo[] {
  return detectorsBody(catalogue).detectors;
}
