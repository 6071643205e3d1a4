// The free-space floor of the disk uploads are streamed to (CONTRACT "Keys, accounts, uploads":
// 503 storage_full; docs/SECURITY.md). Every upload is written to the data dir's uploads folder
// first, whichever the store: the embedded store keeps it there, PostgreSQL copies it into the
// database and the file goes. So the floor is kept on the data dir's filesystem.
//
// The free space the system reports does not yet hold what uploads still streaming will write,
// so each one holds room for the bytes it may still write (its Content-Length, else the 25 MB
// cap) and gives it back as they reach the disk: twelve uploads admitted together cannot take
// the disk under the floor between them, which one look at the free space each would allow.
import { statfs } from 'node:fs/promises';
import { ApiError } from '../contract/errors.js';
import { STORAGE_FULL_RETRY_SECONDS } from '../contract/limits.js';

/** Room held for one upload while it streams. */
export interface DiskHold {
  /** `bytes` more of the upload are on their way to the disk (the free space will show them). */
  wrote(bytes: number): void;
  /** Gives back what was not written (the upload ended, or failed). Later calls do nothing. */
  release(): void;
}

/** Bytes free to an unprivileged writer on the filesystem holding `dir` (not the root's reserve). */
async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

const NO_HOLD: DiskHold = { wrote() {}, release() {} };

export class DiskFloor {
  /** Bytes admitted uploads may still write, over all of them. */
  private held = 0;

  /**
   * @param dir         a folder on the disk to watch (the data dir's uploads folder)
   * @param floorBytes  free space every upload must leave; 0 turns the check off
   */
  constructor(
    private readonly dir: string,
    readonly floorBytes: number,
  ) {
    if (!(Number.isSafeInteger(floorBytes) && floorBytes >= 0)) throw new RangeError(`storage floor: must be 0 or more whole bytes, not ${floorBytes}`);
  }

  /** Before an upload streams: room for `bytes` more, or storage_full when they would take the disk under the floor. */
  async reserve(bytes: number): Promise<DiskHold> {
    if (this.floorBytes === 0) return NO_HOLD;
    const free = await freeBytes(this.dir);
    // Read and taken in one synchronous step after the await: holds taken meanwhile are counted.
    if (free - this.held - bytes < this.floorBytes) throw storageFull();
    this.held += bytes;
    let left = bytes;
    return {
      wrote: (n) => {
        const d = Math.min(n, left);
        left -= d;
        this.held -= d;
      },
      release: () => {
        this.held -= left;
        left = 0;
      },
    };
  }

  /**
   * When an upload is about to be recorded (its bytes on disk already): storage_full if the
   * disk went under the floor meanwhile (other writes), so that the upload is removed, not kept.
   */
  async check(): Promise<void> {
    if (this.floorBytes === 0) return;
    const free = await freeBytes(this.dir);
    if (free - this.held < this.floorBytes) throw storageFull();
  }
}

// The free space itself is the operator's business, not every key holder's: not in the message.
function storageFull(): ApiError {
  return new ApiError(
    'storage_full',
    "The daemon's disk is nearly full, so it keeps no new uploads for now; nothing was stored. Retry after Retry-After seconds, or send files up to 4 MB inline meanwhile; the daemon's operator can free disk space.",
    undefined,
    STORAGE_FULL_RETRY_SECONDS,
  );
}
