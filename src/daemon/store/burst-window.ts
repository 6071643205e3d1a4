// Per-key burst limit for the embedded store: a sliding 60 s window over authenticated POST
// /v1/detect requests (CONTRACT "Headers"). Requests the limit refuses do not enter the window,
// so a client that keeps hammering is not locked out longer than one that waits. Kept in memory:
// a restart forgets at most one minute of history, which only ever errs in the caller's favour.
import type { BurstDecision } from './store.js';

const WINDOW_MS = 60_000;

export class BurstWindows {
  private readonly windows = new Map<string, number[]>();

  take(keyId: string, limit: number, nowMs: number): BurstDecision {
    const window = this.prune(keyId, nowMs);
    const decision = decide(window, limit, nowMs);
    if (decision.allowed) window.push(nowMs);
    return decision;
  }

  /** What `take` would answer, leaving the window as it is (not even creating one). */
  peek(keyId: string, limit: number, nowMs: number): BurstDecision {
    return decide((this.windows.get(keyId) ?? []).filter((t) => t > nowMs - WINDOW_MS), limit, nowMs);
  }

  /** How many keys have a window in memory (what sweep bounds). */
  get trackedKeys(): number {
    return this.windows.size;
  }

  /** Drops keys idle for a whole window, so the map does not grow with every key ever seen. */
  sweep(nowMs: number): void {
    for (const [keyId, window] of this.windows) {
      if (window.length === 0 || window[window.length - 1]! <= nowMs - WINDOW_MS) this.windows.delete(keyId);
    }
  }

  private prune(keyId: string, nowMs: number): number[] {
    let window = this.windows.get(keyId);
    if (!window) {
      window = [];
      this.windows.set(keyId, window);
    }
    let drop = 0;
    while (drop < window.length && window[drop]! <= nowMs - WINDOW_MS) drop++;
    if (drop) window.splice(0, drop);
    return window;
  }
}

/** The answer for a request at `nowMs` to a window of earlier admissions (pruned, oldest first). */
function decide(window: readonly number[], limit: number, nowMs: number): BurstDecision {
  if (window.length >= limit) {
    const wait = Math.max(1, Math.ceil((window[0]! + WINDOW_MS - nowMs) / 1000));
    return { allowed: false, retryAfter: wait, limit, remaining: 0, resetSeconds: wait };
  }
  const oldest = window[0] ?? nowMs;
  return { allowed: true, limit, remaining: limit - window.length - 1, resetSeconds: Math.max(0, Math.ceil((oldest + WINDOW_MS - nowMs) / 1000)) };
}
