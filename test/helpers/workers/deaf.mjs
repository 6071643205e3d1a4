// A worker that starts and then never takes a task (stuck, as a worker could be before its first).
import { parentPort } from 'node:worker_threads';
parentPort.on('message', () => {});
