// Writes a scan's output lines to a pipe or file a few at a time instead of one write each. On
// Linux every write to a pipe is a system call that wakes the reader, and on two cores those
// wake-ups showed in a folder scan (docs/PERFORMANCE.md). Lines wait at most until the end of
// the current turn of the event loop; a terminal gets each line at once, so a progress display
// on the same terminal is never torn by a late write.

/** Flushed at once past this many characters, so a burst never builds up a large string. */
const MAX_PENDING = 64 * 1024;

export class LineBatcher {
  private pending: string[] = [];
  private size = 0;
  private scheduled = false;

  constructor(private readonly out: NodeJS.WritableStream & { isTTY?: boolean }) {}

  /** `text` is one or more whole lines; it is written whole, never split between writes. */
  write(text: string): void {
    if (this.out.isTTY) {
      this.out.write(text);
      return;
    }
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= MAX_PENDING) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  /** Writes whatever waits; call before anything else goes to the same stream, and at the end. */
  flush(): void {
    if (!this.pending.length) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.size = 0;
    this.out.write(text);
  }
}
