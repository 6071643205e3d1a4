// The closing-delimiter watch of multipart bodies (src/daemon/media/multipart-end.ts), as pure
// functions: the boundary parameter, and the delimiter found wherever the chunks cut it.
import { describe, expect, it } from 'vitest';
import { boundaryOf, closesForm, lastBytes } from '../../src/daemon/media/multipart-end.js';

describe('boundaryOf', () => {
  it('reads the boundary, quoted or not, among other parameters, in any case', () => {
    expect(boundaryOf('multipart/form-data; boundary=FUZZ')).toBe('FUZZ');
    expect(boundaryOf('multipart/form-data; charset=utf-8; BOUNDARY="a b;c"')).toBe('a b;c');
    expect(boundaryOf('multipart/form-data;boundary=x-1;charset=utf-8')).toBe('x-1');
    expect(boundaryOf('multipart/form-data')).toBeUndefined();
    expect(boundaryOf('multipart/form-data; boundary=')).toBeUndefined();
    expect(boundaryOf(undefined)).toBeUndefined();
  });
});

describe('closesForm over chunks', () => {
  const delimiter = Buffer.from('\r\n--B--');
  const body = Buffer.from('--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue\r\n--B--\r\nepilogue');

  it('finds the delimiter at every cut of the body into two and three chunks', () => {
    for (let i = 0; i <= body.length; i++) {
      for (const j of [i, Math.min(body.length, i + 1), Math.min(body.length, i + 3)]) {
        let tail = Buffer.alloc(0);
        let seen = false;
        for (const chunk of [body.subarray(0, i), body.subarray(i, j), body.subarray(j)]) {
          seen ||= closesForm(tail, chunk, delimiter);
          tail = lastBytes(tail, chunk, delimiter.length - 1);
        }
        expect(seen, `cut at ${i}, ${j}`).toBe(true);
      }
    }
  });

  it('does not take a part boundary, a delimiter without its line break or a cut-off one for the close', () => {
    for (const text of ['--B\r\nx\r\n--B\r\ny', '--B\r\nx--B--', '--B\r\nx\r\n--B-', '--B\r\nx\r\n--C--']) {
      expect(closesForm(Buffer.alloc(0), Buffer.from(text), delimiter), text).toBe(false);
    }
  });

  it('keeps the last bytes across chunks shorter than the delimiter', () => {
    let tail = Buffer.alloc(0);
    for (const c of ['ab', 'c', 'defgh', 'i']) tail = lastBytes(tail, Buffer.from(c), 6);
    expect(tail.toString()).toBe('defghi');
  });
});
