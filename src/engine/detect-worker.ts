// Worker-thread side of the detect pool: reads (when given a path), hashes and runs the detectors
// off the main thread. Each worker loads the c2pa wasm once, on its first signed file.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { detailsOfResult } from '../detectors/c2pa-manifest.js';
import { detect } from './detect.js';
import { InputError, inputErrorFrom } from './input-error.js';
import type { WorkerReply, WorkerTask } from './pool-protocol.js';
import { readHints } from './xmp-hints.js';

if (!parentPort) throw new Error('detect-worker must run as a worker thread');
const port = parentPort;

async function handle(task: WorkerTask): Promise<WorkerReply> {
  try {
    let bytes: Uint8Array;
    try {
      // A worker has nothing else to do while it reads, so a blocking read is the cheap one: no
      // thread-pool round trip per file (measured in docs/PERFORMANCE.md).
      bytes = task.bytes ?? readFileSync(task.path!);
    } catch (err) {
      throw inputErrorFrom(err, task.source);
    }
    const result = await detect(bytes, task.options);
    const hints = task.hints ? await readHints(bytes) : undefined;
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
  }
}

port.on('message', async (task: WorkerTask) => port.postMessage(await handle(task)));
