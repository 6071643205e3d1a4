// The daemon's stop as requests see it (issue 27): once a stop begins, /readyz answers 503 and
// every response says Connection: close, while the listener stays open for the drain delay so a
// load balancer can see the 503 and route new traffic elsewhere (http/server.ts runs the stop).
export class Drain {
  private began = false;
  private probed = false;

  /** A stop has begun: not ready, and no connection is kept alive past its current response. */
  get draining(): boolean {
    return this.began;
  }

  /**
   * /readyz was asked since the start, so something watches readiness and the drain delay gives
   * it time to notice. Without a watcher the delay would only hold the stop up: no one is told.
   */
  get watched(): boolean {
    return this.probed;
  }

  begin(): void {
    this.began = true;
  }

  noteProbe(): void {
    this.probed = true;
  }
}
