// Turns a POST /v1/detect body (JSON or multipart) into one media source and a check list,
// refusing anything else with 400 invalid_request and the field at fault (CONTRACT "Error body").
import type { FastifyRequest } from 'fastify';
import { decodeBase64Media, type DecodedMedia } from '../../engine/base64-media.js';
import { CheckSelectionError, resolveChecks, splitCheckList } from '../../engine/checks.js';
import type { CatalogueName, DetectorId } from '../../types.js';
import type { Lease } from './buffer-pool.js';
import { ApiError, invalid } from '../contract/errors.js';
import { INLINE_MAX_BYTES, tooLargeMessage } from '../contract/limits.js';
import { bodyEnd } from './body-end.js';
import { watchClosingDelimiter } from './multipart-end.js';
import { RawBase64 } from './json-body.js';
import { parseDownloadUrl, UrlRefused } from './url-guard.js';

export type MediaSource =
  | { kind: 'url'; url: string }
  /** Inline media over the 4 MB limit: refused (413) at the load step, its call given back. */
  | { kind: 'oversize'; param: 'media' }
  | { kind: 'upload'; id: string }
  /** `lease`: the bytes live in a pooled buffer, to be released once detection is done. */
  | { kind: 'file'; bytes: Uint8Array; lease?: Lease }
  /** A large inline `media` value, still base64, as raw bytes of the request body (json-body.ts). */
  | { kind: 'base64'; text: Buffer };

export interface DetectInput {
  source: MediaSource;
  checks: DetectorId[];
}

const SOURCES = ['url', 'media', 'upload'] as const;
const ONE_SOURCE = 'Give exactly one media source: url, media (base64) or upload (as JSON), or a multipart part named file.';

/** `catalogue`: the daemon's (--catalogue); with `hosted`, checks outside the hosted five are unknown. */
export function parseJsonDetect(body: unknown, catalogue: CatalogueName = 'full'): DetectInput {
  if (body === undefined) throw invalid(`The request has no body. ${ONE_SOURCE}`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('The JSON body must be an object.');
  const fields = body as Record<string, unknown>;
  const given = SOURCES.filter((name) => fields[name] !== undefined);
  if (given.length !== 1) throw invalid(given.length === 0 ? `No media source. ${ONE_SOURCE}` : `${given.join(' and ')} were both given. ${ONE_SOURCE}`);
  const name = given[0]!;
  const value = fields[name];
  if (name === 'media' && value instanceof RawBase64) {
    // Decoded by the caller, off the main thread (routes/detect.ts).
    return { source: { kind: 'base64', text: value.bytes }, checks: checkList(fields.checks, catalogue) };
  }
  if (typeof value !== 'string') throw invalid(`${name} must be a string.`, name);
  const checks = checkList(fields.checks, catalogue);
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

function checkList(value: unknown, catalogue: CatalogueName): DetectorId[] {
  if (value === undefined) return resolveChecks(undefined, catalogue);
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw invalid('checks must be an array of detector ids (strings).', 'checks');
  }
  return resolveChecksOr400(value as string[], catalogue);
}

function resolveChecksOr400(ids: string[] | undefined, catalogue: CatalogueName): DetectorId[] {
  try {
    return resolveChecks(ids, catalogue);
  } catch (err) {
    if (err instanceof CheckSelectionError) throw invalid(err.message, 'checks');
    throw err;
  }
}

function mediaSource(value: string, checks: DetectorId[]): DetectInput {
  return fromDecoded(decodeBase64Media(value), checks);
}

/** The input a decoded (or refused) inline `media` value makes. */
export function fromDecoded(decoded: DecodedMedia, checks: DetectorId[], lease?: Lease): DetectInput {
  const inLease = lease !== undefined && 'bytes' in decoded && decoded.bytes.buffer === lease.buffer.buffer;
  if (!inLease) lease?.release();
  if ('invalid' in decoded) throw invalid('media is not valid base64 (standard or URL-safe alphabet).', 'media');
  if ('tooLarge' in decoded) return { source: { kind: 'oversize', param: 'media' }, checks };
  if (decoded.bytes.length === 0) {
    if (inLease) lease!.release();
    throw invalid('media is empty: it decodes to zero bytes.', 'media');
  }
  return { source: { kind: 'file', bytes: decoded.bytes, ...(inLease ? { lease } : {}) }, checks };
}

/** Reads a multipart detect body: file part `file`, optional `checks` fields (CONTRACT). */
export async function readMultipartDetect(request: FastifyRequest, catalogue: CatalogueName = 'full'): Promise<DetectInput> {
  let bytes: Buffer | undefined;
  let checks: string[] | undefined;
  // busboy may pass one byte over the limit, so the cap below fires at once instead of busboy
  // silently truncating and draining the rest of the body.
  const parts = request.parts({
    limits: { fileSize: INLINE_MAX_BYTES + 1, files: 1, fields: 32, parts: 33, fieldSize: 64 * 1024 },
  });
  const closed = watchClosingDelimiter(request);
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
  if (bytes.length === 0) throw invalid('The file part is empty (zero bytes).', 'file');
  const input: DetectInput = { source: { kind: 'file', bytes }, checks: resolveChecksOr400(checks, catalogue) };
  // No call is reserved for a request whose client has not sent all of it (body-end.ts), or
  // whose form stops without its closing boundary (multipart-end.ts).
  await bodyEnd(request.raw);
  closed();
  return input;
}

