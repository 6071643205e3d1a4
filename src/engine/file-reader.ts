// Reads whole files for the worker pool into buffers it keeps and uses again. A scan reads
// hundreds of MB; a fresh buffer per file makes the kernel map and zero new pages for every file
// and leaves the garbage collector the old ones. Reusing buffers cut the read, hash and marker
// scan of the benchmark folder from 550-610 ms of CPU to about 390 (docs/PERFORMANCE.md).
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
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

  /**
   * Same errors as readFileSync (ENOENT, EISDIR, ERR_FS_FILE_TOO_LARGE...). `path` is bytes when
   * it is not valid UTF-8 (byte-paths.ts; a Buffer reaches a worker as a Uint8Array).
   */
  read(path: string | Uint8Array): FileBytes {
    const fd = openSync(typeof path === 'string' ? path : Buffer.from(path.buffer, path.byteOffset, path.byteLength), 'r');
    try {
      const stat = fstatSync(fd);
      // Not a regular file (a FIFO, a device) or a large one: readFileSync's own rules.
      if (!stat.isFile() || stat.size > REUSE_MAX_BYTES) return { bytes: readFileSync(fd), release: () => {} };
      const buffer = this.take(stat.size);
      let length = 0;
      while (length < stat.size) {
        const n = readSync(fd, buffer, length, stat.size - length, length);
        if (n === 0) break; // the file shrank since fstat: what is there is what it holds
        length += n;
      }
      return this.lend(buffer, length);
    } finally {
      closeSync(fd);
    }
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
