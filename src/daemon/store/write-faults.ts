// How tests make the embedded store's disk writes fail the way a failing disk does (ENOSPC,
// EIO, EROFS) on a disk that works: `FileStoreOptions.faults` is asked before each write and
// may answer with the error that write fails with. Nothing sets it outside tests. A really full
// and a really read-only disk are tested as well, on a small tmpfs (test/daemon/failing-disk.test.ts).

/**
 * The writes that can be made to fail: a journal append, the cut back of the journal after an
 * append failed, a snapshot (compaction), an upload's bytes.
 */
export type WriteStep = 'journal' | 'journal-cut' | 'snapshot' | 'upload';

/** Asked before each write: the error it is to fail with, or undefined to let it happen. */
export type WriteFaults = (step: WriteStep) => NodeJS.ErrnoException | undefined;

/** Throws the error `faults` gives for `step`, if any. */
export function failIfFaulted(faults: WriteFaults | undefined, step: WriteStep): void {
  const err = faults?.(step);
  if (err) throw err;
}
