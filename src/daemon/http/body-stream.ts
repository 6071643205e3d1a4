// The stream side of reading a request body, shared by the two readers that keep its bytes their
// own way (pooled-body.ts: a pooled buffer; whole-body.ts: one buffer of the declared length):
// each chunk handed to the reader, which may stop the body with an error; the end, which it may
// refuse; the stream's own errors as 4xx; a client gone before the end as fastify words it.
import type { Readable } from 'node:stream';

/** An error the daemon's error handler words like fastify's own of the same code. */
export function fastifyError(code: string, statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

export interface BodyReader {
  /** A chunk arrived; an error stops the body there. */
  chunk(bytes: Buffer): Error | undefined;
  /** The body ended; an error refuses it (a length that does not match, say). */
  end(): Error | undefined;
}

/** Streams `payload` into `reader`, then calls `done` once: null at a clean end, else the error. */
export function streamBody(payload: Readable, reader: BodyReader, done: (err: Error | null) => void): void {
  const finish = (err: Error | null) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    payload.removeListener('close', onClose);
    done(err);
  };
  const onData = (chunk: Buffer | string) => {
    const err = reader.chunk(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (err) finish(err);
  };
  const onEnd = () => finish(reader.end() ?? null);
  const onError = (err: Error & { statusCode?: number }) => {
    if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
    finish(err);
  };
  // A client that goes away mid-body: 'error' (aborted) normally comes first; 'close' alone must
  // still settle the read (and give back what the reader holds).
  const onClose = () => finish(fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'The request ended before its body'));
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.on('close', onClose);
  payload.resume();
}
