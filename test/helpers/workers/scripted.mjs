// A stand-in for dist/detect-worker.js that speaks the pool's protocol (src/engine/pool-protocol.ts)
// and does what each task's `source` says, so test/pool-batches.test.ts can drive the pool's
// batching, time limits and crash handling with real threads:
//   "ok:<name>"   answer at once          "slow:<ms>"  busy for <ms>, then answer
//   "hang"        never answer            "crash"      end the thread with exit code 3
//   "hold:<kib>"  take <kib> KiB in the process's decoded-pixel gate as a decode does (the
//                 gate's and the ledger's shared memory from workerData, as PixelGate lays them
//                 out: KiB held at index 0 of each), then never answer
// A worker thread cannot load the TypeScript sources, so the progress writes below mirror
// markTaskStarted / markIdle (start at index 1 before id at index 0; 0 when idle).
import { parentPort, workerData } from 'node:worker_threads';

const progress = new BigInt64Array(workerData.progress);
const clock = () => Number(process.hrtime.bigint() / 1_000_000n); // as progressClock()
const waiting = [];
let draining = false;

async function run(task, batchSize) {
  const [kind, arg] = task.source.split(':');
  if (kind === 'crash') process.exit(3);
  if (kind === 'hang') await new Promise(() => {});
  if (kind === 'hold') {
    Atomics.add(new Int32Array(workerData.pixelGate), 0, Number(arg));
    Atomics.add(new Int32Array(workerData.pixelLedger), 0, Number(arg));
    await new Promise(() => {});
  }
  if (kind === 'slow') {
    const until = Date.now() + Number(arg);
    while (Date.now() < until); // busy, as a file being read and hashed is
  }
  // The batch size rides along so a test can see how the pool grouped its tasks.
  return { id: task.id, ok: true, result: { id: `chk_${task.source}`, batch: batchSize } };
}

async function drain() {
  draining = true;
  while (waiting.length) {
    const replies = [];
    const batch = waiting.shift();
    for (const task of batch) {
      Atomics.store(progress, 1, BigInt(clock()));
      Atomics.store(progress, 0, BigInt(task.id));
      replies.push(await run(task, batch.length));
    }
    Atomics.store(progress, 0, 0n);
    parentPort.postMessage(replies);
  }
  draining = false;
}

parentPort.on('message', (batch) => {
  waiting.push(batch);
  if (!draining) void drain();
});
