// One JSON log line per request (issue 27), written by a fastify LogController in place of
// fastify's own two ("incoming request", "request completed"): the request id (the Request-Id
// header's, as `reqId`), the route's pattern (never the URL: a query string may hold a key or a
// sign-in token), method, status, duration, the account that acted (its `acct_` id, never its
// key, session or address) and the body bytes in and out. The LogController class comes from the
// fastify module the app imported dynamically (app.ts), so this file loads no package itself.
import type { FastifyReply, FastifyRequest, LogController } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account a signed-in page request acted for (dashboard, Verify): the log's account_id. */
    sessionAccountId: string | null;
  }
}

/** The request line's fields, as written (the tests and docs/DAEMON.md name them). */
export interface RequestLine {
  reqId: string;
  route: string | null;
  method: string;
  status: number;
  duration_ms: number;
  account_id: string | null;
  bytes_in: number;
  bytes_out: number;
}

/** Per request: body bytes as they arrive (a body without Content-Length) and as they leave. */
const counted = new WeakMap<object, { in: number; out: number }>();

/** Chunks the stream API takes: strings (in `encoding`), Buffers, typed arrays. */
function sizeOf(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/** Counts the body bytes Node's parser hands the request and the bytes the reply writes. */
function countBytes(request: FastifyRequest, reply: FastifyReply): void {
  const bytes = { in: 0, out: 0 };
  counted.set(request, bytes);
  const raw = request.raw;
  // Only a body without a declared length needs counting: Node's parser pushes each decoded
  // chunk into the request, whoever reads it later (JSON, multipart, a raw upload).
  if (raw.headers['content-length'] === undefined && raw.headers['transfer-encoding'] !== undefined) {
    const push = raw.push;
    raw.push = function countedPush(chunk: unknown, encoding?: BufferEncoding) {
      bytes.in += sizeOf(chunk, encoding);
      return push.call(this, chunk, encoding);
    };
  }
  // Bodies leave through write and end, also when a stream is piped in (docs assets, uploads):
  // counting them is exact where a Content-Length header would not exist (chunked answers).
  const res = reply.raw;
  const write = res.write;
  const end = res.end;
  res.write = function countedWrite(this: typeof res, chunk: unknown, ...rest: unknown[]) {
    bytes.out += sizeOf(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function countedEnd(this: typeof res, ...args: unknown[]) {
    const [chunk, encoding] = args;
    if (typeof chunk !== 'function') bytes.out += sizeOf(chunk, encoding);
    return (end as (...a: unknown[]) => typeof res).apply(this, args);
  } as typeof res.end;
}

/** The declared Content-Length when it is a plain number, else undefined. */
function declaredLength(value: string | string[] | undefined): number | undefined {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** The request line of a finished request (exported for the tests of its wording). */
export function requestLine(request: FastifyRequest, reply: FastifyReply): RequestLine {
  const bytes = counted.get(request) ?? { in: 0, out: 0 };
  return {
    reqId: request.id,
    // The pattern (`/dashboard/keys/:id/revoke`); null when no route matched (a 404), whose URL
    // is not logged: it is the client's text, which may hold anything.
    route: request.routeOptions?.url ?? null,
    method: request.method,
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 100) / 100,
    account_id: request.auth?.account.id ?? request.sessionAccountId ?? null,
    bytes_in: declaredLength(request.headers['content-length']) ?? bytes.in,
    bytes_out: bytes.out,
  };
}

/** The app's LogController: one line per request, nothing logged from a raw URL. */
export function requestLogController(Base: typeof LogController): LogController {
  class RequestLogController extends Base {
    override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
      countBytes(request, reply);
    }

    override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
      const line = requestLine(request, reply);
      // The request line's `reqId` is the child logger's own binding (fastify's requestIdLogLabel).
      const { reqId: _bound, ...fields } = line;
      // The error goes through the logger's `err` serializer, which scrubs it (log-scrub.ts).
      if (error) request.log.error({ ...fields, err: error }, 'request completed');
      else request.log.info(fields, 'request completed');
    }

    // fastify's "Route GET:/x?token=... not found" would log the raw URL with its query string:
    // the request line already says 404 with no route.
    override routeNotFound(): void {}
  }
  return new RequestLogController();
}
