// Node's built-in modules that only some runs need, loaded on their first use rather than at
// start-up. A `check` of a local file loads every module its static imports name before it reads
// a byte, and each of these costs Node a compile of its own JavaScript: zlib, v8, vm and
// worker_threads together some 15-20 ms of CPU in a process that needs none of them for most
// inputs (a PNG without a compressed text chunk, a CLI run on this thread). require() keeps each
// one after its first load, as an import would.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** node:zlib (a compressed PNG text chunk, a gzipped alpha payload, the scan cache's records). */
export const zlib = (): typeof import('node:zlib') => require('node:zlib');
/** node:v8 (V8 flags: gc() for the idle collector, the c2pa wasm's tiering budget). */
export const v8 = (): typeof import('node:v8') => require('node:v8');
/** node:vm (the context that carries gc() once the flag is set). */
export const vm = (): typeof import('node:vm') => require('node:vm');
/** node:worker_threads (whether this is a pool's worker). */
export const workerThreads = (): typeof import('node:worker_threads') => require('node:worker_threads');
