// The workers' file reader: whole files, buffers used again only after release, and the same
// errors readFileSync gives.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileReader, REUSE_MAX_BYTES } from '../src/engine/file-reader.js';

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

  it('fails as readFileSync does: missing file, folder', () => {
    const reader = new FileReader();
    expect(() => reader.read(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    mkdirSync(join(dir, 'folder'));
    expect(() => reader.read(join(dir, 'folder'))).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });

  it('reads what a non-regular file (a FIFO-like /dev/null) gives', () => {
    expect(new FileReader().read('/dev/null').bytes.length).toBe(readFileSync('/dev/null').length);
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
