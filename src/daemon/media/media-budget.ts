// One budget for the media bytes the daemon holds in memory at once: URL downloads, inline JSON
// and multipart detect bodies, uploads read back for a detection (CONTRACT "Error body",
// 503 server_busy; docs/SECURITY.md). Without it, memory grows with the number of concurrent
// requests: 120 downloads of 25 MB took the daemon past 2 GB (issue 26).
//
// A request takes its bytes before it holds them and gives them back once the detection is
// done. Requests that do not fit wait in arrival order (FIFO): a large request at the head is
// not overtaken by a stream of small ones, so it cannot starve. A wait is bounded; past it the
// request is refused with 503 server_busy and Retry-After, and the caller gives back whatever it
// reserved before (the quota call).
import { ApiError } from '../contract/errors.js';
import { MB } from '../contract/limits.js';
import { parseByteSize } from '../contract/byte-size.js';

/** Bytes taken from the budget; give them back with `release` (later calls do nothing). */
export interface MediaHold {
  /** Bytes held now. */
  readonly bytes: number;
  /** Gives back all but `bytes` (a file found smaller than reserved); never grows the hold. */
  shrink(bytes: number): void;
  release(): void;
}

interface Waiter {
  bytes: number;
  /** A request that already holds bytes, taking more (acquire's `holding`). */
  ahead: boolean;
  /** What it holds already (null: nothing), which stays out while it waits. */
  own?: MediaHold | null;
  grant(hold: MediaHold): void;
  refuse(err: Error): void;
}

export const DEFAULT_MEDIA_MEMORY_BYTES = 256 * MB;
export const DEFAULT_MEDIA_WAIT_MS = 10_000;

export class MediaBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];
  /** Every hold with bytes in it. */
  private readonly outstanding = new Set<MediaHold>();

  /**
   * @param capacity  bytes of media held at once, over every request
   * @param waitMs    how long a request may wait for room before its 503
   * @param onFreed   told the bytes each hold gives back
   */
  constructor(
    readonly capacity: number = DEFAULT_MEDIA_MEMORY_BYTES,
    readonly waitMs: number = DEFAULT_MEDIA_WAIT_MS,
    private readonly onFreed?: (bytes: number) => void,
  ) {
    if (!(Number.isSafeInteger(capacity) && capacity > 0)) throw new RangeError(`media budget: capacity must be a whole number of bytes above 0, not ${capacity}`);
    if (!(Number.isFinite(waitMs) && waitMs >= 0)) throw new RangeError(`media budget: wait must be 0 or more milliseconds, not ${waitMs}`);
  }

  /** Bytes held now, over every request. */
  get inUse(): number {
    return this.used;
  }

  /** Requests waiting for room now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Takes `bytes` (at most the whole budget: a file larger than the budget runs alone rather
   * than never). Resolves at once when they fit and nobody waits before; else waits its turn.
   * Rejects with 503 server_busy after `waitMs`, or with `signal`'s reason once it aborts (the
   * client went away); either way nothing stays taken.
   *
   * `holding`: the caller already holds this hold (null: nothing) and now needs more to finish
   * (the pixels its file decodes, known once the file is in hand). It waits before every request
   * that holds nothing yet, behind only earlier such callers: queued behind new arrivals, which
   * wait for the room it holds, it would wait out its whole wait for nothing. It takes at most
   * what the budget has beside its own bytes, so that alone it always fits. And when every hold
   * out is one of such waiting callers' own, none would ever be given back: the first of them is
   * then granted past the capacity (by at most the others' bytes) rather than all waiting out
   * their wait for each other.
   */
  acquire(bytes: number, signal?: AbortSignal, holding?: MediaHold | null): Promise<MediaHold> {
    const ahead = holding !== undefined;
    const room = this.capacity - Math.min(this.capacity, Math.max(0, holding?.bytes ?? 0));
    const want = Math.min(Math.max(0, Math.ceil(bytes)), room);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const before = ahead ? this.queue.findIndex((w) => !w.ahead) : this.queue.length;
    const queuedBefore = before < 0 ? this.queue.length : before;
    if (queuedBefore === 0 && this.used + want <= this.capacity) return Promise.resolve(this.take(want));
    return new Promise<MediaHold>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        bytes: want,
        ahead,
        own: holding,
        grant: (hold) => {
          settle();
          resolve(hold);
        },
        refuse: (err) => {
          settle();
          reject(err);
        },
      };
      const leave = (err: Error) => {
        const i = this.queue.indexOf(waiter);
        if (i < 0) return;
        this.queue.splice(i, 1);
        waiter.refuse(err);
        // The head may have been the one blocking smaller requests behind it.
        this.grantWaiting();
      };
      const timer = setTimeout(() => leave(this.busyError()), this.waitMs);
      const onAbort = () => leave(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.splice(queuedBefore, 0, waiter);
      this.breakDeadlock();
    });
  }

  /** Grants the first waiting holder past the capacity when every hold out belongs to a waiting
   * holder (acquire's `holding`): nothing held would ever come back otherwise. */
  private breakDeadlock(): void {
    const head = this.queue[0];
    if (!head?.ahead) return;
    const waitingOwn = new Set(this.queue.filter((w) => w.ahead && w.own).map((w) => w.own));
    for (const hold of this.outstanding) if (!waitingOwn.has(hold)) return;
    this.queue.shift();
    head.grant(this.take(head.bytes));
  }

  /** 503 server_busy; Retry-After as long as this request waited (at least a second). */
  busyError(): ApiError {
    const seconds = Math.max(1, Math.ceil(this.waitMs / 1000));
    return new ApiError(
      'server_busy',
      `The daemon's memory for media (${formatBytes(this.capacity)}) stayed full for ${this.waitMs / 1000} seconds; retry in ${seconds} seconds.`,
      undefined,
      seconds,
    );
  }

  private take(bytes: number): MediaHold {
    this.used += bytes;
    let held = bytes;
    const give = (n: number) => {
      held -= n;
      this.used -= n;
      if (held === 0) this.outstanding.delete(hold);
      this.onFreed?.(n);
      this.grantWaiting();
    };
    const hold: MediaHold = {
      get bytes() {
        return held;
      },
      shrink: (to: number) => {
        const keep = Math.max(0, Math.ceil(to));
        if (keep < held) give(held - keep);
      },
      release: () => {
        if (held > 0) give(held);
      },
    };
    if (held > 0) this.outstanding.add(hold);
    return hold;
  }

  /** Grants waiters from the head while they fit; the first that does not fit stops the rest. */
  private grantWaiting(): void {
    while (this.queue.length > 0 && this.used + this.queue[0]!.bytes <= this.capacity) {
      const next = this.queue.shift()!;
      next.grant(this.take(next.bytes));
    }
    this.breakDeadlock();
  }
}

function formatBytes(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MiB` : `${bytes} bytes`;
}

/**
 * `--media-memory`: a size as the other size flags take it (contract/byte-size.ts: bytes, or a
 * number with a binary unit, `256MiB`). At least 1 MiB: a smaller budget would hold no useful
 * file and make every large request run alone.
 */
export function parseMediaMemory(text: string): number {
  const bytes = parseByteSize(text);
  if (bytes === undefined || bytes < MB) {
    throw new RangeError(`--media-memory must be a size of at least 1 MiB, e.g. 256MiB or 268435456 (bytes), not "${text}"`);
  }
  return bytes;
}

/** `--media-wait`: seconds (a decimal allowed), 0 to 600; returns milliseconds. */
export function parseMediaWait(text: string): number {
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(seconds >= 0 && seconds <= 600)) throw new RangeError(`--media-wait must be a number of seconds from 0 to 600, e.g. 10, not "${text}"`);
  return Math.round(seconds * 1000);
}
