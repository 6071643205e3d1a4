// Reads whole files for the worker pool into buffers it keeps and uses again. A scan reads
// hundreds of MB; a fresh buffer per file makes the kernel map and zero new pages for every file
// and leaves the garbage collector the old ones. Reusing buffers cut the read, hash and marker
// scan of the benchmark folder from 550-610 ms of CPU to about 390 (docs/PERFORMANCE.md).
import { readRegularFileSync, MAX_FILE_BYTES } from './local-file.js';
import { copyBytes } from './shared-memory.js';

/** Files above this size get a buffer of their own, so an idle worker never holds a large one. */
export const REUSE_MAX_BYTES = 16 * 1024 * 1024;

export interface FileBytes {
  bytes: Uint8Array;
  /** Gives the buffer back. The bytes must not be used after this. */
  release(): void;
}

export class FileReader {
  private readonly spare: Buffer[] = [];

  /** `maxBytes`: the most a file may hold (MAX_FILE_BYTES; a test's smaller limit). */
  constructor(private readonly maxBytes = MAX_FILE_BYTES) {}

  /**
   * A regular file's bytes, by local-file.ts's rules (opened without blocking, anything else
   * refused, read to its end within the limit). Errors as readFileSync's (ENOENT, EACCES,
   * ERR_FS_FILE_TOO_LARGE...) or a NotRegularFileError, which inputErrorFrom names. `path` is
   * bytes when it is not valid UTF-8 (byte-paths.ts; a Buffer reaches a worker as a Uint8Array).
   */
  read(path: string | Uint8Array): FileBytes {
    let reused: Buffer | undefined;
    const { bytes, grown } = readRegularFileSync(
      typeof path === 'string' ? path : Buffer.from(path.buffer, path.byteOffset, path.byteLength),
      // A large file gets a buffer of its own; a file that grew past its fstat size too.
      (size) => (size > REUSE_MAX_BYTES ? Buffer.allocUnsafeSlow(size) : (reused = this.take(size))),
      this.maxBytes,
    );
    if (reused && grown) this.spare.push(reused);
    if (!reused || grown) return { bytes, release: () => {} };
    return this.lend(reused, bytes.length);
  }

  /**
   * A private copy of bytes the worker was lent rather than given: a view on shared memory that
   * the daemon uses again for its next request once this one is answered or timed out.
   */
  copy(bytes: Uint8Array): FileBytes {
    if (bytes.length > REUSE_MAX_BYTES) return { bytes: Uint8Array.prototype.slice.call(bytes), release: () => {} };
    const buffer = this.take(bytes.length);
    copyBytes(buffer, bytes, 0);
    return this.lend(buffer, bytes.length);
  }

  private lend(buffer: Buffer, length: number): FileBytes {
    let released = false;
    return {
      bytes: buffer.subarray(0, length),
      release: () => {
        if (released) return;
        released = true;
        this.spare.push(buffer);
      },
    };
  }

  private take(size: number): Buffer {
    const i = this.spare.findIndex((b) => b.length >= size);
    if (i !== -1) return this.spare.splice(i, 1)[0]!;
    // None big enough: replace the smallest spare (if any) with one that fits this file, rounded
    // up so a folder of slightly growing sizes does not allocate every time.
    if (this.spare.length) this.spare.sort((a, b) => a.length - b.length).shift();
    return Buffer.allocUnsafeSlow(Math.min(REUSE_MAX_BYTES, Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(Math.max(size, 1))))));
  }
}
