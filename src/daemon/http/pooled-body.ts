// Reads a request body into a pooled buffer (buffer-pool.ts) instead of collecting chunks and
// concatenating them into a new one, with fastify's own rules for a body parsed as a buffer:
// a Content-Length over the limit is refused before a byte is read, the limit is enforced as
// bytes arrive, and a body that ends short of its Content-Length is refused.
import type { Readable } from 'node:stream';
import { copyBytes } from '../../engine/shared-memory.js';
import type { BufferPool, Lease } from '../media/buffer-pool.js';
import { fastifyError, streamBody } from './body-stream.js';

export interface PooledBody {
  /** The body's bytes, a view on the lease's buffer. */
  bytes: Buffer;
  lease: Lease;
}

/**
 * @param payload        the body stream fastify hands a content-type parser
 * @param contentLength  the request's Content-Length header, if any
 */
export function readPooledBody(payload: Readable, contentLength: string | undefined, limit: number, pool: BufferPool): Promise<PooledBody> {
  // Callers pass a limit no larger than the pool's buffers; a larger one would be a defect.
  if (limit > pool.size) throw new Error(`body limit ${limit} exceeds the pooled buffer size ${pool.size}`);
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (declared > limit) return Promise.reject(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413, 'Request body is too large'));
  return new Promise((resolve, reject) => {
    const lease = pool.take();
    const target = lease.buffer;
    let length = 0;
    streamBody(
      payload,
      {
        chunk(bytes) {
          if (length + bytes.length > limit) return fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413, 'Request body is too large');
          copyBytes(target, bytes, length);
          length += bytes.length;
          return undefined;
        },
        end() {
          return !Number.isNaN(declared) && length !== declared
            ? fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'Request body size did not match Content-Length')
            : undefined;
        },
      },
      (err) => {
        if (err) {
          lease.release();
          reject(err);
        } else {
          resolve({ bytes: target.subarray(0, length), lease });
        }
      },
    );
  });
}
