// The live progress display of a scan in a terminal, started only once the scan has run for
// PROGRESS_DELAY_MS. Loading ink and drawing the first frame takes the main thread about 0.2 s
// (docs/PERFORMANCE.md), while it hands the workers their files: a scan shorter than the delay
// never pays that, and never flashes a display nobody could read.
import type { ScanStats } from './scan-stats.js';
import type { ProgressView } from './progress.js';

export const PROGRESS_DELAY_MS = 500;

export class LiveProgress {
  private view?: ProgressView;
  private ended = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stats: ScanStats,
    private readonly stderr: NodeJS.WriteStream,
    private readonly color: boolean,
    delayMs = PROGRESS_DELAY_MS,
  ) {
    this.timer = setTimeout(() => void this.start(), delayMs);
    // A pending display never keeps the process alive; the scan does while it runs.
    this.timer.unref();
  }

  private async start(): Promise<void> {
    // A terminal that reports no width (some pseudo-terminals) would get one character per line.
    if (!(this.stderr.columns > 0)) return;
    try {
      const { startProgress } = await import('./progress.js');
      if (!this.ended) this.view = startProgress(this.stats, this.stderr, this.color);
    } catch (err) {
      // A broken install (a missing bundle): the scan goes on without the display.
      if (!this.ended) this.stderr.write(`provenance: the progress display could not start: ${(err as Error).message}\n`);
    }
  }

  /** Before writing to a stream that shares the terminal (progress.tsx). */
  clear(): void {
    this.view?.clear();
  }

  update(): void {
    this.view?.update();
  }

  /**
   * The scan ended (or Ctrl-C): the frame is removed, and a display still loading never starts.
   * True when a frame had been drawn: its place is left as one empty line.
   */
  end(): boolean {
    this.ended = true;
    clearTimeout(this.timer);
    const drawn = this.view !== undefined;
    this.view?.end();
    this.view = undefined;
    return drawn;
  }
}
