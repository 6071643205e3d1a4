// Worker-thread side of the detect pool: reads (when given a path), hashes and runs the detectors
// off the main thread. Each worker loads the c2pa wasm once, on its first signed file.
import { parentPort } from 'node:worker_threads';
import { detailsOfResult } from '../detectors/c2pa-manifest.js';
import { detect } from './detect.js';
import { FileReader, type FileBytes } from './file-reader.js';
import { InputError, inputErrorFrom } from './input-error.js';
import type { WorkerReply, WorkerTask } from './pool-protocol.js';
import { readHints } from './xmp-hints.js';

if (!parentPort) throw new Error('detect-worker must run as a worker thread');
const port = parentPort;
const files = new FileReader();

async function handle(task: WorkerTask): Promise<WorkerReply> {
  let file: FileBytes | undefined;
  try {
    try {
      // A worker has nothing else to do while it reads, so a blocking read is the cheap one: no
      // thread-pool round trip per file (measured in docs/PERFORMANCE.md).
      file = task.bytes ? undefined : files.read(task.path!);
    } catch (err) {
      throw inputErrorFrom(err, task.source);
    }
    const bytes = task.bytes ?? file!.bytes;
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

port.on('message', async (task: WorkerTask) => port.postMessage(await handle(task)));
