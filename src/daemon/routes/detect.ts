// POST /v1/detect. Order of checks exactly as CONTRACT: authenticate -> burst limit (both
// onRequest, before the body is read) -> validate body -> reserve one call -> load media ->
// run checks. Every response with an authenticated key carries the quota and burst headers.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateHook, burstHook } from '../auth.js';
import type { Base64Outcome } from '../../engine/base64-media.js';
import { fromDecoded, parseJsonDetect, readMultipartDetect, type DetectInput } from '../detect-input.js';
import { ApiError } from '../errors.js';
import { parseDetectJson, RawBase64 } from '../json-body.js';
import { readPooledBody } from '../pooled-body.js';
import { DownloadError, fetchMedia } from '../fetch-media.js';
import { DETECT_JSON_MAX_BODY, DETECT_MULTIPART_MAX_BODY, INLINE_MAX_BYTES, tooLargeMessage } from '../limits.js';
import { limitsOf } from '../plans.js';
import { isoSeconds } from '../time.js';
import { detectionResultSchema, detectJsonBodySchema, detectMultipartBodySchema, errorSchema, limitHeaders } from './schemas.js';

const errorResponse = (description: string) => ({ ...errorSchema, description, headers: limitHeaders });

export async function detectRoute(app: FastifyInstance): Promise<void> {
  const services = app.services;
  const { quota, store, pool } = services;
  const { body: bodyBuffers, media: mediaBuffers } = services.buffers;
  app.decorateRequest('bodyLease', null);

  /** Writes X-Quota-* and RateLimit-* on every response of an authenticated request. */
  async function limitHeadersHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.auth) return;
    const held = request.reservation && !request.reservation.released ? request.reservation.used : undefined;
    const q = quota.state(request.auth.account, held);
    reply.header('x-quota-limit', String(q.limit));
    reply.header('x-quota-used', String(q.used));
    reply.header('x-quota-remaining', String(q.remaining));
    reply.header('x-quota-reset', isoSeconds(q.reset));
    const burst = request.burstState ?? { limit: limitsOf(request.auth.account).requestsPerMinute, remaining: 0, resetSeconds: 0 };
    reply.header('ratelimit-limit', String(burst.limit));
    reply.header('ratelimit-remaining', String(burst.remaining));
    reply.header('ratelimit-reset', String(burst.resetSeconds));
  }

  /** Refuses an oversize multipart body from its Content-Length (JSON is bounded by bodyLimit). */
  async function multipartLength(request: FastifyRequest): Promise<void> {
    const type = request.headers['content-type']?.toLowerCase() ?? '';
    if (type.startsWith('multipart/') && Number(request.headers['content-length']) > DETECT_MULTIPART_MAX_BODY) {
      throw new ApiError('media_too_large', tooLargeMessage(INLINE_MAX_BYTES, 'a multipart file'));
    }
  }

  async function loadMedia(input: DetectInput, request: FastifyRequest): Promise<Uint8Array> {
    const source = input.source;
    switch (source.kind) {
      case 'file':
        return source.bytes;
      case 'base64':
        throw new Error('inline media reached the load step still base64 (decodeInline was skipped)');
      case 'oversize':
        throw new ApiError('media_too_large', tooLargeMessage(INLINE_MAX_BYTES, 'media'), source.param);
      case 'upload': {
        const bytes = await services.uploads.read(source.id, request.auth!.account.id);
        if (!bytes) {
          throw new ApiError('not_found', `No upload ${source.id.slice(0, 64)} for this account; uploads expire after a day.`, 'upload');
        }
        return bytes;
      }
      case 'url':
        return fetchMedia(source.url, {
          allowPrivate: services.allowPrivateUrls,
          resolver: services.resolver,
          addressPolicy: services.addressPolicy,
          timeoutMs: services.downloadTimeoutMs,
        });
    }
  }

  // This plugin's own JSON parser (fastify keeps parsers per plugin context): see json-body.ts.
  // The body arrives in a pooled buffer (buffer-pool.ts), which the parsed object may still
  // point into (a large `media` value) until the handler has decoded it.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: IncomingMessage) => {
    const body = await readPooledBody(payload, request.headers['content-length'], DETECT_JSON_MAX_BODY, bodyBuffers);
    if (body.bytes.length === 0) {
      body.lease.release();
      throw new ApiError('invalid_request', 'The JSON body is empty.');
    }
    let parsed: unknown;
    try {
      parsed = parseDetectJson(body.bytes);
    } catch {
      body.lease.release();
      throw new ApiError('invalid_request', 'The body is not valid JSON.');
    }
    if (parsed !== null && typeof parsed === 'object' && (parsed as { media?: unknown }).media instanceof RawBase64) request.bodyLease = body.lease;
    else body.lease.release();
    return parsed;
  });
  /** The handler releases the body once decoded; this covers a request that never got there. */
  async function releaseBody(request: FastifyRequest): Promise<void> {
    request.bodyLease?.release();
  }

  app.post(
    '/v1/detect',
    {
      bodyLimit: DETECT_JSON_MAX_BODY,
      config: {
        tooLarge: tooLargeMessage(INLINE_MAX_BYTES, 'media'),
        unsupported: 'POST /v1/detect takes application/json or multipart/form-data.',
      },
      onRequest: [authenticateHook(services), burstHook(services)],
      preParsing: multipartLength,
      onSend: limitHeadersHook,
      onResponse: releaseBody,
      schema: {
        summary: 'Run detectors on one file',
        description:
          'Costs one API call. Media from exactly one of: url (25 MB, 15 s), media (base64, 4 MB), upload (id from POST /v1/uploads, 25 MB), or a multipart part named file (4 MB). 1 MB = 1,048,576 bytes.',
        tags: ['detection'],
        security: [{ bearerAuth: [] }],
        body: {
          content: {
            'application/json': { schema: detectJsonBodySchema },
            'multipart/form-data': { schema: detectMultipartBodySchema },
          },
        },
        response: {
          200: { ...detectionResultSchema, description: 'Detection result', headers: limitHeaders },
          400: errorResponse('invalid_request'),
          401: { ...errorSchema, description: 'authentication_error' },
          404: errorResponse('not_found (upload)'),
          413: errorResponse('media_too_large'),
          415: errorResponse('unsupported_content_type'),
          422: errorResponse('download_failed'),
          429: errorResponse('quota_exceeded or rate_limited; Retry-After'),
        },
      },
    },
    async (request) => {
      let input: DetectInput;
      try {
        input = request.isMultipart() ? await readMultipartDetect(request) : await decodeInline(parseJsonDetect(request.body));
      } finally {
        request.bodyLease?.release();
      }
      const lease = input.source.kind === 'file' ? input.source.lease : undefined;
      try {
        return await run(request, input);
      } finally {
        lease?.release();
      }
    },
  );

  /**
   * A large inline `media` arrives still base64, as bytes of the (shared) body buffer: a worker
   * decodes it into a shared media buffer, so the main thread never turns megabytes of text into
   * strings. Still part of validating the body: an invalid value is a 400 before any call is
   * reserved.
   */
  async function decodeInline(input: DetectInput): Promise<DetectInput> {
    if (input.source.kind !== 'base64') return input;
    const lease = mediaBuffers.take();
    let outcome: Base64Outcome;
    try {
      outcome = await pool.decodeBase64(input.source.text, lease.buffer);
    } catch (err) {
      lease.release();
      throw err;
    }
    return fromDecoded('length' in outcome ? { bytes: lease.buffer.subarray(0, outcome.length) } : outcome, input.checks, lease);
  }

  /** Reserve one call -> load media -> run checks (CONTRACT's order after validation). */
  async function run(request: FastifyRequest, input: DetectInput) {
    const reservation = quota.reserve(request.auth!.account);
    request.reservation = reservation;
    let bytes: Uint8Array;
    try {
      bytes = await loadMedia(input, request);
    } catch (err) {
      if (err instanceof DownloadError) {
        // SPEC 8.1 rule 3: the download step was reached, so the call stays spent.
        await store.commit();
        throw err.kind === 'too_large'
          ? new ApiError('media_too_large', err.message, 'url')
          : new ApiError('download_failed', err.message, 'url');
      }
      // The request itself made the media unloadable (oversize inline file, unknown upload).
      quota.release(reservation);
      store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
      throw err;
    }
    try {
      const result = await pool.detect(bytes, input.checks);
      // The counted call is on disk before its 200 leaves.
      await store.commit();
      return result;
    } catch (err) {
      quota.release(reservation);
      store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
      throw err;
    }
  }
}
