// Every error on every route leaves as the CONTRACT body. Fastify's and its plugins' own errors
// (body too large, bad JSON, multipart trouble, unknown routes) are translated here, and a
// defect becomes a 500 whose body never carries a stack trace.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, INTERNAL_ERROR_MESSAGE } from '../contract/errors.js';
import type { ErrorType } from '../contract/api-types.js';
import { StoreUnavailableError } from '../store/store.js';
import { requestPath } from './request-path.js';

/**
 * An error of the daemon's own making rather than of the body it read: a system call's (ENOSPC,
 * EIO, EROFS: an errno name, with errno and syscall), a database's (a five-character SQLSTATE),
 * or a defect (TypeError...). busboy's parse errors are plain Errors without a code, and a
 * stream the client cut short is Node's ERR_STREAM_PREMATURE_CLOSE: both stay the client's 400.
 */
function isServerFailure(err: Error): boolean {
  const e = err as Error & { code?: unknown; errno?: unknown; syscall?: unknown };
  if (e.errno !== undefined || e.syscall !== undefined) return true;
  if (typeof e.code === 'string' && (/^E[A-Z]+$/.test(e.code) || /^[0-9A-Z]{5}$/.test(e.code))) return true;
  return err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError;
}

function translate(err: FastifyError, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  // No route matched: whatever went wrong with the body, the answer is that nothing is here
  // (fastify parses the body of a request to an unknown route before its 404 handler runs).
  if (request.is404) return new ApiError('not_found', 'Not found.');
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
  if (err instanceof StoreUnavailableError) {
    // Not a defect, but nothing the client did either: the CONTRACT's 500, worded for a retry,
    // whatever the body's format (its message, which names the database, stays in the log).
    return new ApiError('internal_error', 'The daemon could not reach its store (the database); retry shortly.');
  }
  // busboy's parse errors ("Unexpected end of form", "Malformed part header", ...) carry no code.
  // A failure of the daemon's own (a disk's errno, a database's SQLSTATE, a defect) while a
  // multipart body was read is not the client's: it falls through to the 500 below.
  if (request.headers['content-type']?.toLowerCase().startsWith('multipart/') && !err.statusCode && !isServerFailure(err)) {
    return new ApiError('invalid_request', `The multipart body could not be read: ${err.message}.`);
  }
  const status = err.statusCode ?? 500;
  if (status === 400) return new ApiError('invalid_request', 'The request could not be read.');
  if (status === 404) return new ApiError('not_found', 'Not found.');
  if (status === 413) return new ApiError('media_too_large', config.tooLarge ?? 'The request body is too large.');
  if (status === 415) return new ApiError('unsupported_content_type', config.unsupported ?? 'Unsupported Content-Type.');
  if (status === 503) return new ApiError('service_unavailable', 'The daemon is shutting down; retry shortly.');
  return new ApiError('internal_error', INTERNAL_ERROR_MESSAGE);
}

/** A status's CONTRACT type, for an error that reached a serializer without an ApiError. */
function typeForStatus(status: number): ErrorType {
  if (status === 400) return 'invalid_request';
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found';
  if (status === 413) return 'media_too_large';
  if (status === 415) return 'unsupported_content_type';
  if (status === 503) return 'service_unavailable';
  return 'internal_error';
}

/**
 * The serializer of every route's responses. fastify's last resort, for an error raised after
 * the error handler below had already answered (by an onSend hook, say), serialises
 * `Object.create(error, { message, statusCode, ... })` with the route's serializer; under plain
 * JSON.stringify those fields are not enumerable and the body would be `{}`. An Error that
 * reaches a serializer leaves as the CONTRACT body instead.
 */
export function serializeResponse(data: unknown): string {
  if (!(data instanceof Error)) return jsonText(data);
  if (data instanceof ApiError) return jsonText(data.body());
  const status = Number((data as { statusCode?: unknown }).statusCode) || 500;
  const type = typeForStatus(status);
  const message = type === 'internal_error' ? INTERNAL_ERROR_MESSAGE : 'The request could not be served; see the daemon log.';
  return jsonText({ error: { type, message } });
}

/**
 * Characters JSON.stringify leaves raw that a terminal or an editor acts on: DEL and the C1
 * controls (U+009B is a CSI, as ESC [ is), format characters (bidi overrides and isolates,
 * zero-width ones, BOM) and the line and paragraph separators. JSON.stringify escapes only C0.
 */
const RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;
const escapeUnits = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * JSON.stringify, with every such character written as a \u escape: an answer that repeats what a
 * client sent (an unknown check id, a key id, a multipart field's name) never carries it raw.
 * Outside strings JSON text is ASCII, so only string contents change; the value parses the same.
 */
export function jsonText(data: unknown): string {
  const text = JSON.stringify(data);
  return text === undefined ? text : text.replace(RAW_UNSAFE, escapeUnits);
}

/**
 * fastify's `frameworkErrors`: a path its router cannot read answers before any route or hook,
 * and by default in fastify's own JSON shape (and a 414 for a long parameter). Here it is the
 * CONTRACT body instead: 400 for a path that does not decode (a broken percent-escape), and
 * 404 for a route parameter over fastify's 100 characters (no key or upload id is that long).
 * No hook runs for it, so the headers every answer carries are set here.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const error =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ApiError('not_found', 'Not found.')
      : new ApiError('invalid_request', 'The request path cannot be read (a broken percent-escape?).');
  // The body, if any, was not read: the same close as for any error sent before it (below).
  if (!request.raw.complete) {
    reply.header('connection', 'close');
    lingerThenClose(request.raw.socket);
  }
  reply
    .code(error.statusCode)
    .header('x-content-type-options', 'nosniff')
    .header('request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(error.body()));
}

export function installErrorHandling(app: FastifyInstance): void {
  // Responses are serialised as they are (the detection result may carry additive fields a
  // response schema would strip); schemas only document the API.
  app.setSerializerCompiler(() => serializeResponse);
  // And the routes without a response schema (the admin endpoint, the 404 handler), which fastify
  // otherwise serialises with plain JSON.stringify.
  app.setReplySerializer((payload) => serializeResponse(payload));
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = translate(err, request);
    if (err instanceof StoreUnavailableError) request.storeDown = true;
    if (apiError.type === 'internal_error') request.log.error({ err }, 'internal error');
    if (apiError.type === 'authentication_error') reply.header('www-authenticate', 'Bearer');
    if (apiError.retryAfter !== undefined) reply.header('retry-after', String(apiError.retryAfter));
    return reply.code(apiError.statusCode).type('application/json; charset=utf-8').send(apiError.body());
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = requestPath(request.url);
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
