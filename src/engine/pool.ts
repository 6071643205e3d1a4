// A fixed pool of detect workers. Tasks queue in the pool and go, in batches, to the least busy
// worker; a worker that crashes or overruns the per-file time limit is replaced, and only the
// task it was on fails.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { ErrorInfo } from '../types.js';
import type { DetectOptions } from './detect.js';
import type { Base64Outcome } from './base64-media.js';
import { decodeGate } from '../media/pixels.js';
import { PixelGate } from '../media/pixel-memory.js';
import {
  PROGRESS_BYTES,
  progressClock,
  runningTask,
  WORKER_READY,
  type CheckReply,
  type Checked,
  type DecodeReply,
  type WorkerReply,
  type WorkerTask,
} from './pool-protocol.js';

/** A task that failed: `inputError` when the file could not be read, else a check failure. */
export class PoolTaskError extends Error {
  constructor(
    readonly info: ErrorInfo,
    readonly inputError: boolean,
  ) {
    super(info.message);
  }
}

interface Pending {
  task: WorkerTask;
  resolve(reply: CheckReply | DecodeReply): void;
  reject(err: PoolTaskError): void;
  /** Times this task was the one running on a worker that crashed. */
  attempts: number;
  /** Its bytes were moved to a worker: if that worker dies, they are gone and it cannot be retried. */
  transferred?: boolean;
  /** The caller reads the bytes after the check (run's keepBytes): copied to the worker, never moved. */
  keepBytes?: boolean;
  /** This task's own time limit (run's timeoutMs), else the pool's. */
  timeoutMs?: number;
}

interface Slot {
  worker: Worker;
  /** Tasks sent to this worker and not answered yet, by task id. */
  inFlight: Map<number, Pending>;
  /** Messages (batches of tasks) sent to this worker and not answered yet. */
  batches: number;
  /** Which task the worker is on and since when (pool-protocol.ts). */
  progress: BigInt64Array;
  /** When each unanswered batch was sent, oldest first (the worker answers them in order). */
  sentMs: number[];
  /** When the worker last answered a batch (or was started), on progressClock(). */
  answeredMs: number;
  /** The worker said WORKER_READY: its code loaded. A replacement starts false again. */
  ready: boolean;
  /** What the worker holds in the process's gate on decoded pixels (PixelGate ledger). */
  pixelLedger: SharedArrayBuffer;
}

/**
 * Batches a worker holds at once. With two, the next batch is there when the current one ends,
 * and a worker never waits a round trip through the main thread for work (profiles showed
 * workers idle a quarter of the time with one task at a time).
 */
const BATCHES_PER_WORKER = 2;
/**
 * What one batch should take, about. Batches pay off for small files (a camera JPEG takes under
 * a millisecond), while for large ones (a video taking seconds) they would only leave one worker
 * with several files at the end of a run and the other idle. So the batch size follows the time
 * files have been taking: up to PoolOptions.batch files, as many as fit in this.
 */
const BATCH_TARGET_MS = 20;
/** A task that was running when its worker crashed, twice, fails instead of running a third time. */
const MAX_ATTEMPTS = 2;
/**
 * How long the replacement of a worker that died before it loaded waits, after `failures` such
 * deaths in a row: at once after the first, then 100 ms doubling up to 30 s. Such a worker (a
 * broken install, a native module that does not load) dies again at once, and replacing it at
 * once would spin a core on thread starts for as long as the daemon runs.
 */
export function respawnDelayMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(30_000, 100 * 2 ** Math.min(failures - 1, 20));
}

/**
 * The built worker entry, dist/detect-worker.js, found from the bundle that runs this code
 * (dist/cli.js, or a lazy bundle in dist/lazy/) or, when the tests run this file from
 * src/engine/, in the built dist/. Undefined before a build.
 */
export function findWorkerUrl(): URL | undefined {
  for (const candidate of ['./detect-worker.js', '../detect-worker.js', '../../dist/detect-worker.js']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) return url;
  }
  return undefined;
}

function workerUrl(): URL {
  const url = findWorkerUrl();
  if (!url) throw new Error('dist/detect-worker.js is missing: run `npm run build`.');
  return url;
}

/**
 * Moves a file's bytes to the worker instead of copying them, when they own their whole
 * ArrayBuffer. Small Node Buffers share a pooled ArrayBuffer with unrelated data: those are
 * copied, since transferring would detach the pool under everyone else.
 */
function transferable(bytes: Uint8Array | undefined): ArrayBuffer[] | undefined {
  if (!bytes || !(bytes.buffer instanceof ArrayBuffer)) return undefined;
  const ownsBuffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return ownsBuffer ? [bytes.buffer] : undefined;
}

export interface PoolOptions {
  size: number;
  /**
   * Per-file limit, counted from the moment the worker starts the file (not from when it was
   * sent, so files waiting behind others in a batch are not charged for them); a worker still
   * busy after it is terminated and replaced.
   */
  taskTimeoutMs?: number;
  /**
   * Tasks sent to a worker in one message, and answered in one: every message wakes the other
   * thread, and on two cores those wake-ups and the interleaving of two files in one worker
   * showed in a folder scan (the benchmark folder: 0.76 s one file per message, about 0.70 s
   * eight per message; docs/PERFORMANCE.md). This is the most; fewer go when files have been
   * taking long (BATCH_TARGET_MS). Default 1, for callers that want each answer as soon as it
   * exists (the daemon).
   */
  batch?: number;
  /**
   * How long a worker may hold tasks without starting one before it counts as stuck and is
   * replaced. Default: the task limit, and at least 10 s (a worker starting on a busy machine).
   */
  startTimeoutMs?: number;
  /** The worker script; the built dist/detect-worker.js unless a test brings its own. */
  workerUrl?: URL;
  /**
   * Workers collect the memory of large files once quiet (idle-collect.ts), which exposes V8's
   * gc() process-wide: the long-running daemon asks for it; a scan, which ends, and a library
   * caller's process are left as they are.
   */
  collectWhenIdle?: boolean;
}

export class DetectPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private readonly taskTimeoutMs: number;
  private readonly batch: number;
  private readonly startTimeoutMs: number;
  private readonly workerUrl: URL;
  private readonly collectWhenIdle: boolean;
  private watchdog?: NodeJS.Timeout;
  /** Recent time per task, from batch round trips (moving average); undefined before any. */
  private msPerTask?: number;
  /** Workers that died before they loaded, in a row (any worker loading resets it). */
  private loadFailures = 0;
  /** Replacements waiting out respawnDelayMs; cleared by close(). */
  private readonly respawns = new Set<NodeJS.Timeout>();

  constructor(options: PoolOptions) {
    this.taskTimeoutMs = options.taskTimeoutMs ?? 120_000;
    this.batch = Math.max(1, options.batch ?? 1);
    this.startTimeoutMs = options.startTimeoutMs ?? Math.max(this.taskTimeoutMs, 10_000);
    this.workerUrl = options.workerUrl ?? workerUrl();
    this.collectWhenIdle = options.collectWhenIdle === true;
    for (let i = 0; i < Math.max(1, options.size); i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.slots.length;
  }

  /** The per-file time limit (PoolOptions.taskTimeoutMs), for callers that name it in an answer. */
  get timeoutMs(): number {
    return this.taskTimeoutMs;
  }

  /**
   * Workers that loaded their code and have not died since (a lost worker's replacement counts
   * once it has loaded); 0 once the pool is closed. Cheap: the daemon's /readyz reads it.
   */
  get liveWorkers(): number {
    return this.closed ? 0 : this.slots.filter((slot) => slot.ready).length;
  }

  /**
   * Workers holding at least one task, and tasks not yet sent to any worker. Cheap (a pass over
   * the slots): the daemon's /metrics reads it on every scrape.
   */
  get load(): { busy: number; queued: number } {
    let busy = 0;
    for (const slot of this.slots) if (slot.inFlight.size > 0) busy++;
    return { busy, queued: this.queue.length };
  }

  /**
   * Checks a file on a worker. Its `bytes` are moved to the worker when they own their buffer
   * (no copy), which leaves the caller's view empty (detached) once this returns; `keepBytes`
   * copies them instead, for a caller that reads them after the check (the Verify page draws
   * its card's pictures from them).
   */
  run(
    input: { source: string; path?: string | Uint8Array; bytes?: Uint8Array; hints?: boolean; keepBytes?: boolean; holdMs?: number; timeoutMs?: number },
    options: DetectOptions = {},
  ): Promise<Checked> {
    const { keepBytes, timeoutMs, ...task } = input;
    return this.submit(
      { ...task, options },
      (reply) => {
        const { result, hints, details } = reply as CheckReply;
        return { result, hints, details };
      },
      keepBytes,
      timeoutMs,
    );
  }

  /**
   * Decodes base64 `text` into `into` on a worker; both must be views on SharedArrayBuffers
   * (the worker reads and writes them in place). Resolves with the decoded length, or why not.
   */
  decodeBase64(source: string, text: Uint8Array, into: Uint8Array): Promise<Base64Outcome> {
    if (!(text.buffer instanceof SharedArrayBuffer) || !(into.buffer instanceof SharedArrayBuffer)) {
      return Promise.reject(new Error('decodeBase64 needs views on SharedArrayBuffers'));
    }
    return this.submit({ source, bytes: text, decodeInto: into, options: {} }, (reply) => (reply as DecodeReply).decoded);
  }

  private submit<T>(task: Omit<WorkerTask, 'id'>, answer: (reply: CheckReply | DecodeReply) => T, keepBytes = false, timeoutMs?: number): Promise<T> {
    if (this.closed) return Promise.reject(new PoolTaskError({ type: 'internal_error', message: 'the pool is closed' }, false));
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, ...task }, resolve: (reply) => resolve(answer(reply)), reject, attempts: 0, keepBytes, timeoutMs });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopWatchdog();
    for (const timer of this.respawns) clearTimeout(timer);
    this.respawns.clear();
    const stopped = (p: Pending) =>
      p.reject(new PoolTaskError({ type: 'cancelled', message: `${p.task.source}: not checked, the run was stopped.` }, false));
    for (const pending of this.queue.splice(0)) stopped(pending);
    for (const slot of this.slots) for (const pending of this.takeAll(slot)) stopped(pending);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate().then(() => decodeGate().reclaim(slot.pixelLedger))));
  }

  private spawn(): Slot {
    const shared = new SharedArrayBuffer(PROGRESS_BYTES);
    // The process's bound on decoded pixels is one gate over all workers (media/pixel-memory.ts);
    // the ledger says what this worker holds in it, for replace() to give back.
    const pixelLedger = PixelGate.ledger();
    const worker = new Worker(this.workerUrl, {
      workerData: { progress: shared, collectWhenIdle: this.collectWhenIdle, pixelGate: decodeGate().memory, pixelLedger },
    });
    const slot: Slot = { worker, inFlight: new Map(), batches: 0, progress: new BigInt64Array(shared), sentMs: [], answeredMs: progressClock(), ready: false, pixelLedger };
    worker.on('message', (message: WorkerReply[] | typeof WORKER_READY) => {
      if (message === WORKER_READY) {
        slot.ready = true;
        this.loadFailures = 0;
      } else this.finish(slot, message);
    });
    worker.on('error', (err) => this.lose(slot, `the worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed) this.lose(slot, `the worker exited with code ${code}`);
    });
    // Idle workers must not keep the process alive; busy ones are ref'd while they work.
    worker.unref();
    return slot;
  }

  private dispatch(): void {
    while (this.queue.length) {
      // The least loaded worker, if any has room.
      const slot = this.slots.reduce((a, b) => (b.batches < a.batches || (b.batches === a.batches && b.inFlight.size < a.inFlight.size) ? b : a));
      if (slot.batches >= BATCHES_PER_WORKER) return;
      const batch = this.queue.splice(0, this.batchSize());
      const transfer: ArrayBuffer[] = [];
      for (const pending of batch) {
        slot.inFlight.set(pending.task.id, pending);
        const moved = pending.keepBytes ? undefined : transferable(pending.task.bytes);
        if (moved) {
          transfer.push(...moved);
          pending.transferred = true;
        }
      }
      slot.batches++;
      slot.sentMs.push(progressClock());
      slot.worker.ref();
      slot.worker.postMessage(
        batch.map((p) => p.task),
        transfer,
      );
    }
    this.startWatchdog();
  }

  /** The task a worker is on right now, if it is one of this slot's. */
  private running(slot: Slot): { pending: Pending; startedMs: number } | undefined {
    const { id, startedMs } = runningTask(slot.progress);
    const pending = slot.inFlight.get(id);
    return pending ? { pending, startedMs } : undefined;
  }

  /**
   * One timer for the pool, running only while tasks are out: it times each worker's current
   * task from its real start, so files waiting behind others in a batch never count those
   * others' time. A worker that holds tasks but starts none of them for as long (stuck before
   * its first task, say) is replaced as lost.
   */
  private startWatchdog(): void {
    if (this.watchdog || this.closed || !this.slots.some((slot) => slot.inFlight.size)) return;
    const every = Math.min(1000, Math.max(1, Math.floor(Math.min(this.taskTimeoutMs, this.startTimeoutMs) / 4)));
    this.watchdog = setInterval(() => {
      for (const slot of [...this.slots]) {
        if (!slot.inFlight.size) continue;
        const now = this.running(slot);
        if (now && progressClock() - now.startedMs > (now.pending.timeoutMs ?? this.taskTimeoutMs)) this.timeout(slot, now.pending);
        // Last contact: the latest batch sent (one is out while tasks are) or answer received.
        else if (!now && progressClock() - Math.max(slot.sentMs.at(-1) ?? 0, slot.answeredMs) > this.startTimeoutMs) {
          this.lose(slot, 'the worker stopped answering');
        }
      }
      if (!this.slots.some((slot) => slot.inFlight.size)) this.stopWatchdog();
    }, every);
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private take(slot: Slot, id: number): Pending | undefined {
    const pending = slot.inFlight.get(id);
    if (!pending) return undefined;
    slot.inFlight.delete(id);
    if (slot.inFlight.size === 0) slot.worker.unref();
    return pending;
  }

  private takeAll(slot: Slot): Pending[] {
    return [...slot.inFlight.keys()].flatMap((id) => this.take(slot, id) ?? []);
  }

  private batchSize(): number {
    if (this.batch === 1 || this.msPerTask === undefined) return this.batch;
    return Math.max(1, Math.min(this.batch, Math.floor(BATCH_TARGET_MS / Math.max(this.msPerTask, 0.01))));
  }

  private finish(slot: Slot, replies: WorkerReply[]): void {
    slot.batches = Math.max(0, slot.batches - 1);
    // The worker began this batch when it was sent or when it answered the one before, if later.
    const now = progressClock();
    const began = Math.max(slot.sentMs.shift() ?? now, slot.answeredMs);
    slot.answeredMs = now;
    if (replies.length) {
      const perTask = (now - began) / replies.length;
      this.msPerTask = this.msPerTask === undefined ? perTask : 0.7 * this.msPerTask + 0.3 * perTask;
    }
    for (const reply of replies) {
      const pending = this.take(slot, reply.id);
      if (!pending) continue;
      if (reply.ok) pending.resolve(reply);
      else pending.reject(new PoolTaskError(reply.error, reply.inputError));
    }
    this.dispatch();
  }

  private replace(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index === -1 || this.closed) return;
    slot.worker.removeAllListeners();
    // A worker stopped mid-file (its time limit) never gives back its decode's hold: once it is
    // gone, the pool does, or the gate would shrink by that much for the rest of the run.
    void slot.worker.terminate().then(() => decodeGate().reclaim(slot.pixelLedger));
    const delay = slot.ready ? 0 : respawnDelayMs(this.loadFailures++);
    if (delay === 0) {
      this.slots[index] = this.spawn();
      return;
    }
    // The dead slot stays in place, full, so nothing is sent to it while its replacement waits.
    slot.batches = Number.POSITIVE_INFINITY;
    const timer = setTimeout(() => {
      this.respawns.delete(timer);
      if (this.closed) return;
      this.slots[index] = this.spawn();
      this.dispatch();
    }, delay);
    timer.unref();
    this.respawns.add(timer);
  }

  /**
   * A worker died. The task it was running is the suspect: it goes back to the front of the
   * queue counted as an attempt, and fails after MAX_ATTEMPTS, so a file that kills workers
   * cannot loop. The others in its batches were waiting (or done but not yet answered) and go
   * back uncounted. A worker that died outside any task (it could not start, say) leaves no
   * suspect, and then every task it held counts the attempt, so a broken worker cannot loop
   * either.
   */
  private lose(slot: Slot, why: string): void {
    const suspect = this.running(slot)?.pending;
    const orphans = this.takeAll(slot);
    this.replace(slot);
    for (const pending of orphans.reverse()) {
      const counts = !suspect || pending === suspect;
      if (counts && ++pending.attempts >= MAX_ATTEMPTS) this.fail(pending, `${pending.task.source}: ${why}.`);
      else this.retry(pending, why);
    }
    this.dispatch();
  }

  private timeout(slot: Slot, late: Pending): void {
    if (!this.take(slot, late.task.id)) return;
    const others = this.takeAll(slot);
    this.replace(slot);
    late.reject(
      new PoolTaskError(
        { type: 'timeout', message: `${late.task.source}: the checks did not finish within ${Math.round((late.timeoutMs ?? this.taskTimeoutMs) / 1000)} s.` },
        false,
      ),
    );
    // The others were only waiting behind it: they go back, not counted as an attempt.
    for (const pending of others.reverse()) this.retry(pending, 'its worker was replaced');
    this.dispatch();
  }

  /** Back to the front of the queue; a task whose bytes went to the lost worker cannot go back. */
  private retry(pending: Pending, why: string): void {
    if (pending.transferred) this.fail(pending, `${pending.task.source}: not checked: ${why}, and the bytes sent to it went with it.`);
    else this.queue.unshift(pending);
  }

  private fail(pending: Pending, message: string): void {
    pending.reject(new PoolTaskError({ type: 'internal_error', message }, false));
  }
}
