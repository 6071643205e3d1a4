// Walks ahead of the checks so a progress display knows how many files there are, while holding
// at most `limit` pending items: a scan of millions of files never lists them all in memory.
export class ReadAhead<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private done = false;
  private failure: unknown;
  private wakeConsumer?: () => void;
  private wakeProducer?: () => void;
  private stopped = false;
  discovered = 0;

  constructor(
    source: AsyncIterable<T>,
    private readonly limit: number,
  ) {
    void this.fill(source);
  }

  get walking(): boolean {
    return !this.done;
  }

  private async fill(source: AsyncIterable<T>): Promise<void> {
    try {
      for await (const item of source) {
        while (this.items.length >= this.limit && !this.stopped) await new Promise<void>((r) => (this.wakeProducer = r));
        if (this.stopped) break; // ends the walk: for-await closes the source generator
        this.items.push(item);
        this.discovered++;
        this.wakeConsumer?.();
      }
    } catch (err) {
      this.failure = err;
    } finally {
      this.done = true;
      this.wakeConsumer?.();
    }
  }

  /** Stops walking (Ctrl-C): nothing more is read from the source. */
  stop(): void {
    this.stopped = true;
    this.items.length = 0;
    this.wakeProducer?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.items.length) {
        yield this.items.shift()!;
        this.wakeProducer?.();
        continue;
      }
      if (this.done) {
        if (this.failure) throw this.failure;
        return;
      }
      await new Promise<void>((r) => (this.wakeConsumer = r));
    }
  }
}
