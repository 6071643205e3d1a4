// Reads a request body whole into one buffer of its declared length, with fastify's rules for a
// body parsed as a buffer (pooled-body.ts words the same errors): a Content-Length over the limit
// is refused before a byte is read, the limit is enforced as bytes arrive, a body that ends short
// of its Content-Length is refused. Unlike fastify's reader, which keeps the chunks and then
// concatenates them, a body with a Content-Length is copied once into a buffer of that size:
// the bytes a route takes from the media budget for it are the bytes it holds.
import type { Readable } from 'node:stream';
import { fastifyError, streamBody } from './body-stream.js';

/** The status and message of a body-reading error of this module (413 or 400). */
export function bodyErrorStatus(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 413 : code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ? 400 : undefined;
}

/** The declared Content-Length, or NaN when there is none (chunked) or it is not a number. */
export function declaredLength(contentLength: string | undefined): number {
  return contentLength === undefined || !/^\d+$/.test(contentLength) ? NaN : Number(contentLength);
}

export function readWholeBody(payload: Readable, contentLength: string | undefined, limit: number): Promise<Buffer> {
  const declared = declaredLength(contentLength);
  if (declared > limit) return Promise.reject(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413, 'Request body is too large'));
  return new Promise((resolve, reject) => {
    // Known length: one buffer of it. Chunked: the chunks, joined at the end.
    const target = Number.isNaN(declared) ? undefined : Buffer.allocUnsafeSlow(declared);
    const chunks: Buffer[] = [];
    let length = 0;
    streamBody(
      payload,
      {
        chunk(bytes) {
          if (length + bytes.length > (target ? target.length : limit)) {
            return target
              ? fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'Request body size did not match Content-Length')
              : fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413, 'Request body is too large');
          }
          if (target) bytes.copy(target, length);
          else chunks.push(bytes);
          length += bytes.length;
          return undefined;
        },
        end() {
          return target && length !== target.length
            ? fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'Request body size did not match Content-Length')
            : undefined;
        },
      },
      (err) => (err ? reject(err) : resolve(target ?? Buffer.concat(chunks, length))),
    );
  });
}
