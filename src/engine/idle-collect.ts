// Gives the memory of large dead buffers back once a thread has gone quiet. V8 frees an
// ArrayBuffer's memory only when a garbage collection finds it dead, and collects when the
// thread allocates, not when it idles: after a burst of 25 MB files the daemon's threads held
// hundreds of MB of dead buffers for as long as no new request came (issue 26: 2.0 GB idle).
// So each thread counts the bytes of large buffers it is done with, and once no more have come
// for a short while (the burst is over) it runs one full collection. A busy thread is left to
// V8's own heuristics: the collection runs only after a quiet spell, never per request.
import { v8, vm } from '../media/lazy-builtins.js';

/** Dead bytes worth a full collection: below this V8's own collections keep up. */
export const COLLECT_AFTER_BYTES = 64 * 1024 * 1024;
/** Quiet time after the last large buffer before collecting. */
export const QUIET_MS = 2000;

let gc: (() => void) | null | undefined;

/**
 * V8's `gc()`, without starting node with --expose-gc: the flag set now applies to contexts made
 * after it, and a new context carries the function. null where that is refused.
 */
function collector(): (() => void) | null {
  if (gc !== undefined) return gc;
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return (gc = existing);
  try {
    v8().setFlagsFromString('--expose-gc');
    const made = vm().runInNewContext('gc') as unknown;
    gc = typeof made === 'function' ? (made as () => void) : null;
  } catch {
    gc = null;
  }
  return gc;
}

/** One full collection now, where gc() can be had; false where it cannot. */
export function collectNow(): boolean {
  const run = collector();
  if (!run) return false;
  run();
  return true;
}

/**
 * One young-generation collection now (a scavenge: it visits the young generation only, not the
 * whole heap as collectNow does), where gc() can be had; false where it cannot. It frees the young
 * buffers that died since the last one, a decode's pixels just released among them, so that the
 * allocator hands their memory to the next decode instead of pages fresh from the system.
 */
export function collectYoungNow(): boolean {
  const run = collector() as ((options?: { type: 'minor' }) => void) | null;
  if (!run) return false;
  run({ type: 'minor' });
  return true;
}

export class IdleCollector {
  private dead = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Full collections run so far (for tests and logs). */
  collections = 0;

  constructor(
    private readonly afterBytes = COLLECT_AFTER_BYTES,
    private readonly quietMs = QUIET_MS,
  ) {
    // At once rather than at the first collection: worker threads started after the flag is set
    // get V8's own gc() (a late flag, set after they started, left their dead files in place).
    collector();
  }

  /** `bytes` of large buffers are no longer used by this thread. */
  note(bytes: number): void {
    this.dead += bytes;
    if (this.dead < this.afterBytes) return;
    // Every new note moves the collection further out: it waits for the burst to end.
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.collect(), this.quietMs);
    // Never what keeps a process (or a worker) alive.
    this.timer.unref();
  }

  private collect(): void {
    this.timer = undefined;
    this.dead = 0;
    const run = collector();
    if (!run) return;
    run();
    this.collections++;
  }
}
