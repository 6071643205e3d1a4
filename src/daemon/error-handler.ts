// Every error on every route leaves as the CONTRACT body. Fastify's and its plugins' own errors
// (body too large, bad JSON, multipart trouble, unknown routes) are translated here, and a
// defect becomes a 500 whose body never carries a stack trace.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

function translate(err: FastifyError, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const config = request.routeOptions?.config ?? {};
  const code = err.code ?? '';
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('media_too_large', config.tooLarge ?? 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError('unsupported_content_type', config.unsupported ?? 'This route does not accept that Content-Type.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The body does not match its Content-Length.');
    case 'FST_FILES_LIMIT':
      return new ApiError('invalid_request', 'Send one file per request, in the part named file.', 'file');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
      return new ApiError('invalid_request', `The multipart body is not acceptable: ${err.message}.`);
  }
  if (err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  // busboy's parse errors ("Unexpected end of form", "Malformed part header", ...) carry no code.
  if (request.headers['content-type']?.toLowerCase().startsWith('multipart/') && !err.statusCode) {
    return new ApiError('invalid_request', `The multipart body could not be read: ${err.message}.`);
  }
  const status = err.statusCode ?? 500;
  if (status === 400) return new ApiError('invalid_request', 'The request could not be read.');
  if (status === 404) return new ApiError('not_found', 'Not found.');
  if (status === 413) return new ApiError('media_too_large', config.tooLarge ?? 'The request body is too large.');
  if (status === 415) return new ApiError('unsupported_content_type', config.unsupported ?? 'Unsupported Content-Type.');
  if (status === 503) return new ApiError('service_unavailable', 'The daemon is shutting down; retry shortly.');
  return new ApiError('internal_error', 'The daemon failed on this request; this is a defect. The log has the details.');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = translate(err, request);
    if (apiError.type === 'internal_error') request.log.error({ err }, 'internal error');
    if (apiError.type === 'authentication_error') reply.header('www-authenticate', 'Bearer');
    if (apiError.retryAfter !== undefined) reply.header('retry-after', String(apiError.retryAfter));
    return reply.code(apiError.statusCode).type('application/json; charset=utf-8').send(apiError.body());
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const error = new ApiError('not_found', `There is no route ${request.method} ${path}; see /docs for the API.`);
    return reply.code(404).send(error.body());
  });

  // An error sent before the body was read (401, 413 by Content-Length, 415): tell the client
  // to stop (Connection: close) and linger rather than slam the socket shut. A socket closed
  // while the client is still sending answers its next bytes with a TCP reset, and a reset can
  // make the client's kernel drop our response before the client reads it. So: send the
  // response, half-close, discard (never buffer) whatever still arrives, and cut the
  // connection after a short bound.
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode >= 400 && !request.raw.complete) {
      reply.header('connection', 'close');
      lingerThenClose(request.raw.socket);
    }
  });
}

const LINGER_MS = 2000;

function lingerThenClose(socket: Socket | null): void {
  if (!socket || (socket as Socket & { lingering?: boolean }).lingering) return;
  (socket as Socket & { lingering?: boolean }).lingering = true;
  // node's HTTP server calls destroySoon() once a `Connection: close` response is written; by
  // then it has also started discarding the rest of the request body (req._dump).
  socket.destroySoon = function destroySoonAfterLinger(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
