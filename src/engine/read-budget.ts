// How many S3 objects and https:// URLs a scan holds in memory at once. A file goes to a worker by
// its path and is read there; an object is read in the main thread and its bytes held until its
// check ends, so without a bound a scan's window of results in flight (32 per core) would be as
// many objects.

/**
 * What a body's read counts against its hold: the bytes of the buffer it reads into, as it grows
 * (object-body.ts). Waits while the budget has no room; `signal` (the read's deadline) ends the
 * wait with the read.
 */
export type ReadRoom = (bytes: number, signal?: AbortSignal) => Promise<void>;

/**
 * One object's place in the budget: call it to release (once its check ends; a second call
 * counts once). `room` grows it to the bytes its read actually holds, whatever size was known
 * before (a HEAD answer without one, or refused, counted 0).
 */
export type ReadHold = (() => void) & { room: ReadRoom };

/** How a hold grows: by at least this much, so a body's chunks do not each ask. */
const GROW_STEP = 1024 * 1024;

/**
 * Objects read in this thread (S3, https://) and held until their check ends: at most `count` at
 * once, and at most `bytes` of them, first by their listed sizes, then by what their reads hold
 * (an object larger than that goes alone). Enough reads in flight to hide a remote store's
 * latency per request; not so many bytes that a bucket of videos fills the memory. take() waits
 * its turn (first come, first served); a read that must grow past the budget waits, ahead of
 * new ones, for others to end, and when every object held is such a read (none could ever end)
 * the oldest goes on past the budget, as an object larger than the budget would, so they never
 * wait on each other for ever.
 */
export class ReadBudget {
  private held = 0;
  private heldBytes = 0;
  private nextId = 0;
  /** The hold let past the budget while every other waited to grow (see admit); undefined when none. */
  private alone: number | undefined;
  private readonly waiting: { size: number; go: () => void }[] = [];
  private readonly growing: { id: number; extra: number; go: () => void }[] = [];
  constructor(
    private readonly count: number,
    private readonly bytes: number,
  ) {}

  /** What is held now, for tests and the bench: objects and bytes. */
  get inUse(): { objects: number; bytes: number } {
    return { objects: this.held, bytes: this.heldBytes };
  }

  async take(size = 0): Promise<ReadHold> {
    // A waiter is counted in by the release that lets it go (admit), before it runs again.
    if (this.waiting.length || this.growing.length || !this.fits(size)) await new Promise<void>((go) => this.waiting.push({ size, go }));
    else this.countIn(size);
    const id = this.nextId++;
    let mine = size;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.held--;
      this.heldBytes -= mine;
      if (this.alone === id) this.alone = undefined;
      this.admit();
    };
    const room: ReadRoom = async (bytes, signal) => {
      if (released || bytes <= mine) return;
      const extra = Math.max(bytes - mine, Math.min(GROW_STEP, this.bytes));
      await this.grow(id, extra, signal);
      mine += extra;
    };
    return Object.assign(release, { room });
  }

  /** `extra` more bytes for hold `id`, already counted in; waits while they do not fit. */
  private grow(id: number, extra: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.held <= 1 || this.alone === id || (!this.growing.length && this.heldBytes + extra <= this.bytes)) {
      this.heldBytes += extra;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        id,
        extra,
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.growing.indexOf(entry);
        if (i !== -1) this.growing.splice(i, 1);
        reject(signal!.reason);
        this.admit();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.growing.push(entry);
      this.admit();
    });
  }

  private admit(): void {
    // Reads under way first: they hold bytes already and end only once read.
    while (this.growing.length && (this.held <= 1 || this.heldBytes + this.growing[0]!.extra <= this.bytes)) this.grant(0);
    // Every object held is a read waiting to grow: none would ever end. The oldest goes on past
    // the budget, alone, until it is released (its later growth is granted at once, in grow()).
    if (this.growing.length && this.growing.length >= this.held && this.alone === undefined) {
      let oldest = 0;
      this.growing.forEach((g, i) => (g.id < this.growing[oldest]!.id ? (oldest = i) : undefined));
      this.alone = this.growing[oldest]!.id;
      this.grant(oldest);
    }
    while (!this.growing.length && this.waiting.length && this.fits(this.waiting[0]!.size)) {
      const next = this.waiting.shift()!;
      this.countIn(next.size);
      next.go();
    }
  }

  private grant(index: number): void {
    const [next] = this.growing.splice(index, 1);
    this.heldBytes += next!.extra;
    next!.go();
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
 * The item's turn to be read in this thread, by its size as far as it is known: an S3 object's
 * from its listing, an https:// URL's from a HEAD request (made here; a refused HEAD or one
 * without a size counts 0). The read then grows the hold to what it actually holds (the hold's
 * `room`, given to inputs.ts readInput). The hold to release once its check ends; undefined for
 * an item read elsewhere (a file: by a worker).
 */
export async function holdRead(budget: ReadBudget, item: ReadItem): Promise<ReadHold | undefined> {
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
