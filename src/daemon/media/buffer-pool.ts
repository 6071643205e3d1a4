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

export class BufferPool {
  private readonly idle: Buffer[] = [];
  private leased = 0;

  /**
   * @param size    bytes per buffer
   * @param keep    idle buffers kept for later; beyond that a released buffer is left to the GC,
   *                so a burst of concurrent requests does not pin its peak memory for good
   * @param shared  backed by a SharedArrayBuffer, so a worker thread reads it without a copy
   */
  constructor(
    readonly size: number,
    private readonly keep: number,
    private readonly shared = false,
  ) {}

  take(): Lease {
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
      },
    };
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
