// Whether a multipart body ended with its closing delimiter (`\r\n--BOUNDARY--`). busboy and
// @fastify/multipart treat a form that stops without it as complete, and @fastify/multipart
// then destroys the file stream being read, so the same truncated form was sometimes taken
// (201, 200) and sometimes refused ("Premature close"), by timing alone. Watching the raw bytes
// for the delimiter makes the answer the same every time: such a form is malformed, a 400.
import type { FastifyRequest } from 'fastify';
import { invalid } from '../contract/errors.js';

export const UNTERMINATED_MESSAGE = 'The multipart body ends without its closing boundary (--BOUNDARY--).';

/** The boundary parameter of a multipart Content-Type, quoted or not; undefined if none. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]) : undefined;
}

/**
 * Starts watching the request's bytes; call it right after `request.parts()` (which pipes the
 * request into the parser: a 'data' listener added before that would start the flow early). The
 * returned check throws the 400 unless the closing delimiter has gone by.
 */
export function watchClosingDelimiter(request: FastifyRequest): () => void {
  const boundary = boundaryOf(request.headers['content-type']);
  let seen = false;
  if (boundary) {
    const delimiter = Buffer.from(`\r\n--${boundary}--`, 'latin1');
    const onData = (chunk: Buffer) => {
      if (closesForm(tail, chunk, delimiter)) {
        seen = true;
        request.raw.off('data', onData);
        return;
      }
      tail = lastBytes(tail, chunk, delimiter.length - 1);
    };
    // The delimiter may straddle chunks: the last bytes seen before each chunk.
    let tail: Buffer = Buffer.alloc(0);
    request.raw.on('data', onData);
  }
  return () => {
    if (!seen) throw invalid(UNTERMINATED_MESSAGE);
  };
}

/** Whether `delimiter` lies in `chunk`, or across the end of `tail` (the bytes before it) and its start. */
export function closesForm(tail: Buffer, chunk: Buffer, delimiter: Buffer): boolean {
  if (chunk.includes(delimiter)) return true;
  if (tail.length === 0) return false;
  return Buffer.concat([tail, chunk.subarray(0, delimiter.length - 1)]).includes(delimiter);
}

/** The last `n` bytes of `tail` followed by `chunk` (a copy: chunks are not kept). */
export function lastBytes(tail: Buffer, chunk: Buffer, n: number): Buffer {
  if (chunk.length >= n) return Buffer.from(chunk.subarray(chunk.length - n));
  return Buffer.concat([tail, chunk]).subarray(-n);
}
