// POST /v1/uploads (CONTRACT "Keys, accounts, uploads"): needs a key, free, no quota or burst.
// Raw bytes (any Content-Type but JSON or multipart) or a multipart part `file`, streamed to
// disk with the 25 MB cap enforced while streaming. Registered in its own plugin context so its
// catch-all body parser does not leak to other routes.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateHook } from '../auth.js';
import { ApiError, invalid } from '../errors.js';
import { REMOTE_MAX_BYTES, tooLargeMessage, UPLOAD_MULTIPART_MAX_BODY, UPLOAD_RAW_MAX_BODY } from '../limits.js';
import { errorSchema, uploadRecordSchema } from './schemas.js';

const UNSUPPORTED = 'POST /v1/uploads takes the file as raw bytes (any Content-Type but JSON) or as multipart/form-data with a part named file.';
const EMPTY = 'The upload is empty: send the file as the request body, or as a multipart part named file.';

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
      config: { tooLarge: tooLargeMessage(REMOTE_MAX_BYTES, 'upload'), unsupported: UNSUPPORTED },
      onRequest: authenticateHook(services),
      preParsing: lengthCheck,
      schema: {
        summary: 'Upload a file for later detection',
        description:
          'Free: no quota, no burst limit. Raw bytes or multipart part file, up to 25 MB (1 MB = 1,048,576 bytes). The upload lives 24 hours and only its own account can use it, as {"upload": "upl_..."} in POST /v1/detect.',
        tags: ['uploads'],
        security: [{ bearerAuth: [] }],
        consumes: ['application/octet-stream', 'multipart/form-data'],
        response: {
          201: { ...uploadRecordSchema, description: 'Upload record' },
          400: { ...errorSchema, description: 'invalid_request' },
          401: { ...errorSchema, description: 'authentication_error' },
          413: { ...errorSchema, description: 'media_too_large' },
          415: { ...errorSchema, description: 'unsupported_content_type' },
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.account.id;
      let stream: Readable;
      if (request.isMultipart()) {
        // One byte over the cap reaches the meter in Uploads.save, which stops the stream at once.
        const part = await request.file({ limits: { fileSize: REMOTE_MAX_BYTES + 1, files: 1, fields: 16 } });
        if (!part) throw invalid(`No file part. ${UNSUPPORTED}`, 'file');
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw invalid(`Unexpected file part "${part.fieldname}"; name it file.`, part.fieldname);
        }
        stream = part.file;
      } else {
        if (request.body === undefined) throw invalid(EMPTY);
        stream = request.body as Readable;
      }
      const record = await services.uploads.save(accountId, stream, REMOTE_MAX_BYTES, EMPTY);
      return reply.code(201).send(record);
    },
  );
}
