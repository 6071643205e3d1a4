// A fixed pool of detect workers. Tasks queue in the pool and go to the next idle worker; a worker
// that crashes or overruns the per-file time limit is replaced, and only its own task fails.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { ErrorInfo } from '../types.js';
import type { DetectOptions } from './detect.js';
import type { Checked, WorkerReply, WorkerTask } from './pool-protocol.js';

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
  resolve(checked: Checked): void;
  reject(err: PoolTaskError): void;
  /** Times this task was on a worker that crashed or was replaced before answering. */
  attempts: number;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  /** Tasks sent to this worker and not answered yet, by task id. */
  inFlight: Map<number, Pending>;
}

/**
 * Tasks a worker holds at once. With two, the next file's read overlaps the current file's
 * checks, and a worker never waits a round trip through the main thread for work (profiles
 * showed workers idle a quarter of the time with one).
 */
const TASKS_PER_WORKER = 2;
/** A task on a worker that crashed twice is failed instead of tried a third time. */
const MAX_ATTEMPTS = 2;

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
  /** Per-file limit; a worker still busy after it is terminated and replaced. */
  taskTimeoutMs?: number;
}

export class DetectPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private readonly taskTimeoutMs: number;

  constructor(options: PoolOptions) {
    this.taskTimeoutMs = options.taskTimeoutMs ?? 120_000;
    for (let i = 0; i < Math.max(1, options.size); i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.slots.length;
  }

  run(input: { source: string; path?: string; bytes?: Uint8Array; hints?: boolean }, options: DetectOptions = {}): Promise<Checked> {
    if (this.closed) return Promise.reject(new PoolTaskError({ type: 'internal_error', message: 'the pool is closed' }, false));
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, ...input, options }, resolve, reject, attempts: 0 });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopped = (p: Pending) =>
      p.reject(new PoolTaskError({ type: 'cancelled', message: `${p.task.source}: not checked, the run was stopped.` }, false));
    for (const pending of this.queue.splice(0)) stopped(pending);
    for (const slot of this.slots) for (const pending of this.takeAll(slot)) stopped(pending);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(workerUrl());
    const slot: Slot = { worker, inFlight: new Map() };
    worker.on('message', (reply: WorkerReply) => this.finish(slot, reply));
    worker.on('error', (err) => this.lose(slot, `the worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed) this.lose(slot, `the worker exited with code ${code}`);
    });
    // Idle workers must not keep the process alive; busy ones are ref'd while they work.
    worker.unref();
    return slot;
  }

  private dispatch(): void {
    for (;;) {
      const next = this.queue[0];
      if (!next) return;
      // The least loaded worker, if any has room.
      const slot = this.slots.reduce((a, b) => (b.inFlight.size < a.inFlight.size ? b : a));
      if (slot.inFlight.size >= TASKS_PER_WORKER) return;
      this.queue.shift();
      slot.inFlight.set(next.task.id, next);
      slot.worker.ref();
      next.timer = setTimeout(() => this.timeout(slot, next), this.taskTimeoutMs);
      slot.worker.postMessage(next.task, transferable(next.task.bytes));
    }
  }

  private take(slot: Slot, id: number): Pending | undefined {
    const pending = slot.inFlight.get(id);
    if (!pending) return undefined;
    slot.inFlight.delete(id);
    clearTimeout(pending.timer);
    if (slot.inFlight.size === 0) slot.worker.unref();
    return pending;
  }

  private takeAll(slot: Slot): Pending[] {
    return [...slot.inFlight.keys()].flatMap((id) => this.take(slot, id) ?? []);
  }

  private finish(slot: Slot, reply: WorkerReply): void {
    const pending = this.take(slot, reply.id);
    if (!pending) return;
    if (reply.ok) pending.resolve({ result: reply.result, hints: reply.hints, details: reply.details });
    else pending.reject(new PoolTaskError(reply.error, reply.inputError));
    this.dispatch();
  }

  private replace(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index === -1 || this.closed) return;
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    this.slots[index] = this.spawn();
  }

  /**
   * Tasks that were on a worker that died or was replaced go back to the front of the queue:
   * the one at fault is not known, and innocent files must not be lost. A task caught in that
   * twice fails, so a file that kills workers cannot loop.
   */
  private requeue(orphans: Pending[], why: string): void {
    for (const pending of orphans.reverse()) {
      if (++pending.attempts >= MAX_ATTEMPTS) {
        pending.reject(new PoolTaskError({ type: 'internal_error', message: `${pending.task.source}: ${why}.` }, false));
      } else {
        this.queue.unshift(pending);
      }
    }
  }

  private lose(slot: Slot, why: string): void {
    const orphans = this.takeAll(slot);
    this.replace(slot);
    this.requeue(orphans, why);
    this.dispatch();
  }

  private timeout(slot: Slot, late: Pending): void {
    if (!this.take(slot, late.task.id)) return;
    const others = this.takeAll(slot);
    this.replace(slot);
    late.reject(
      new PoolTaskError(
        { type: 'timeout', message: `${late.task.source}: the checks did not finish within ${Math.round(this.taskTimeoutMs / 1000)} s.` },
        false,
      ),
    );
    // The others were only waiting behind it: they go back, not counted as an attempt.
    for (const pending of others.reverse()) this.queue.unshift(pending);
    this.dispatch();
  }
}
