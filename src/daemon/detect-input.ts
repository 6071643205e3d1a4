// Turns a POST /v1/detect body (JSON or multipart) into one media source and a check list,
// refusing anything else with 400 invalid_request and the field at fault (CONTRACT "Error body").
import type { FastifyRequest } from 'fastify';
import { CheckSelectionError, resolveChecks, splitCheckList } from '../engine/checks.js';
import type { DetectorId } from '../types.js';
import type { Lease } from './buffer-pool.js';
import { ApiError, invalid } from './errors.js';
import { INLINE_MAX_BYTES, tooLargeMessage } from './limits.js';
import { RawBase64 } from './json-body.js';
import { parseDownloadUrl, UrlRefused } from './url-guard.js';

export type MediaSource =
  | { kind: 'url'; url: string }
  /** Inline media over the 4 MB limit: refused (413) at the load step, its call given back. */
  | { kind: 'oversize'; param: 'media' }
  | { kind: 'upload'; id: string }
  /** `lease`: the bytes live in a pooled buffer, to be released once detection is done. */
  | { kind: 'file'; bytes: Uint8Array; lease?: Lease };

export interface DetectInput {
  source: MediaSource;
  checks: DetectorId[];
}

const SOURCES = ['url', 'media', 'upload'] as const;
const ONE_SOURCE = 'Give exactly one media source: url, media (base64) or upload (as JSON), or a multipart part named file.';

/**
 * @param decodeInto  a buffer to decode a large inline `media` into (the daemon's shared pool);
 *                    the result's source then holds that lease until the caller releases it
 */
export function parseJsonDetect(body: unknown, decodeInto?: () => Lease): DetectInput {
  if (body === undefined) throw invalid(`The request has no body. ${ONE_SOURCE}`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('The JSON body must be an object.');
  const fields = body as Record<string, unknown>;
  const given = SOURCES.filter((name) => fields[name] !== undefined);
  if (given.length !== 1) throw invalid(given.length === 0 ? `No media source. ${ONE_SOURCE}` : `${given.join(' and ')} were both given. ${ONE_SOURCE}`);
  const name = given[0]!;
  const value = fields[name];
  if (name === 'media' && value instanceof RawBase64) {
    // Checks first: a refused request must not hold a decode buffer.
    const checks = checkList(fields.checks);
    return mediaSource(value.bytes, checks, decodeInto?.());
  }
  if (typeof value !== 'string') throw invalid(`${name} must be a string.`, name);
  const checks = checkList(fields.checks);
  if (name === 'url') {
    try {
      parseDownloadUrl(value);
    } catch (err) {
      if (err instanceof UrlRefused) throw invalid(err.message, 'url');
      throw err;
    }
    return { source: { kind: 'url', url: value }, checks };
  }
  if (name === 'media') return mediaSource(value, checks);
  return { source: { kind: 'upload', id: value }, checks };
}

function checkList(value: unknown): DetectorId[] {
  if (value === undefined) return resolveChecks(undefined);
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw invalid('checks must be an array of detector ids (strings).', 'checks');
  }
  return resolveChecksOr400(value as string[]);
}

function resolveChecksOr400(ids: string[] | undefined): DetectorId[] {
  try {
    return resolveChecks(ids);
  } catch (err) {
    if (err instanceof CheckSelectionError) throw invalid(err.message, 'checks');
    throw err;
  }
}

function mediaSource(value: string | Buffer, checks: DetectorId[], into?: Lease): DetectInput {
  const decoded = decodeBase64Media(value, into?.buffer);
  const inLease = 'bytes' in decoded && into !== undefined && decoded.bytes.buffer === into.buffer.buffer;
  if (!inLease) into?.release();
  if ('invalid' in decoded) throw invalid('media is not valid base64 (standard or URL-safe alphabet).', 'media');
  if ('tooLarge' in decoded) return { source: { kind: 'oversize', param: 'media' }, checks };
  return { source: { kind: 'file', bytes: decoded.bytes, ...(inLease ? { lease: into } : {}) }, checks };
}

export type DecodedMedia = { bytes: Buffer } | { tooLarge: true } | { invalid: true };

/**
 * Decodes `media` (a string, or the raw bytes json-body.ts kept), or says why not. Some
 * encoders wrap base64 at 76 columns, so ASCII whitespace is tolerated; standard and URL-safe
 * alphabets are both accepted. No regular expression runs over the (up to 5.6 MB) text on the
 * common path: node's decoder skips any character outside the alphabet, so a decoded length
 * short of what the text's length promises is what reveals a bad character.
 *
 * With `into` (a buffer of at least INLINE_MAX_BYTES) raw bytes are decoded straight into it,
 * 64 KiB of text at a time: each slice becomes a short-lived string in V8's young generation
 * instead of one 2.5 MB string per request. Anything that does not decode to exactly the
 * promised length there (whitespace, a bad character) is decided by the general path below.
 */
export function decodeBase64Media(value: string | Buffer, into?: Buffer): DecodedMedia {
  if (into && typeof value !== 'string') {
    const expected = promisedLength(value.length, (i) => value[i]!);
    if (typeof expected === 'number' && expected <= INLINE_MAX_BYTES && expected <= into.length) {
      let written = 0;
      for (let at = 0; at < value.length; at += DECODE_SLICE) {
        written += into.write(value.toString('latin1', at, Math.min(value.length, at + DECODE_SLICE)), written, 'base64');
      }
      if (written === expected) return { bytes: into.subarray(0, written) };
    }
  }
  // latin1 maps each raw byte to one character, so a non-ASCII byte stays a bad character.
  const text = typeof value === 'string' ? value : value.toString('latin1');
  const clean = hasWhitespace(value) ? text.replace(/[\t\n\r ]+/g, '') : text;
  const expected = promisedLength(clean.length, (i) => clean.charCodeAt(i));
  if (expected === 'invalid') return { invalid: true };
  // Refused from the length alone, before a byte is decoded.
  if (expected > INLINE_MAX_BYTES) return { tooLarge: true };
  const bytes = Buffer.from(clean, 'base64');
  return bytes.length === expected ? { bytes } : { invalid: true };
}

/** Text per slice when decoding into a buffer: a multiple of 4, and small enough for V8's young generation. */
const DECODE_SLICE = 64 * 1024;

/** The decoded length base64 text of this length (and these last characters) must give. */
function promisedLength(length: number, charAt: (i: number) => number): number | 'invalid' {
  let end = length;
  if (end > 0 && charAt(end - 1) === 0x3d) end--; // '='
  if (end > 0 && charAt(end - 1) === 0x3d) end--;
  if ((end < length && length % 4 !== 0) || end % 4 === 1) return 'invalid';
  return Math.floor((end * 3) / 4);
}

/** Native scans (memchr on a Buffer) rather than a regular expression over megabytes. */
function hasWhitespace(value: string | Buffer): boolean {
  if (typeof value === 'string') return value.includes('\n') || value.includes(' ') || value.includes('\r') || value.includes('\t');
  return value.includes(0x0a) || value.includes(0x20) || value.includes(0x0d) || value.includes(0x09);
}

/** Reads a multipart detect body: file part `file`, optional `checks` fields (CONTRACT). */
export async function readMultipartDetect(request: FastifyRequest): Promise<DetectInput> {
  let bytes: Buffer | undefined;
  let checks: string[] | undefined;
  // busboy may pass one byte over the limit, so the cap below fires at once instead of busboy
  // silently truncating and draining the rest of the body.
  const parts = request.parts({
    limits: { fileSize: INLINE_MAX_BYTES + 1, files: 1, fields: 32, parts: 33, fieldSize: 64 * 1024 },
  });
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw invalid(`Unexpected file part "${part.fieldname}"; send the file in a part named file.`, part.fieldname);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > INLINE_MAX_BYTES) throw new ApiError('media_too_large', tooLargeMessage(INLINE_MAX_BYTES, 'a multipart file'), 'file');
        chunks.push(chunk);
      }
      bytes = Buffer.concat(chunks, total);
    } else if (part.fieldname === 'checks') {
      (checks ??= []).push(...splitCheckList(String(part.value)));
    } else if ((SOURCES as readonly string[]).includes(part.fieldname)) {
      throw invalid(`A multipart request carries its file in the part named file; send ${part.fieldname} as JSON instead.`, part.fieldname);
    }
  }
  if (!bytes) throw invalid(`No file part. ${ONE_SOURCE}`, 'file');
  return { source: { kind: 'file', bytes }, checks: resolveChecksOr400(checks) };
}

