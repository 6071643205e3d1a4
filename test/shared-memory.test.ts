// copyBytes: the native copy into shared memory the daemon's body reader and the workers use
// (a plain TypedArray copy into a SharedArrayBuffer goes byte by byte when unaligned).
import { describe, expect, it } from 'vitest';
import { copyBytes } from '../src/engine/shared-memory.js';

describe('copyBytes', () => {
  it('copies chunks of uneven length end to end into shared and ordinary buffers', () => {
    for (const target of [Buffer.from(new SharedArrayBuffer(200_000)), Buffer.alloc(200_000)]) {
      const expected: number[] = [];
      let at = 0;
      for (const n of [1, 63_791, 0, 3, 65_536, 7, 50_000]) {
        const chunk = Buffer.from(Array.from({ length: n }, (_, i) => (i * 13 + n) & 0xff));
        copyBytes(target, chunk, at);
        expected.push(...chunk);
        at += n;
      }
      expect(target.subarray(0, at).equals(Buffer.from(expected))).toBe(true);
    }
  });

  it('takes a Uint8Array view (a worker copying out of shared memory) and refuses to overflow', () => {
    const shared = new Uint8Array(new SharedArrayBuffer(10)).map((_, i) => i + 1);
    const out = Buffer.alloc(8);
    copyBytes(out, shared.subarray(3, 8), 1);
    expect([...out]).toEqual([0, 4, 5, 6, 7, 8, 0, 0]);
    expect(() => copyBytes(out, shared, 0)).toThrow(RangeError);
  });
});
