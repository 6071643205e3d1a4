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
}

interface Slot {
  worker: Worker;
  busy?: Pending;
  timer?: NodeJS.Timeout;
}

/**
 * The built worker entry: dist/detect-worker.js, found from the bundle (dist/cli.js or a chunk
 * in dist/chunks/) or, when the tests run this file from src/engine/, in the built dist/.
 */
function workerUrl(): URL {
  for (const candidate of ['./detect-worker.js', '../detect-worker.js', '../../dist/detect-worker.js']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) return url;
  }
  throw new Error('dist/detect-worker.js is missing: run `npm run build`.');
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
      this.queue.push({ task: { id: this.nextId++, ...input, options }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) {
      pending.reject(new PoolTaskError({ type: 'cancelled', message: `${pending.task.source}: not checked, the run was stopped.` }, false));
    }
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(workerUrl());
    const slot: Slot = { worker };
    worker.on('message', (reply: WorkerReply) => this.finish(slot, reply));
    worker.on('error', (err) => this.fail(slot, `the worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed) this.fail(slot, `the worker exited with code ${code}`);
    });
    // Idle workers must not keep the process alive; busy ones are ref'd while they work.
    worker.unref();
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const next = this.queue.shift();
      if (!next) return;
      slot.busy = next;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.timeout(slot), this.taskTimeoutMs);
      slot.worker.postMessage(next.task, transferable(next.task.bytes));
    }
  }

  private release(slot: Slot): Pending | undefined {
    const pending = slot.busy;
    slot.busy = undefined;
    clearTimeout(slot.timer);
    slot.worker.unref();
    return pending;
  }

  private finish(slot: Slot, reply: WorkerReply): void {
    const pending = this.release(slot);
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

  private fail(slot: Slot, why: string): void {
    const pending = this.release(slot);
    this.replace(slot);
    pending?.reject(new PoolTaskError({ type: 'internal_error', message: `${pending.task.source}: ${why}.` }, false));
    this.dispatch();
  }

  private timeout(slot: Slot): void {
    const pending = this.release(slot);
    this.replace(slot);
    pending?.reject(
      new PoolTaskError(
        { type: 'timeout', message: `${pending.task.source}: the checks did not finish within ${Math.round(this.taskTimeoutMs / 1000)} s.` },
        false,
      ),
    );
    this.dispatch();
  }
}
