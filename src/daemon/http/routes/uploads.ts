// POST /v1/uploads (CONTRACT "Keys, accounts, uploads"): needs a key, free, no quota or burst.
// Raw bytes (any Content-Type but JSON or multipart) or a multipart part `file`, streamed to
// disk with the 25 MB cap enforced while streaming. Storage is bounded per account (429
// upload_limit_exceeded) and by the disk's free-space floor (503 storage_full), looked at before
// the body is read (media/uploads.ts). Registered in its own plugin context so its catch-all body
// parser does not leak to other routes.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateHook } from '../auth-hooks.js';
import { forcedAnswerHook } from '../test-hooks.js';
import { ApiError, INTERNAL_ERROR_MESSAGE, invalid } from '../../contract/errors.js';
import { FORCED_ANYWHERE } from '../../testing/forced-answers.js';
import { bodyEnd } from '../../media/body-end.js';
import { watchClosingDelimiter } from '../../media/multipart-end.js';
import { REMOTE_MAX_BYTES, tooLargeMessage, UPLOAD_MULTIPART_MAX_BODY, UPLOAD_RAW_MAX_BODY } from '../../contract/limits.js';
import type { ReceivedUpload } from '../../media/uploads.js';
import { errorResponse, requestIdHeader, retryAfterHeader, testResponseHeaders, unauthorizedHeaders, uploadRecordSchema } from './schemas.js';

const UPLOAD_EXAMPLE = {
  id: 'upl_4f9c2a7e1b8d3c6a5e0f2b1d',
  bytes: 482113,
  sha256: 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a',
  type: 'image/jpeg',
  created_at: '2026-11-23T20:00:00.000Z',
  expires_at: '2026-11-24T20:00:00.000Z',
};

const UNSUPPORTED = 'POST /v1/uploads takes the file as raw bytes (any Content-Type but JSON) or as multipart/form-data with a part named file.';
const EMPTY = 'The upload is empty (zero bytes): send the file as the request body, or as a multipart part named file.';
const EMPTY_PART = 'The file part is empty (zero bytes).';

/**
 * What the request says of the file's size before its body is read: a raw body is the file, so
 * its Content-Length is the file's size; a multipart body's is the most the file can be.
 */
function announcedSize(request: FastifyRequest, multipart: boolean): { exact?: number; most?: number } {
  const length = Number(request.headers['content-length'] ?? NaN);
  if (request.headers['transfer-encoding'] !== undefined || !(Number.isSafeInteger(length) && length >= 0)) return {};
  return multipart ? { most: length } : { exact: length };
}

export async function uploadsRoute(app: FastifyInstance): Promise<void> {
  const services = app.services;

  // JSON is refused before a byte of it is read; everything that is not multipart is the file.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', (_request, _payload, done) => {
    done(new ApiError('unsupported_content_type', UNSUPPORTED), undefined);
  });
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  async function lengthCheck(request: FastifyRequest): Promise<void> {
    const multipart = request.headers['content-type']?.toLowerCase().startsWith('multipart/') ?? false;
    const limit = multipart ? UPLOAD_MULTIPART_MAX_BODY : UPLOAD_RAW_MAX_BODY;
    if (Number(request.headers['content-length']) > limit) {
      throw new ApiError('media_too_large', tooLargeMessage(REMOTE_MAX_BYTES, 'upload'));
    }
  }

  app.post(
    '/v1/uploads',
    {
      config: { tooLarge: tooLargeMessage(REMOTE_MAX_BYTES, 'upload'), unsupported: UNSUPPORTED, forcedAfterAuth: true },
      onRequest: [authenticateHook(services), forcedAnswerHook(services)],
      preParsing: lengthCheck,
      schema: {
        operationId: 'createUpload',
        summary: 'Upload a file for later detection',
        description:
          'Free: no quota, no burst limit. Raw bytes or multipart part file, up to 25 MB (1 MB = 1,048,576 bytes). The upload lives 24 hours and only its own account can use it, as {"upload": "upl_..."} in POST /v1/detect. An account keeps at most 100 live uploads and 1 GiB of them (the operator may change both): past either, 429 upload_limit_exceeded until its oldest upload expires. When the daemon\'s disk is nearly full (under its free-space floor), 503 storage_full for every account. Neither stores anything.',
        tags: ['uploads'],
        security: [{ bearerAuth: [] }],
        headers: testResponseHeaders(FORCED_ANYWHERE),
        body: {
          content: {
            'application/octet-stream': { schema: { type: 'string', format: 'binary', description: 'The file itself.' } },
            'multipart/form-data': {
              schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'The file; 25 MB.' } } },
            },
          },
        },
        response: {
          201: {
            description: 'Upload record',
            headers: { 'Request-Id': requestIdHeader },
            content: { 'application/json': { schema: uploadRecordSchema, example: UPLOAD_EXAMPLE } },
          },
          400: errorResponse('invalid_request', { invalid_request: { message: EMPTY } }),
          401: errorResponse('authentication_error', { authentication_error: { message: 'The API key is unknown or has been revoked; create a new key.' } }, unauthorizedHeaders),
          413: errorResponse('media_too_large', { media_too_large: { message: tooLargeMessage(REMOTE_MAX_BYTES, 'upload') } }),
          415: errorResponse('unsupported_content_type', { unsupported_content_type: { message: UNSUPPORTED } }),
          429: errorResponse(
            "upload_limit_exceeded: the account's live uploads are at their count or bytes; Retry-After until its oldest expires",
            {
              upload_limit_exceeded: {
                message: 'This account keeps 100 live uploads, the most it may (100); nothing was stored. Retry in 3600 s, when its oldest upload expires, detect with an upload already made, or send files up to 4 MB inline.',
              },
            },
            { 'Request-Id': requestIdHeader, 'Retry-After': retryAfterHeader },
          ),
          // A disk that fails mid-write (full, read-only) really answers this; nothing is kept.
          500: errorResponse('internal_error', { internal_error: { message: INTERNAL_ERROR_MESSAGE } }),
          503: errorResponse(
            "storage_full: the upload would take the daemon's disk under its free-space floor; Retry-After",
            {
              storage_full: {
                message:
                  "The daemon's disk is nearly full, so it keeps no new uploads for now; nothing was stored. Retry after Retry-After seconds, or send files up to 4 MB inline meanwhile; the daemon's operator can free disk space.",
              },
            },
            { 'Request-Id': requestIdHeader, 'Retry-After': retryAfterHeader },
          ),
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.account.id;
      if (!request.isMultipart()) {
        if (request.body === undefined) throw invalid(EMPTY);
        const upload = await services.uploads.save(accountId, request.body as Readable, { emptyMessage: EMPTY, announced: announcedSize(request, false) });
        return reply.code(201).send(upload);
      }
      // Every part is read, as POST /v1/detect does: a second file is a 400 (not ignored), and
      // the upload is recorded only once the whole body has arrived (body-end.ts): until then
      // its file has no record, so a request refused at its end leaves nothing, not even for a
      // moment. Fields other than the file are ignored. One byte over the cap reaches the meter
      // in Uploads.receive, which stops the stream at once.
      let received: ReceivedUpload | undefined;
      try {
        const parts = request.parts({ limits: { fileSize: REMOTE_MAX_BYTES + 1, files: 1, fields: 16, parts: 17 } });
        const closed = watchClosingDelimiter(request);
        for await (const part of parts) {
          if (part.type !== 'file') continue;
          if (part.fieldname !== 'file') {
            part.file.resume();
            throw invalid(`Unexpected file part "${part.fieldname}"; name it file.`, part.fieldname);
          }
          received = await services.uploads.receive(accountId, part.file, { emptyMessage: EMPTY_PART, emptyParam: 'file', announced: announcedSize(request, true) });
        }
        if (!received) throw invalid(`No file part. ${UNSUPPORTED}`, 'file');
        await bodyEnd(request.raw);
        closed();
      } catch (err) {
        if (received) await services.uploads.drop(received);
        throw err;
      }
      return reply.code(201).send(await services.uploads.keep(received));
    },
  );
}
