// How every read of a local input file opens it and knows when to stop: `check` in this thread
// and on the pool's workers (file-reader.ts), the library's check(), the HTML report's pictures,
// `upload`, and so a distributed scan's workers, which read through the same pool.
//
// - Opened with O_NONBLOCK: open(2) of a named pipe otherwise waits for a writer, for ever, in a
//   thread nothing can stop (a worker's termination does not end a blocked system call).
// - Refused after fstat unless it is a regular file: a path can be swapped for a symlink to
//   /dev/zero, a FIFO or a socket after it was listed (a folder walk keeps regular files only, but
//   the read comes later, and a queue row or a --files-from line names any path).
// - Read to its end, never trusting the size fstat gave (a file can grow while it is read), and
//   refused as file_too_large once the bytes actually read reach the limit.
import { closeSync, constants, fstatSync, openSync, readSync, type PathLike, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { NOT_REGULAR_FILE } from './input-error.js';

/** Node's limit for one file read into memory (2 GiB): a file this large or larger is refused. */
export const MAX_FILE_BYTES = 2 ** 31;

/** Read-only, without waiting on a FIFO's writer, never becoming the process's terminal (no such flags on Windows). */
export const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);


/** A path that opened but is not a regular file: `kind` says what it is, in words. */
export class NotRegularFileError extends Error {
  readonly code = NOT_REGULAR_FILE;
  constructor(readonly kind: string) {
    super(`not a regular file (${kind})`);
  }
}

/** A file that reached the read limit: the code readFileSync gives for one over 2 GiB, so every caller names it the same way. */
export function fileTooLargeError(): NodeJS.ErrnoException {
  return Object.assign(new RangeError('File size is greater than the read limit'), { code: 'ERR_FS_FILE_TOO_LARGE' });
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/** Throws unless `st` is a regular file below the limit; its size otherwise. */
function regularSize(st: Stats, maxBytes: number): number {
  if (!st.isFile()) throw new NotRegularFileError(kindOf(st));
  if (st.size >= maxBytes) throw fileTooLargeError();
  return st.size;
}

/** Where a full buffer's read looks for more (one thread's, and each call is synchronous). */
const probe = Buffer.allocUnsafeSlow(64 * 1024);

/** Where the bytes go: a buffer for at least `size` bytes (the reader's own, or one it lends). */
export type BufferFor = (size: number) => Buffer;

/**
 * A local file's bytes, read with blocking calls (a pool worker's way: it has nothing else to do
 * meanwhile). `bufferFor` gives the first buffer (sized by fstat); a file that grew past it gets
 * a larger one of its own, and `grown` says so (the first buffer is then unused).
 */
export function readRegularFileSync(path: PathLike, bufferFor: BufferFor, maxBytes = MAX_FILE_BYTES): { bytes: Buffer; first: Buffer; grown: boolean } {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const size = regularSize(fstatSync(fd), maxBytes);
    const first = bufferFor(size);
    let buffer = first;
    let length = 0;
    for (;;) {
      // A lent buffer may be larger than the limit: never read past it.
      const room = Math.min(buffer.length, maxBytes - 1);
      if (length === room) {
        // Full: at its end, unless the file grew since fstat. A small probe tells without a larger buffer.
        const n = readSync(fd, probe, 0, probe.length, length);
        if (n === 0) break;
        if (length + n >= maxBytes) throw fileTooLargeError();
        const grown = Buffer.allocUnsafeSlow(Math.min(maxBytes - 1, Math.max(buffer.length * 2, length + n, 64 * 1024)));
        buffer.copy(grown, 0, 0, length);
        probe.copy(grown, length, 0, n);
        buffer = grown;
        length += n;
        continue;
      }
      const n = readSync(fd, buffer, length, room - length, length);
      if (n === 0) break; // the file shrank since fstat: what is there is what it holds
      length += n;
    }
    return { bytes: buffer.subarray(0, length), first, grown: buffer !== first };
  } finally {
    closeSync(fd);
  }
}

/** A local file's bytes, read without blocking this thread; the same rules as readRegularFileSync. */
export async function readRegularFile(path: PathLike, options: { signal?: AbortSignal; maxBytes?: number } = {}): Promise<Buffer> {
  const { signal, maxBytes = MAX_FILE_BYTES } = options;
  signal?.throwIfAborted();
  const handle = await open(path, OPEN_FLAGS);
  try {
    const size = regularSize(await handle.stat(), maxBytes);
    // A buffer of its own (not Node's shared pool), as readFile gives; one byte more than fstat
    // said, so a file that stayed as it was ends with a read of 0 without growing it.
    let buffer = Buffer.allocUnsafeSlow(Math.min(maxBytes - 1, size + 1));
    let length = 0;
    for (;;) {
      signal?.throwIfAborted();
      if (length === buffer.length) {
        if (length + 1 >= maxBytes) {
          const { bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, length);
          if (bytesRead === 0) break;
          throw fileTooLargeError();
        }
        const grown = Buffer.allocUnsafeSlow(Math.min(maxBytes - 1, Math.max(buffer.length * 2, 64 * 1024)));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length === buffer.length ? buffer : buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
