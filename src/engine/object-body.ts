// The body of an object read in this thread (an S3 object, an https:// URL) into one buffer:
// one reading loop and one size rule for both sources, so an object is refused where a file of
// the same size would be, and a body that breaks off is named the same way.
import { InputError, MAX_FILE_BYTES_TEXT } from './input-error.js';
import type { ReadRoom } from './read-budget.js';
import type { ReadDeadline } from './read-deadline.js';

/** Node's limit for one file read into memory (2 GiB): an object as large is refused as a file would be. */
export const MAX_OBJECT_BYTES = 2 ** 31;

/** `source` is MAX_OBJECT_BYTES or larger: file_too_large, in the words a file gets. */
export function objectTooLarge(source: string): InputError {
  return new InputError('file_too_large', `${source}: the object is ${MAX_FILE_BYTES_TEXT} or larger; a check reads objects smaller than ${MAX_FILE_BYTES_TEXT}.`);
}

export interface ObjectBody {
  /** Names the object in messages. */
  source: string;
  chunks: AsyncIterable<Uint8Array>;
  /** The declared length (Content-Length), when there is one. */
  length?: number;
  /** Stops the transfer (aborts the request) when the body is not read to its end. */
  abandon(): void;
  /** The most bytes taken (default MAX_OBJECT_BYTES; a test's smaller limit). */
  maxBytes?: number;
  /** Why the body stopped, in words (default: the error's message). */
  describe?: (err: unknown) => string;
  /** The whole read's deadline (read-deadline.ts): when it passes, the transfer is abandoned and its error thrown. */
  deadline?: ReadDeadline;
  /** The read budget's hold on this read (read-budget.ts): each buffer is counted there before it is made. */
  room?: ReadRoom;
}

/**
 * The whole body, streamed into one buffer sized by its declared length, refused (before or
 * while it is read) when it reaches the limit. A body that stops (a dropped connection, an idle
 * timeout) or ends before its declared length is a read_error saying how far it came.
 */
export async function readObjectBody({ source, chunks, length, abandon, maxBytes = MAX_OBJECT_BYTES, describe = (err) => (err as Error)?.message || String(err), deadline, room }: ObjectBody): Promise<Uint8Array> {
  const tooLarge = () => (maxBytes === MAX_OBJECT_BYTES ? objectTooLarge(source) : new InputError('file_too_large', `${source}: the object is ${maxBytes} bytes or larger; a check reads objects smaller than that.`));
  let buffer: Buffer | undefined;
  let used = 0;
  const brokeOff = (why: string) =>
    new InputError('read_error', `${source}: the read broke off after ${used.toLocaleString('en-US')}${length === undefined ? '' : ` of ${length.toLocaleString('en-US')}`} bytes (${why}).`);
  // A body that trickles (a byte a second never trips the idle timeout) is cut at the deadline.
  const stop = () => abandon();
  deadline?.signal.addEventListener('abort', stop, { once: true });
  try {
    deadline?.check(used, length);
    if (length !== undefined && length >= maxBytes) throw tooLarge();
    // A buffer of its own (not Node's shared pool): the pool moves it to a worker without a copy.
    // Counted in the budget first: what is in memory, whatever a HEAD answer said (or did not).
    await room?.(length ?? 64 * 1024, deadline?.signal);
    buffer = Buffer.allocUnsafeSlow(length ?? 64 * 1024);
    for await (const chunk of chunks) {
      if (used + chunk.length >= maxBytes) throw tooLarge();
      if (used + chunk.length > buffer.length) {
        // No Content-Length (or a wrong one): grow by doubling.
        const size = Math.min(maxBytes, Math.max(buffer.length * 2, used + chunk.length));
        await room?.(size, deadline?.signal);
        const grown = Buffer.allocUnsafeSlow(size);
        buffer.copy(grown, 0, 0, used);
        buffer = grown;
      }
      buffer.set(chunk, used);
      used += chunk.length;
    }
    deadline?.check(used, length);
  } catch (err) {
    abandon();
    if (err instanceof InputError) throw err;
    if (deadline?.signal.aborted) throw deadline.error(used, length);
    throw brokeOff(describe(err));
  } finally {
    deadline?.signal.removeEventListener('abort', stop);
  }
  if (length !== undefined && used < length) throw brokeOff('the body ended before its Content-Length');
  return used === buffer.length ? buffer : buffer.subarray(0, used);
}
