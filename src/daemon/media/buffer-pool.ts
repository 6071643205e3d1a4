// Fixed-size buffers the daemon uses again for every inline detect request: one for the JSON
// body as it arrives, one for the file a detection worker decodes from it (both over shared
// memory, which the workers read and write in place).
// A fresh 2.5 MB body and a fresh 1.9 MB file per request made the kernel map and zero new pages
// each time and drove the main thread's garbage collector (V8 collects after every 64 MB of new
// external memory): about 28 full collections a second under load (docs/PERFORMANCE.md).

export interface Lease {
  readonly buffer: Buffer;
  /** Gives the buffer back; later calls do nothing. Its bytes must not be used afterwards. */
  release(): void;
}

/** Once nothing is leased for this long, the idle buffers are dropped too (see `drop`). */
export interface IdleDrop {
  afterMs: number;
  /** Told the bytes dropped, so the thread can collect them (engine/idle-collect.ts). */
  onDrop(bytes: number): void;
}

export class BufferPool {
  private idle: Buffer[] = [];
  private leased = 0;
  private dropTimer: NodeJS.Timeout | undefined;

  /**
   * @param size    bytes per buffer
   * @param keep    idle buffers kept for later; beyond that a released buffer is left to the GC,
   *                so a burst of concurrent requests does not pin its peak memory for good
   * @param shared  backed by a SharedArrayBuffer, so a worker thread reads it without a copy
   * @param drop    after a quiet spell, drop the kept buffers as well: a burst of requests
   *                leaves up to `keep` buffers, their pages written, which would otherwise stay
   *                resident for the life of the daemon (issue 26)
   */
  constructor(
    readonly size: number,
    private readonly keep: number,
    private readonly shared = false,
    private readonly drop?: IdleDrop,
  ) {}

  take(): Lease {
    clearTimeout(this.dropTimer);
    this.dropTimer = undefined;
    const buffer = this.idle.pop() ?? (this.shared ? Buffer.from(new SharedArrayBuffer(this.size)) : Buffer.allocUnsafeSlow(this.size));
    let released = false;
    this.leased++;
    return {
      buffer,
      release: () => {
        if (released) return;
        released = true;
        this.leased--;
        if (this.idle.length < this.keep) this.idle.push(buffer);
        if (this.leased === 0 && this.drop) this.armDrop(this.drop);
      },
    };
  }

  private armDrop(drop: IdleDrop): void {
    clearTimeout(this.dropTimer);
    this.dropTimer = setTimeout(() => {
      this.dropTimer = undefined;
      const bytes = this.idle.length * this.size;
      this.idle = [];
      if (bytes > 0) drop.onDrop(bytes);
    }, drop.afterMs);
    this.dropTimer.unref();
  }

  /** Buffers held for later use now. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Buffers taken and not yet released (a leak shows here). */
  get leasedCount(): number {
    return this.leased;
  }
}
