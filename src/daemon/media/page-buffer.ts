// Memory for a whole file that comes straight from the system's pages, not from malloc.
// A fixed-size ArrayBuffer comes from malloc (glibc), which after the first 25 MB block is freed
// raises its mmap threshold to 25 MB and serves every later file from its main heap; freed
// there, the memory mostly stays resident: 120 downloads of 25 MB left the daemon 355 MB above
// its start after 60 s idle (docs/PERFORMANCE.md, issue 26). A resizable ArrayBuffer is
// reserved and committed by V8's page allocator (mmap) and given back whole (munmap) when the
// buffer is collected, wherever it then lives (a file is moved to a detection worker).

/**
 * A Buffer of exactly `size` bytes (uninitialised contents are zero) that owns its whole
 * ArrayBuffer, so the detection pool moves it to a worker rather than copying it.
 */
export function pageBuffer(size: number): Buffer {
  const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;
  return Buffer.from(new Resizable(size, { maxByteLength: size }));
}
