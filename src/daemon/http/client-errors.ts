// What the daemon answers when Node's HTTP parser refuses a request before fastify sees it
// (headers too large, a malformed request line or chunk, a slow client past its bound): the
// contract's error body, never Node's bare status line or fastify's own JSON shape, so that a
// client reads every refusal the same way. The connection is closed after it: the parser's state
// cannot be trusted for a next request.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../contract/errors.js';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../contract/limits.js';

interface ParserError extends Error {
  code?: string;
}

const HEADERS_LIMIT_KB = 16;

function answerFor(err: ParserError): { status: number; reason: string; error: ApiError } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        error: new ApiError('invalid_request', `The request's headers are larger than ${HEADERS_LIMIT_KB} KB.`),
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        error: new ApiError('invalid_request', `The request did not arrive in time (headers within ${HEADERS_TIMEOUT_MS / 1000} s, the whole request within ${REQUEST_TIMEOUT_MS / 1000} s).`),
      };
    default:
      return { status: 400, reason: 'Bad Request', error: new ApiError('invalid_request', 'The request is not valid HTTP/1.1.') };
  }
}

/** How long the answer of a whole request before the unreadable bytes may take before the 400 goes anyway. */
const IN_FLIGHT_WAIT_MS = 10_000;

/** fastify's `clientErrorHandler`. */
export function clientErrorHandler(err: ParserError, socket: Socket): void {
  // A reset or a half-closed socket has nobody left to answer.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // What the client is still sending (a body behind headers that were refused) is read and
  // dropped for up to 2 s: closing with unread data makes the kernel reset the connection, and
  // the client would lose the answer.
  // (Node's parser, which has given up, must not see those bytes: only this listener reads
  // them. On Node 20 resume() alone would read and drop them; on Node 22 a refused request's
  // body was then left unread and the client lost the answer: the fuzz suite, seed 273974853.)
  socket.removeAllListeners('data');
  socket.on('data', () => {});
  socket.resume();
  // The bytes that broke the parser may follow a whole request on the same connection (a body
  // longer than its Content-Length: the rest reads as a next request). That request is being
  // served, and HTTP/1.1 answers in order: its answer goes first, or the client would take this
  // 400 for the answer to a request that was in fact carried out (an upload stored, say).
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished && inFlight.req.complete) {
    // A response emits 'close' on the tick after it finishes, and also when the connection dies
    // first. Should the wait run out before, the refusal goes then; the one on 'close' finds the
    // socket ended and adds nothing.
    const refuseNow = () => {
      clearTimeout(timer);
      refuse(err, socket);
    };
    const timer = setTimeout(refuseNow, IN_FLIGHT_WAIT_MS);
    timer.unref();
    inFlight.once('close', refuseNow);
    return;
  }
  refuse(err, socket);
}

function refuse(err: ParserError, socket: Socket): void {
  // The request before may have ended the connection (Connection: close): nothing more to say.
  if (!socket.writable) {
    setTimeout(() => socket.destroy(), 2_000).unref();
    return;
  }
  const { status, reason, error } = answerFor(err);
  const body = JSON.stringify(error.body());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 2_000).unref();
}
