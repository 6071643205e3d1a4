// A multipart body is parsed as it streams: busboy is done at the closing boundary, and a
// handler that went on at once would act on a request whose client has not finished sending, or
// has hung up short of its Content-Length. So a request is acted on (a call counted, an upload
// kept) only once its whole body has arrived; a body ended short is a 400 nobody is charged for.
// Reading to the end also means no unread bytes are left when the answer goes out (unread bytes
// at close make the kernel reset the connection, which can lose the answer).
import type { IncomingMessage } from 'node:http';
import { invalid } from '../contract/errors.js';

export const SHORT_BODY_MESSAGE = 'The body ended before its Content-Length (or its last chunk).';

/** Resolves once the request body has been read to its end; rejects with a 400 if it ended short. */
export function bodyEnd(raw: IncomingMessage): Promise<void> {
  if (raw.complete) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = () => {
      raw.off('end', settle);
      raw.off('close', settle);
      raw.off('aborted', settle);
      if (raw.complete) resolve();
      else reject(invalid(SHORT_BODY_MESSAGE));
    };
    raw.once('end', settle);
    raw.once('close', settle);
    raw.once('aborted', settle);
    // Whatever follows the closing boundary (an epilogue) is read and dropped.
    raw.resume();
  });
}
