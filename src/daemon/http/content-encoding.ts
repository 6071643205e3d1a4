// Bodies are read as sent: the daemon decodes no Content-Encoding. A compressed body would
// otherwise be parsed as JSON (a confusing 400) or, on POST /v1/uploads, stored compressed and
// checked as if it were the media. So a body with any coding but `identity` is refused with 415
// (RFC 9110 §15.5.16), before it is read, and after authentication (CONTRACT's order of checks:
// a preParsing hook runs after every onRequest hook).
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.js';

export async function refuseEncodedBodies(request: FastifyRequest): Promise<void> {
  const coding = request.headers['content-encoding'];
  // fastify reads no body on GET and HEAD: whatever was sent is discarded unread.
  if (coding === undefined || request.method === 'GET' || request.method === 'HEAD' || request.is404) return;
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
