// `npm run bench:queue-choice`: why the distributed scan (issue 33) queues on pg-boss and not
// graphile-worker, measured side by side on this machine's PostgreSQL (PROVENANCE_BENCH_QUEUE's
// server, default the local one):
//  1. claim + acknowledge of 4,000 empty jobs by 8 concurrent consumers, BENCH_RUNS rounds;
//  2. a job held by a consumer that is killed with SIGKILL: how long until another consumer can
//     take it (a scan worker's crash must cost a lease, not hours).
// graphile-worker is not a dependency: install it beside for the run without saving it
// (`npm install --no-save graphile-worker@0.16.6`, its last release for Node 20); without it this
// prints a notice and exits. Figures go into docs/PERFORMANCE.md by hand.
import { spawn } from 'node:child_process';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { admin, freshDatabase } from './bench-databases.mjs';

let graphile;
try {
  graphile = await import('graphile-worker');
} catch {
  console.log('NOTICE: graphile-worker is not installed (npm install --no-save graphile-worker@0.16.6); the comparison is skipped');
  process.exit(0);
}
const { run, runOnce, makeWorkerUtils } = graphile;

const JOBS = 4000;
const CONSUMERS = 8;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The child side of part 2: take one job and hold it until killed. */
async function hold(kind, url) {
  if (kind === 'graphile') {
    await run({ connectionString: url, concurrency: 1, noHandleSignals: true, pollInterval: 200, taskList: { t: () => new Promise(() => {}) } });
  } else {
    const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false });
    await boss.start();
    await boss.fetch('q', { batchSize: 1 });
    setInterval(() => {}, 1000);
  }
}

async function pgBossRate() {
  const url = await freshDatabase('queue_choice_boss');
  const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false, max: CONSUMERS + 2 });
  await boss.start();
  await boss.createQueue('q');
  await boss.insert(Array.from({ length: JOBS }, () => ({ name: 'q', data: {} })));
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      for (;;) {
        const [job] = await boss.fetch('q', { batchSize: 1 });
        if (!job) return;
        await boss.complete('q', job.id);
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - t0) / 1000);
  await boss.stop({ graceful: false });
  if (done !== JOBS) throw new Error(`pg-boss acknowledged ${done} of ${JOBS}`);
  return rate;
}

async function graphileRate() {
  const url = await freshDatabase('queue_choice_graphile');
  const utils = await makeWorkerUtils({ connectionString: url });
  await utils.migrate();
  await utils.release();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    `SELECT graphile_worker.add_jobs(array(SELECT ('t', '{}'::json, null, null, null, null, null, null)::graphile_worker.job_spec FROM generate_series(1, ${JOBS})))`,
  );
  await client.end();
  let done = 0;
  const t0 = performance.now();
  await runOnce({ connectionString: url, concurrency: CONSUMERS, noHandleSignals: true, taskList: { t: async () => void done++ } });
  const rate = done / ((performance.now() - t0) / 1000);
  if (done !== JOBS) throw new Error(`graphile-worker ran ${done} of ${JOBS}`);
  return rate;
}

/** Seconds until a job whose consumer was SIGKILLed is taken by another, or undefined within 60 s. */
async function takenAgain(kind) {
  const url = await freshDatabase(`queue_choice_kill_${kind}`);
  if (kind === 'graphile') {
    const utils = await makeWorkerUtils({ connectionString: url });
    await utils.migrate();
    await utils.addJob('t', {});
    await utils.release();
  } else {
    const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false });
    await boss.start();
    await boss.createQueue('q', { retryLimit: 5 });
    // The lease the bench's scans use at their shortest (`scan start --lease 3`).
    await boss.send('q', {}, { expireInSeconds: 3 });
    await boss.stop({ graceful: false });
  }
  const child = spawn(process.execPath, [process.argv[1], 'hold', kind, url], { stdio: 'inherit' });
  await sleep(3000);
  child.kill('SIGKILL');
  const t0 = performance.now();
  const until = Date.now() + 60_000;
  let got = false;
  if (kind === 'graphile') {
    while (!got && Date.now() < until) {
      await runOnce({ connectionString: url, concurrency: 1, noHandleSignals: true, taskList: { t: async () => void (got = true) } });
      if (!got) await sleep(1000);
    }
  } else {
    const boss = new PgBoss({ connectionString: url, supervise: true, maintenanceIntervalSeconds: 1, schedule: false });
    await boss.start();
    while (!got && Date.now() < until) {
      const [job] = await boss.fetch('q');
      if (job) {
        got = true;
        await boss.complete('q', job.id);
      } else await sleep(200);
    }
    await boss.stop({ graceful: false });
  }
  return got ? (performance.now() - t0) / 1000 : undefined;
}

if (process.argv[2] === 'hold') {
  await hold(process.argv[3], process.argv[4]);
} else {
  const rounds = Number(process.env.BENCH_RUNS ?? 3);
  for (let round = 1; round <= rounds; round++) {
    const boss = await pgBossRate();
    const gw = await graphileRate();
    console.log(`round ${round}: empty jobs claimed and acknowledged, ${CONSUMERS} consumers: pg-boss 10 ${boss.toFixed(0)}/s, graphile-worker 0.16 ${gw.toFixed(0)}/s`);
  }
  for (const kind of ['boss', 'graphile']) {
    const seconds = await takenAgain(kind);
    console.log(`${kind === 'graphile' ? 'graphile-worker' : 'pg-boss, 3 s lease'}: a killed consumer's job ${seconds === undefined ? 'was not taken again within 60 s' : `was taken again after ${seconds.toFixed(1)} s`}`);
  }
  for (const name of ['queue_choice_boss', 'queue_choice_graphile', 'queue_choice_kill_graphile', 'queue_choice_kill_boss']) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  process.exit(0);
}
