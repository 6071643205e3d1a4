// POST /v1/detect. Order of checks exactly as CONTRACT: authenticate -> burst limit (both
// onRequest, before the body is read) -> validate body -> reserve one call -> load media ->
// run checks. Every response with an authenticated key carries the quota and burst headers.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateHook, burstHook } from '../auth-hooks.js';
import { forcedAnswerHook } from '../test-hooks.js';
import { FORCED_ALL } from '../../testing/forced-answers.js';
import type { Base64Outcome } from '../../../engine/base64-media.js';
import { fromDecoded, parseJsonDetect, readMultipartDetect, type DetectInput } from '../../media/detect-input.js';
import { ApiError, INTERNAL_ERROR_MESSAGE } from '../../contract/errors.js';
import { StoreUnavailableError } from '../../store/store.js';
import { parseDetectJson, RawBase64 } from '../../media/json-body.js';
import { readPooledBody } from '../pooled-body.js';
import { DownloadError, fetchMedia } from '../../media/fetch-media.js';
import { DETECT_JSON_MAX_BODY, DETECT_MULTIPART_MAX_BODY, INLINE_MAX_BYTES, REMOTE_MAX_BYTES, SMALL_BODY, tooLargeMessage } from '../../contract/limits.js';
import type { MediaHold } from '../../media/media-budget.js';
import { pixelReservation } from '../../../engine/pixel-reservation.js';
import { holdMedia } from '../media-hold.js';
import { DetectTimeoutError } from '../../media/detect-pool.js';
import { keepTimedOutCall } from '../detect-timeout.js';
import { limitsOf } from '../../accounts/plans.js';
import { isoSeconds } from '../../contract/time.js';
import {
  detectionResultSchema,
  detectJsonBodySchema,
  detectMultipartBodySchema,
  errorResponse,
  limitHeaders,
  retryAfterHeader,
  testResponseHeaders,
  unauthorizedHeaders,
} from './schemas.js';


/** What a detection answers for a JPEG with camera EXIF and no C2PA manifest. */
const DETECTION_EXAMPLE = {
  id: 'chk_9SLa0hGmTq2bXv7Nw3Ke1pZr',
  media: { type: 'image/jpeg', bytes: 482113, sha256: 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a' },
  matches: [
    { check: 'c2pa', result: 'not_found', confidence: 1 },
    { check: 'camera_reference', result: 'found', confidence: 0.6, claims: { make: 'Canon', model: 'Canon EOS R5' } },
  ],
  checks_run: ['c2pa', 'camera_reference'],
  duration_ms: 41,
};

export async function detectRoute(app: FastifyInstance): Promise<void> {
  const services = app.services;
  const { quota, store, pool, mediaBudget } = services;
  const { body: bodyBuffers, media: mediaBuffers } = services.buffers;
  app.decorateRequest('bodyLease', null);
  app.decorateRequest('mediaHold', null);

  const takeMedia = (request: FastifyRequest, bytes: number, holding?: MediaHold | null) => holdMedia(mediaBudget, request, bytes, holding);

  /**
   * Writes X-Quota-* and RateLimit-* on every response of an authenticated request. This hook
   * must never throw: an onSend error would bypass the error handler's CONTRACT body (fastify's
   * fallback answers a 500 in its own shape). A 200 knows its count from its reservation; any
   * other answer reads the usage from the store, and while the store is unreachable that
   * answer goes out without X-Quota-* headers rather than as a non-CONTRACT 500. When the store
   * already failed this request, it is not asked again (the 500 would wait out a second timeout).
   */
  async function limitHeadersHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.auth) return;
    const held = request.reservation && !request.reservation.released ? request.reservation.used : undefined;
    let q: Awaited<ReturnType<typeof quota.state>> | undefined;
    if (held !== undefined || !request.storeDown) {
      try {
        q = await quota.state(request.auth.account, held);
      } catch (err) {
        request.log.warn({ err }, 'quota headers left out: the usage could not be read');
      }
    }
    if (q) {
      reply.header('x-quota-limit', String(q.limit));
      reply.header('x-quota-used', String(q.used));
      reply.header('x-quota-remaining', String(q.remaining));
      reply.header('x-quota-reset', isoSeconds(q.reset));
    }
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
        const missing = () => new ApiError('not_found', `No upload ${source.id.slice(0, 64)} for this account; uploads expire after a day.`, 'upload');
        const record = await services.uploads.find(source.id, request.auth!.account.id);
        if (!record) throw missing();
        // Its size from its record, so the budget is taken before the file is read into memory.
        request.mediaHold = await takeMedia(request, record.bytes);
        const bytes = await services.uploads.readBytes(record);
        if (!bytes) throw missing();
        // New uploads are never empty (POST /v1/uploads refuses zero bytes); this covers a file
        // emptied on disk since. A 400 from the load step: the reservation is given back below.
        if (bytes.length === 0) throw new ApiError('invalid_request', `The upload ${source.id.slice(0, 64)} is empty (zero bytes).`, 'upload');
        return bytes;
      }
      case 'url': {
        // Taken before the download starts (a download that started keeps its call spent, so a
        // 503 must come first): the 25 MB cap, since the size is not known yet. Once the answer
        // declares its Content-Length the rest goes back, so small files do not wait on the cap;
        // a body without one keeps the cap until it is read. Reserving as bytes stream in instead
        // would let every download start and then stall halfway, each holding part of a file.
        const hold = await takeMedia(request, REMOTE_MAX_BYTES);
        request.mediaHold = hold;
        const bytes = await fetchMedia(source.url, {
          allowPrivate: services.allowPrivateUrls,
          resolver: services.resolver,
          addressPolicy: services.addressPolicy,
          timeoutMs: services.downloadTimeoutMs,
          onDeclaredLength: (declared) => hold.shrink(declared),
        });
        hold.shrink(bytes.length);
        return bytes;
      }
    }
  }

  // This plugin's own JSON parser (fastify keeps parsers per plugin context): see json-body.ts.
  // The body arrives in a pooled buffer (buffer-pool.ts), which the parsed object may still
  // point into (a large `media` value) until the handler has decoded it.
  // Without fastify's default text/plain parser a text body is refused as fastify refuses any
  // other type: 415 unsupported_content_type (CONTRACT), not a 400 about the JSON shape.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: IncomingMessage) => {
    // A body that may carry a file takes its length (or the largest allowed) from the media budget
    // before it is read; the hold then covers the file decoded from it until the answer. A small
    // body (a url or an upload id) holds no file and does not queue behind those that do; one
    // declared over the limit is refused unread by readPooledBody.
    const declared = Number(request.headers['content-length'] ?? NaN);
    const mayHoldFile = !(declared <= SMALL_BODY) && !(declared > DETECT_JSON_MAX_BODY);
    const hold = mayHoldFile ? await takeMedia(request, Number.isNaN(declared) ? DETECT_JSON_MAX_BODY : declared) : undefined;
    let body: Awaited<ReturnType<typeof readPooledBody>>;
    try {
      body = await readPooledBody(payload, request.headers['content-length'], DETECT_JSON_MAX_BODY, bodyBuffers);
    } catch (err) {
      hold?.release();
      throw err;
    }
    if (body.bytes.length === 0) {
      body.lease.release();
      hold?.release();
      throw new ApiError('invalid_request', 'The JSON body is empty.');
    }
    let parsed: unknown;
    try {
      parsed = parseDetectJson(body.bytes);
    } catch {
      body.lease.release();
      hold?.release();
      throw new ApiError('invalid_request', 'The body is not valid JSON.');
    }
    if (parsed !== null && typeof parsed === 'object' && (parsed as { media?: unknown }).media instanceof RawBase64) {
      request.bodyLease = body.lease;
      request.mediaHold = hold ?? null;
    } else {
      body.lease.release();
      hold?.release();
    }
    return parsed;
  });
  /** The handler releases the body and its hold; this covers a request that never got there. */
  async function releaseBody(request: FastifyRequest): Promise<void> {
    request.bodyLease?.release();
    request.mediaHold?.release();
  }

  app.post(
    '/v1/detect',
    {
      bodyLimit: DETECT_JSON_MAX_BODY,
      config: {
        tooLarge: tooLargeMessage(INLINE_MAX_BYTES, 'media'),
        unsupported: 'POST /v1/detect takes application/json or multipart/form-data.',
        forcedAfterAuth: true,
        forcedAnswers: FORCED_ALL,
      },
      onRequest: [authenticateHook(services), burstHook(services), forcedAnswerHook(services)],
      preParsing: multipartLength,
      onSend: limitHeadersHook,
      onResponse: releaseBody,
      schema: {
        operationId: 'detect',
        summary: 'Run detectors on one file',
        description:
          'Costs one API call. Media from exactly one of: url (25 MB, 15 s), media (base64, 4 MB), upload (id from POST /v1/uploads, 25 MB), or a multipart part named file (4 MB). 1 MB = 1,048,576 bytes. The daemon holds a bounded amount of media in memory at once (operator setting): a request that finds no room within its wait is refused with 503 server_busy and Retry-After, and is not counted. A file whose checks run past the daemon\'s time limit per file (operator setting, default 60 s) is answered 413 media_too_large and is counted; one account\'s detects take at most every worker but one while others wait.',
        tags: ['detection'],
        security: [{ bearerAuth: [] }],
        headers: testResponseHeaders(FORCED_ALL),
        body: {
          content: {
            'application/json': {
              // @fastify/swagger moves x-examples to the media type's `examples`.
              schema: {
                ...detectJsonBodySchema,
                'x-examples': {
                  url: { summary: 'A public URL', value: { url: 'https://example.com/photo.jpg' } },
                  upload: { summary: 'An earlier upload, two detectors', value: { upload: 'upl_4f9c2a7e1b8d3c6a5e0f2b1d', checks: ['c2pa', 'camera_reference'] } },
                },
              },
            },
            'multipart/form-data': { schema: detectMultipartBodySchema },
          },
        },
        response: {
          200: {
            description: 'Detection result',
            headers: limitHeaders,
            content: { 'application/json': { schema: detectionResultSchema, example: DETECTION_EXAMPLE } },
          },
          400: errorResponse('invalid_request', { invalid_request: { message: 'Send exactly one of url, media or upload.' } }, limitHeaders),
          401: errorResponse('authentication_error', { authentication_error: { message: 'No API key was sent. Send your API key in the header "Authorization: Bearer <API_KEY>".' } }, unauthorizedHeaders),
          404: errorResponse('not_found (upload)', { not_found: { message: 'No upload upl_x for this account; uploads expire after a day.', param: 'upload' } }, limitHeaders),
          413: errorResponse("media_too_large: the file is over its source's limit (not counted, except a url), or its checks ran past the daemon's time limit per file (--detect-timeout; counted)", { media_too_large: { message: 'The file is larger than the 4 MB limit for media (1 MB = 1,048,576 bytes).', param: 'media' } }, limitHeaders),
          415: errorResponse('unsupported_content_type', { unsupported_content_type: { message: 'POST /v1/detect takes application/json or multipart/form-data.' } }, limitHeaders),
          422: errorResponse('download_failed', { download_failed: { message: 'The URL answered HTTP 404, not a file.', param: 'url' } }, limitHeaders),
          429: errorResponse(
            'quota_exceeded or rate_limited; Retry-After',
            {
              quota_exceeded: { message: 'The account has used all 500 API calls of this month; the quota resets at 2026-12-01T00:00:00Z.' },
              rate_limited: { message: "This key made 10 requests in the last 60 seconds, its plan's burst limit; retry in 12 seconds." },
            },
            { ...limitHeaders, 'Retry-After': retryAfterHeader },
          ),
          500: errorResponse('internal_error', { internal_error: { message: INTERNAL_ERROR_MESSAGE } }, limitHeaders),
          503: errorResponse(
            "server_busy: the daemon's memory for media stayed full for longer than a request may wait; a call it had reserved is given back; Retry-After",
            { server_busy: { message: "The daemon's memory for media (256 MiB) stayed full for 10 seconds; retry in 10 seconds." } },
            { ...limitHeaders, 'Retry-After': retryAfterHeader },
          ),
        },
      },
    },
    async (request) => {
      let input: DetectInput;
      try {
        const { catalogue } = app.services;
        if (request.isMultipart()) {
          // The body is still unread: its declared length (multipartLength refused one over the
          // limit), or the largest allowed, is taken before busboy reads the file part.
          const declared = Number(request.headers['content-length'] ?? NaN);
          request.mediaHold = await takeMedia(request, Number.isNaN(declared) ? DETECT_MULTIPART_MAX_BODY : declared);
          input = await readMultipartDetect(request, catalogue);
        } else {
          input = await decodeInline(parseJsonDetect(request.body, catalogue));
        }
      } catch (err) {
        request.mediaHold?.release();
        throw err;
      } finally {
        request.bodyLease?.release();
      }
      const lease = input.source.kind === 'file' ? input.source.lease : undefined;
      try {
        return await run(request, input);
      } finally {
        lease?.release();
        request.mediaHold?.release();
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

  /** The request's field that carried the media, for an answer about the file itself. */
  function sourceParam(request: FastifyRequest, input: DetectInput): string {
    if (input.source.kind === 'url' || input.source.kind === 'upload') return input.source.kind;
    return request.isMultipart() ? 'file' : 'media';
  }

  /** Reserve one call -> load media -> run checks (CONTRACT's order after validation). */
  async function run(request: FastifyRequest, input: DetectInput) {
    const reservation = await quota.reserve(request.auth!.account);
    request.reservation = reservation;
    let bytes: Uint8Array;
    try {
      bytes = await loadMedia(input, request);
    } catch (err) {
      if (err instanceof DownloadError) {
        // SPEC 8.1 rule 3: the download step was reached, so the call stays spent, once it is
        // on disk; should that write fail, the answer is a 500 and the call is given back.
        try {
          await store.commit();
        } catch (writeError) {
          await quota.release(reservation);
          store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
          throw writeError;
        }
        throw err.kind === 'too_large'
          ? new ApiError('media_too_large', err.message, 'url')
          : new ApiError('download_failed', err.message, 'url');
      }
      // The request itself made the media unloadable (oversize inline file, unknown upload), or
      // the store did not answer while the upload was read: the call is given back. A database
      // that did not answer is not waited for a second time (the 500 would come only after two
      // timeouts): then the release goes on behind the answer.
      if (err instanceof StoreUnavailableError) {
        void quota
          .release(reservation)
          .then(() => store.commit())
          .catch((e) => request.log.error({ err: e }, 'store write failed'));
        throw err;
      }
      await quota.release(reservation);
      store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
      throw err;
    }
    let pixels: MediaHold | undefined;
    const account = request.auth!.account.id;
    // Read now: on a worker the bytes are moved there, and the view is empty after the check.
    const size = bytes.length;
    try {
      // The pixels the checks may decode count in the budget too, taken from the header before
      // the file goes to a worker (engine/pixel-reservation.ts); a 503 gives the call back.
      const decoded = pixelReservation(bytes, input.checks);
      if (decoded > 0) pixels = await takeMedia(request, decoded, request.mediaHold ?? null);
      const result = await pool.detect(bytes, input.checks, { account });
      // The counted call is on disk before its 200 leaves.
      await store.commit();
      return result;
    } catch (err) {
      if (err instanceof DetectTimeoutError) {
        await keepTimedOutCall(err, { log: request.log, store, account, bytes: size, param: sourceParam(request, input), giveBack: () => quota.release(reservation) });
      }
      await quota.release(reservation);
      store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
      throw err;
    } finally {
      pixels?.release();
    }
  }
}
