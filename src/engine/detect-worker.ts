// Worker-thread side of the detect pool: reads (when given a path), hashes and runs the detectors
// off the main thread. Each worker loads the c2pa wasm once, on its first signed file.
import { parentPort, workerData } from 'node:worker_threads';
import { detailsOfResult } from '../detectors/c2pa-manifest.js';
import { decodeBase64Into } from './base64-media.js';
import { detect } from './detect.js';
import { FileReader, type FileBytes } from './file-reader.js';
import { InputError, inputErrorFrom } from './input-error.js';
import { markIdle, markTaskStarted, PROGRESS_BYTES, WORKER_READY, type WorkerReply, type WorkerTask } from './pool-protocol.js';
import { readHints } from '../media/xmp-hints.js';
import { useDecodeGate } from '../media/pixels.js';
import { IdleCollector } from './idle-collect.js';

if (!parentPort) throw new Error('detect-worker must run as a worker thread');
const port = parentPort;
const files = new FileReader();
// Shared with the pool (pool-protocol.ts); a worker started by hand gets a private one.
const data = workerData as { progress?: SharedArrayBuffer; collectWhenIdle?: boolean; pixelGate?: SharedArrayBuffer; pixelLedger?: SharedArrayBuffer } | undefined;
const progress = new BigInt64Array(data?.progress ?? new SharedArrayBuffer(PROGRESS_BYTES));
// Decoded pixels count in one bound over the pool's workers (media/pixel-memory.ts).
if (data?.pixelGate) useDecodeGate(data.pixelGate, data.pixelLedger);
// Files moved here from the pool (the daemon's downloads and uploads) are dead once checked, and
// so are this thread's handles on shared buffers (inline bodies), which keep them alive until
// collected: a quiet worker gives that memory back (idle-collect.ts). Small files are left to V8.
// Only where the pool asks for it (the daemon's): a scan ends, and its memory with it.
const deadFiles = data?.collectWhenIdle ? new IdleCollector() : undefined;
const LARGE_FILE = 1024 * 1024;

async function handle(task: WorkerTask): Promise<WorkerReply> {
  let file: FileBytes | undefined;
  try {
    if (task.decodeInto) {
      const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
      return { id: task.id, ok: true, decoded: decodeBase64Into(view(task.bytes!), view(task.decodeInto)) };
    }
    try {
      // A worker has nothing else to do while it reads, so a blocking read is the cheap one: no
      // thread-pool round trip per file (measured in docs/PERFORMANCE.md).
      if (!task.bytes) file = files.read(task.path!);
      else if (task.bytes.buffer instanceof SharedArrayBuffer) file = files.copy(task.bytes);
    } catch (err) {
      throw inputErrorFrom(err, task.source, typeof task.path === 'object' ? Buffer.from(task.path) : task.source);
    }
    const bytes = file?.bytes ?? task.bytes!;
    // Blocks the thread, as a slow check would: the pool's watchdog sees a task that runs on.
    if (task.holdMs) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, task.holdMs);
    const result = await detect(bytes, task.options);
    const hints = task.hints ? await readHints(bytes) : undefined;
    // Nothing in the reply refers to the bytes (c2pa-rs copies them into its own memory), so the
    // buffer can serve the next file.
    return { id: task.id, ok: true, result, hints, details: detailsOfResult(result) };
  } catch (err) {
    const inputError = err instanceof InputError;
    return {
      id: task.id,
      ok: false,
      inputError,
      error: inputError
        ? err.toInfo()
        : { type: (err as { type?: string })?.type ?? 'internal_error', message: (err as Error)?.message ?? String(err) },
    };
  } finally {
    file?.release();
  }
}

// Batches wait here and run one task at a time, in order: no two files interleave at their
// awaits, so a worker holds one read buffer and the pool always knows which task is running.
const waiting: WorkerTask[][] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  while (waiting.length) {
    const batch = waiting.shift()!;
    const replies: WorkerReply[] = [];
    for (const task of batch) {
      markTaskStarted(progress, task.id);
      replies.push(await handle(task));
      const seen = task.bytes?.byteLength ?? 0;
      if (seen >= LARGE_FILE) deadFiles?.note(seen);
    }
    markIdle(progress);
    port.postMessage(replies);
  }
  draining = false;
}

port.on('message', (batch: WorkerTask[]) => {
  waiting.push(batch);
  if (!draining) void drain();
});
// Everything above loaded without throwing, and tasks are listened for: this worker is up.
port.postMessage(WORKER_READY);
