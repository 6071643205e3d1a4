// The workers' file reader: whole files, buffers used again only after release, the same
// errors readFileSync gives, and only regular files, read within the limit (local-file.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileReader, REUSE_MAX_BYTES } from '../src/engine/file-reader.js';
import { inputErrorFrom } from '../src/engine/input-error.js';
import { OPEN_FLAGS, readRegularFile } from '../src/engine/local-file.js';

const dir = mkdtempSync(join(tmpdir(), 'file-reader-'));
function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}
const filled = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

describe('FileReader', () => {
  it('reads every byte of files of many sizes, including empty ones', () => {
    const reader = new FileReader();
    for (const n of [0, 1, 4095, 65536, 300_001, 2_000_000]) {
      const bytes = filled(n, n);
      const got = reader.read(file(`f${n}`, bytes));
      expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
      got.release();
    }
  });

  it('uses a released buffer again, and never one that is still held', () => {
    const reader = new FileReader();
    const a = reader.read(file('a', filled(1000, 1)));
    const b = reader.read(file('b', filled(1000, 2)));
    expect(a.bytes.buffer).not.toBe(b.bytes.buffer); // both held: two buffers
    expect(a.bytes[0]).toBe(1); // b's read did not write over a
    a.release();
    const c = reader.read(file('c', filled(800, 3)));
    expect(c.bytes.buffer).toBe(a.bytes.buffer); // a's buffer serves c
    expect(c.bytes.length).toBe(800);
    expect(Buffer.from(c.bytes).equals(Buffer.from(filled(800, 3)))).toBe(true);
    c.release();
    c.release(); // a second release does not hand the buffer out twice
    const d = reader.read(file('d', filled(10, 4)));
    const e = reader.read(file('e', filled(10, 5)));
    expect(d.bytes.buffer).not.toBe(e.bytes.buffer);
  });

  it('gives a file above the reuse limit a buffer of its own', () => {
    const reader = new FileReader();
    const big = reader.read(file('big', new Uint8Array(REUSE_MAX_BYTES + 1)));
    expect(big.bytes.length).toBe(REUSE_MAX_BYTES + 1);
    big.release();
    const small = reader.read(file('small', filled(10, 6)));
    expect(small.bytes.buffer).not.toBe(big.bytes.buffer);
  });

  it('fails as readFileSync does for a missing file, and refuses a folder as not a regular file', () => {
    const reader = new FileReader();
    expect(() => reader.read(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    mkdirSync(join(dir, 'folder'));
    expect(() => reader.read(join(dir, 'folder'))).toThrow(expect.objectContaining({ code: 'ERR_NOT_REGULAR_FILE', kind: 'a folder' }));
  });

  // Issue 40 item 3: a path swapped for a symlink to a device, or for a named pipe, after it was
  // listed is refused after fstat, not read (a worker reached 900 MB on /dev/zero) and not waited
  // on (open(2) of a FIFO waits for a writer for ever without O_NONBLOCK).
  it('refuses a symlink to /dev/zero, /dev/null and a named pipe, without reading or waiting', () => {
    const reader = new FileReader();
    symlinkSync('/dev/zero', join(dir, 'zero.jpg'));
    expect(() => reader.read(join(dir, 'zero.jpg'))).toThrow(expect.objectContaining({ code: 'ERR_NOT_REGULAR_FILE', kind: 'a character device' }));
    expect(() => reader.read('/dev/null')).toThrow(expect.objectContaining({ code: 'ERR_NOT_REGULAR_FILE' }));
    const fifo = join(dir, 'pipe.jpg');
    execFileSync('mkfifo', [fifo]);
    // No writer ever opens it: before the fix this read waited in open(2) for ever, so it runs
    // in a child process that is killed after 20 s (the test stays bounded either way).
    const child = spawnSync(process.execPath, ['-e', `require('node:fs').openSync(${JSON.stringify(fifo)}, ${OPEN_FLAGS}); console.log('opened')`], { timeout: 20_000, encoding: 'utf8' });
    expect(child.signal).toBeNull();
    expect(child.stdout).toBe('opened\n');
    expect(() => reader.read(fifo)).toThrow(expect.objectContaining({ code: 'ERR_NOT_REGULAR_FILE', kind: 'a named pipe' }));
    // Named by the worker's error mapping in the words of today's errors.
    const info = inputErrorFrom(Object.assign(new Error('x'), { code: 'ERR_NOT_REGULAR_FILE', kind: 'a named pipe' }), 'photos/pipe.jpg').toInfo();
    expect(info).toEqual({ type: 'read_error', message: 'photos/pipe.jpg: not a regular file (a named pipe); only regular files are read.' });
  });

  it('reads a file to its end whatever fstat said, and stops at the limit while reading', () => {
    // /proc files are regular files whose fstat size is 0 but that hold bytes: a file that grew
    // after its fstat, as far as a reader can tell. Before the fix, 0 bytes were read.
    const status = readFileSync('/proc/self/status');
    expect(status.length).toBeGreaterThan(100);
    const got = new FileReader().read('/proc/self/status');
    expect(got.bytes.length).toBeGreaterThan(100);
    expect(Buffer.from(got.bytes).subarray(0, 5).toString()).toBe('Name:');
    // A limit smaller than what it holds: refused as too large once the bytes read reach it.
    expect(() => new FileReader(64).read('/proc/self/status')).toThrow(expect.objectContaining({ code: 'ERR_FS_FILE_TOO_LARGE' }));
    // A regular file at or over the limit is refused by its size before any read.
    expect(() => new FileReader(100).read(file('hundred', filled(100, 1)))).toThrow(expect.objectContaining({ code: 'ERR_FS_FILE_TOO_LARGE' }));
    expect(new FileReader(100).read(file('ninety-nine', filled(99, 1))).bytes.length).toBe(99);
  });

  it('the async reader used in this thread (check of one file, the library, the HTML report) follows the same rules', async () => {
    await expect(readRegularFile(join(dir, 'folder'))).rejects.toMatchObject({ code: 'ERR_NOT_REGULAR_FILE' });
    await expect(readRegularFile('/dev/zero')).rejects.toMatchObject({ code: 'ERR_NOT_REGULAR_FILE', kind: 'a character device' });
    const fifo = join(dir, 'pipe2.jpg');
    execFileSync('mkfifo', [fifo]);
    // Bounded: if the open waited on the pipe, a writer's open after 10 s would let it go.
    const unblock = setTimeout(() => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)), 10_000);
    const started = Date.now();
    await expect(readRegularFile(fifo)).rejects.toMatchObject({ code: 'ERR_NOT_REGULAR_FILE', kind: 'a named pipe' });
    clearTimeout(unblock);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await readRegularFile('/proc/self/status')).subarray(0, 5).toString()).toBe('Name:');
    await expect(readRegularFile('/proc/self/status', { maxBytes: 64 })).rejects.toMatchObject({ code: 'ERR_FS_FILE_TOO_LARGE' });
    const bytes = filled(300_001, 7);
    expect(Buffer.from(await readRegularFile(file('async', bytes))).equals(Buffer.from(bytes))).toBe(true);
  });

  it('copies bytes lent over shared memory, so later writes there do not reach the copy', () => {
    const reader = new FileReader();
    const shared = Buffer.from(new SharedArrayBuffer(1 << 20));
    shared.set(filled(500_000, 3));
    const lent = shared.subarray(0, 500_000);
    const copy = reader.copy(lent);
    expect(copy.bytes.buffer).not.toBe(shared.buffer);
    expect(copy.bytes.buffer).toBeInstanceOf(ArrayBuffer);
    shared.fill(0);
    expect(Buffer.from(copy.bytes).equals(Buffer.from(filled(500_000, 3)))).toBe(true);
    copy.release();
    // The released copy's buffer serves the next read or copy.
    const next = reader.copy(shared.subarray(0, 1000));
    expect(next.bytes.buffer).toBe(copy.bytes.buffer);
    expect(next.bytes.every((b) => b === 0)).toBe(true);
  });
});
