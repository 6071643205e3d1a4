// Bodies are read as sent: the daemon decodes no Content-Encoding. A compressed body would
// otherwise be parsed as JSON (a confusing 400) or, on POST /v1/uploads, stored compressed and
// checked as if it were the media. So a body with any coding but `identity` is refused with 415
// (RFC 9110 §15.5.16), before it is read, and after authentication (CONTRACT's order of checks:
// a preParsing hook runs after every onRequest hook). A transfer coding other than plain
// `chunked` (`gzip, chunked`) is refused the same way.
//
// `Expect: 100-continue`: Node would answer 100 Continue as soon as the head arrives, before any
// check, inviting an unauthenticated client to send its body. The server's checkContinue event
// is taken over instead (expectContinue), and 100 Continue is sent here, once the request has
// passed authentication, the burst gate and the checks above: a refused request gets its 401 (or
// 429, 415) first and its body is never asked for.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.js';

export async function refuseEncodedBodies(request: FastifyRequest): Promise<void> {
  const coding = request.headers['content-encoding'];
  // fastify reads no body on GET and HEAD: whatever was sent is discarded unread.
  if (request.method === 'GET' || request.method === 'HEAD' || request.is404) return;
  // Node's parser takes any Transfer-Encoding that ends in chunked and removes only the chunking:
  // `gzip, chunked` would be read as if it were not compressed. Only plain chunked is read.
  const transfer = request.headers['transfer-encoding'];
  if (transfer !== undefined && String(transfer).trim().toLowerCase() !== 'chunked') {
    throw new ApiError(
      'unsupported_content_type',
      `The body is sent with Transfer-Encoding "${String(transfer).slice(0, 40)}"; send it uncompressed, with Content-Length or Transfer-Encoding: chunked alone.`,
    );
  }
  if (coding === undefined) return;
  // A request without a body (a GET, or Content-Length: 0) has nothing encoded.
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
  const value = String(coding).trim().toLowerCase();
  if (value === '' || value === 'identity') return;
  throw new ApiError(
    'unsupported_content_type',
    `The body is sent with Content-Encoding "${String(coding).slice(0, 40)}"; send it uncompressed (without Content-Encoding).`,
  );
}

/**
 * Sends `100 Continue` to a client that waits for it, once the request passed every check above
 * (registered as the last global preParsing hook, after refuseEncodedBodies).
 */
export async function continueWhenAccepted(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const expect = request.headers.expect;
  if (typeof expect !== 'string' || expect.trim().toLowerCase() !== '100-continue') return;
  if (request.is404 || reply.raw.headersSent) return;
  reply.raw.writeContinue();
}

/**
 * Takes over Node's automatic `100 Continue` (it answers every `Expect: 100-continue` at once):
 * such a request is served like any other, and continueWhenAccepted sends the 100 later.
 */
export function expectContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
}
