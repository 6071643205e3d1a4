// Copying bytes into or out of a SharedArrayBuffer. V8 copies to or from shared memory with
// relaxed atomics, and when source and target are not equally aligned that is one byte at a
// time: a 2.5 MB request body arriving in 64 KB socket chunks of uneven length took 2.5-3.4 ms
// to copy into a shared buffer instead of 0.15. Buffer#fill with a Buffer as the value is a
// native memcpy whatever the alignment or sharing (measured in docs/PERFORMANCE.md).

/** Copies all of `source` into `target` at `at`, which must have room for it. */
export function copyBytes(target: Buffer, source: Uint8Array, at: number): void {
  if (source.length === 0) return; // fill() refuses an empty value
  if (at + source.length > target.length) throw new RangeError(`copyBytes: ${source.length} bytes at ${at} overflow ${target.length}`);
  const value = Buffer.isBuffer(source) ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  target.fill(value, at, at + source.length);
}
