// How many S3 objects and https:// URLs a scan holds in memory at once. A file goes to a worker by
// its path and is read there; an object is read in the main thread and its bytes held until its
// check ends, so without a bound a scan's window of results in flight (32 per core) would be as
// many objects.

/**
 * Objects read in this thread (S3, https://) and held until their check ends: at most `count` at once, and
 * at most `bytes` of them by their listed sizes (an object larger than that goes alone). Enough
 * reads in flight to hide a remote store's latency per request; not so many bytes that a bucket
 * of videos fills the memory. take() waits its turn (first come, first served).
 */
export class ReadBudget {
  private held = 0;
  private heldBytes = 0;
  private readonly waiting: { size: number; go: () => void }[] = [];
  constructor(
    private readonly count: number,
    private readonly bytes: number,
  ) {}

  async take(size = 0): Promise<() => void> {
    // A waiter is counted in by the release that lets it go (admit), before it runs again.
    if (this.waiting.length || !this.fits(size)) await new Promise<void>((go) => this.waiting.push({ size, go }));
    else this.countIn(size);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.heldBytes -= size;
      this.admit();
    };
  }

  private admit(): void {
    while (this.waiting.length && this.fits(this.waiting[0]!.size)) {
      const next = this.waiting.shift()!;
      this.countIn(next.size);
      next.go();
    }
  }

  private countIn(size: number): void {
    this.held++;
    this.heldBytes += size;
  }

  private fits(size: number): boolean {
    return this.held === 0 || (this.held < this.count && this.heldBytes + size <= this.bytes);
  }
}

/**
 * What holdRead needs of an input item (inputs.ts InputItem), written out here: inputs.ts reaches
 * this module through https-source.ts, so importing its type back would make a circle.
 */
type ReadItem =
  | { kind: 's3'; object: { size?: number } }
  | { kind: 'https'; object: { size?: number; head(): Promise<void> } }
  | { kind: 'file' | 'stdin' | 'error' };

/**
 * The item's turn to be read in this thread, by its size: an S3 object's from its listing, an
 * https:// URL's from a HEAD request (made here, so the size is known before its bytes are). The
 * release to call once its check ends; undefined for an item read elsewhere (a file: by a worker).
 */
export async function holdRead(budget: ReadBudget, item: ReadItem): Promise<(() => void) | undefined> {
  if (item.kind === 'https') await item.object.head();
  return item.kind === 's3' || item.kind === 'https' ? budget.take(item.object.size) : undefined;
}

/** S3 objects and https:// URLs read or being checked at once, at most, and their bytes (by listed size). */
export const OBJECTS_AT_ONCE = 16;
export const OBJECT_BYTES_AT_ONCE = 256 * 1024 * 1024;

/** The budget a scan (`check`, the library's scan()) reads its S3 objects and https:// URLs within. */
export function objectBudget(): ReadBudget {
  return new ReadBudget(OBJECTS_AT_ONCE, OBJECT_BYTES_AT_ONCE);
}
