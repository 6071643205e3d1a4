// The bytes of a file the library's ProvenanceClient sends, read no further than the API takes
// (25 MB): a path to a 5 GB video, /dev/zero or a named pipe, or a stream that never ends, would
// otherwise be read whole (or for ever) before the size check refused it. The engine's reader
// (engine/local-file.ts) has the same rules for local checks; client/ may not import the engine,
// and its limit is the contract's, not Node's 2 GiB.
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { REMOTE_MAX_BYTES } from '../types.js';
import { MediaTooLargeError } from './errors.js';

/** Read-only, without waiting on a FIFO's writer, never becoming the process's terminal. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function tooLarge(what: string): MediaTooLargeError {
  return new MediaTooLargeError(413, 'media_too_large', `${what}; the API takes files up to 25 MB (26,214,400 bytes), so nothing was sent.`, 'file');
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * A local file's bytes, up to the API's limit: refused before reading when fstat says it is larger,
 * and while reading when it grows past it; anything but a regular file is refused at once.
 *
 * @throws MediaTooLargeError past 25 MB; TypeError for a folder, pipe, device or socket.
 */
export async function readFileForUpload(path: string | URL, signal?: AbortSignal, maxBytes = REMOTE_MAX_BYTES): Promise<Buffer> {
  signal?.throwIfAborted();
  const handle = await open(path, OPEN_FLAGS);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new TypeError(`${String(path)} is not a regular file (${kindOf(st)}); pass a file's path, its bytes or a stream.`);
    if (st.size > maxBytes) throw tooLarge(`The file is ${st.size} bytes`);
    // One byte more than fstat's size, so a file that stayed as it was ends with a read of 0; a
    // buffer full at one byte past the limit says the file grew past it since fstat.
    let buffer = Buffer.allocUnsafeSlow(Math.min(maxBytes + 1, st.size + 1));
    let length = 0;
    for (;;) {
      signal?.throwIfAborted();
      if (length === buffer.length) {
        if (length > maxBytes) throw tooLarge(`The file grew past ${maxBytes} bytes while it was read`);
        const grown = Buffer.allocUnsafeSlow(Math.min(maxBytes + 1, Math.max(buffer.length * 2, 64 * 1024)));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) return buffer.subarray(0, length);
      length += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** A stream's bytes, up to the API's limit: reading stops (and the stream is closed) once past it. */
export async function readStreamForUpload(stream: AsyncIterable<Uint8Array | string>, maxBytes = REMOTE_MAX_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    length += bytes.byteLength;
    // Leaving the loop calls the iterator's return(): a Node stream is destroyed, its source let go.
    if (length > maxBytes) throw tooLarge(`The stream passed ${maxBytes} bytes`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, length);
}
