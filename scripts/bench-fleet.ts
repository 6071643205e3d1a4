// `npm run bench:fleet`: the distributed scan (issue 33) on this machine's PostgreSQL, in one run:
//  - the 1,100-file folder of `npm run bench` (.bench/scan) scanned by one worker and by two, each
//    held to a core of its own (taskset), as one-core machines would run them: the speed-up;
//  - the same folder by one worker with the machine's threads, against a plain `check --json` of
//    it with as many: what the queue and the result writes cost per input;
//  - beside it, the same split without any queue: `check --json` held to one core on every file,
//    and two of them at once, each held to a core of its own, on every other file: what this
//    machine's two cores give two independent processes (the fleet's speed-up cannot beat it);
//  - the queue's own ceiling: batches claimed and completed per second with empty work (the
//    workers' real loop: claim, read the scan, read the batch's rows, acknowledge), which bounds
//    how many machines one PostgreSQL can feed;
//  - a model of a 50-million-object archive on N machines from those figures.
// BENCH_RUNS rounds (default 3), each running every contender once. The queue is a database of
// its own made on PROVENANCE_BENCH_QUEUE's server (default the local one) and dropped after.
// Figures go into docs/PERFORMANCE.md by hand; nothing here is a pass/fail test.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openFleet } from '../src/fleet/fleet-connection.js';
import { runWorker } from '../src/fleet/scan-worker.js';
import { queueBatch } from '../src/fleet/batch-jobs.js';
import { SCAN_SCHEMA } from '../src/fleet/fleet-settings.js';
import { poolRunner } from '../src/library/checker.js';
import { admin, BENCH_SERVER, freshDatabase } from './bench-databases.mjs';
import { buildScanFolder } from './bench-folders.js';
import { listFiles, median } from './bench-kit.js';
import { sha256Ms } from './machine-speed.js';

// npm runs the benches from the project's root (scripts/run-ts.mjs bundles this file elsewhere).
const ROOT = resolve('.');
const BIN = join(ROOT, 'bin', 'provenance.js');
const BENCH = join(ROOT, '.bench');
/**
 * Inputs per job in the one-core worker rows: 22 jobs for 1,100 files, so two workers split them
 * evenly (the default 200 makes 6, and the last one's tail would cap two workers at 1.83x). The
 * row against `check --json` runs the default.
 */
const SPLIT_BATCH = 50;
const CEILING_JOBS = 4000;
const CEILING_LOOPS = 8;

const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
// As the other benches: NODE_EXTRA_CA_CERTS costs every Node start ~45 ms; users do not set it.
if (!process.env.BENCH_KEEP_ENV) delete env.NODE_EXTRA_CA_CERTS;

/** The bench's queue database, made fresh for every run and dropped at the end. */
const QUEUE_DATABASE = `provenance_bench_fleet_${process.pid}`;
const freshQueue = () => freshDatabase(QUEUE_DATABASE);

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolveRun(Buffer.concat(out).toString()) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${Buffer.concat(err)}`))));
  });
}

async function timed(...commands: [string, string[]][]): Promise<number> {
  const t0 = performance.now();
  await Promise.all(commands.map(([cmd, args]) => run(cmd, args)));
  return performance.now() - t0;
}

function warm(files: string[]): void {
  for (const f of files) execFileSync('cat', [f], { stdio: 'ignore' });
}

interface FleetRun {
  startMs: number;
  workMs: number;
}

/** scan start, then `workers` (each `[taskset core | undefined, threads]`) with --until-empty; results checked. */
async function fleetRun(dir: string, files: number, workers: [number | undefined, number][], batch?: number): Promise<FleetRun> {
  const queue = await freshQueue();
  const startMs = await timed([process.execPath, [BIN, 'scan', 'start', 'bench', dir, '--queue', queue, ...(batch ? ['--batch', String(batch)] : []), '--quiet']]);
  const workMs = await timed(
    ...workers.map(([core, threads]): [string, string[]] => {
      const args = [BIN, 'scan', 'worker', '--queue', queue, '--until-empty', '--quiet', '--concurrency', String(threads)];
      return core === undefined ? [process.execPath, args] : ['taskset', ['-c', String(core), process.execPath, ...args]];
    }),
  );
  const client = new pg.Client({ connectionString: queue });
  await client.connect();
  const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${SCAN_SCHEMA}.inputs WHERE scan = 'bench' AND line IS NOT NULL`);
  await client.end();
  if (rows[0].n !== files) throw new Error(`the scan wrote ${rows[0].n} results for ${files} files`);
  return { startMs, workMs };
}

/** Batches claimed and acknowledged per second by CEILING_LOOPS worker loops with nothing to check. */
async function queueCeiling(): Promise<number> {
  const queue = await freshQueue();
  const fleet = await openFleet(queue, { max: CEILING_LOOPS + 2 });
  try {
    await fleet.pool.query(`INSERT INTO ${SCAN_SCHEMA}.scans (name, state, options, sources, batch_size, lease_seconds, engine) VALUES ('empty', 'queued', '{"checks":[],"catalogue":"full"}', '[]', 200, 60, 'bench')`);
    await fleet.transaction(async (client) => {
      for (let i = 0; i < CEILING_JOBS; i++) await queueBatch(fleet, client, 'empty', [], 60);
    });
    const runner = poolRunner(1, process.stdin); // never started: no batch has an input
    const t0 = performance.now();
    const summaries = await Promise.all(
      Array.from({ length: CEILING_LOOPS }, (_, i) =>
        runWorker({ fleet, runner, engine: 'bench', signal: new AbortController().signal, log: () => {}, untilEmpty: true, id: `loop${i}` }),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    const batches = summaries.reduce((sum, s) => sum + s.batches, 0);
    if (batches !== CEILING_JOBS) throw new Error(`the loops acknowledged ${batches} of ${CEILING_JOBS} batches`);
    await runner.close();
    return batches / seconds;
  } finally {
    await fleet.close();
  }
}

async function main(): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const dir = join(BENCH, 'scan');
  console.log('building the benchmark folder (cached in .bench/) ...');
  await buildScanFolder(dir, 1000, 100, join(BENCH, 'pki'));
  const files = listFiles(dir);
  const cores = availableParallelism();
  console.log(`${files.length} files, ${cores} cores, node ${process.version}, queue server ${new URL(BENCH_SERVER).host}`);
  if (cores < 2) throw new Error('the two-worker row needs two cores');

  // Two halves of equal work for the split without a queue: the folder alternates large and small
  // camera JPEGs, so files 0 and 3 of every four go to one half, 1 and 2 to the other.
  const halves = [0, 1].map((half) => {
    const list = join(BENCH, `fleet-half-${half}.txt`);
    writeFileSync(list, files.filter((_, i) => (i % 4 === 0 || i % 4 === 3) === (half === 0)).join('\n') + '\n');
    return list;
  });
  const allList = join(BENCH, 'fleet-all.txt');
  writeFileSync(allList, files.join('\n') + '\n');
  const pinnedCheck = (core: number, list: string): [string, string[]] => ['taskset', ['-c', String(core), process.execPath, BIN, 'check', '--json', '--concurrency', '1', '--files-from', list]];

  // An empty folder: what each side costs before its first input (process, engine, connections).
  const empty = join(BENCH, 'fleet-empty');
  mkdirSync(empty, { recursive: true });

  const rows: Record<string, number[]> = {
    check: [],
    oneWorker: [],
    start: [],
    checkEmpty: [],
    fleetEmpty: [],
    onePinned: [],
    twoPinned: [],
    checkOnePinned: [],
    checkTwoPinned: [],
    ceiling: [],
    gauge: [],
  };
  for (let i = 0; i < runs; i++) {
    // The gauge of every bench: SHA-256 of 1.9 MB (docs/PERFORMANCE.md, scripts/machine-speed.ts).
    rows.gauge!.push(sha256Ms(Buffer.alloc(1957448, 7)));
    warm(files);
    rows.check!.push(await timed([process.execPath, [BIN, 'check', '--json', '--concurrency', String(cores), dir]]));
    warm(files);
    const one = await fleetRun(dir, files.length, [[undefined, cores]]);
    rows.oneWorker!.push(one.startMs + one.workMs);
    rows.start!.push(one.startMs);
    rows.checkEmpty!.push(await timed([process.execPath, [BIN, 'check', '--json', '--allow-empty', '--concurrency', String(cores), empty]]));
    const none = await fleetRun(empty, 0, [[undefined, cores]]);
    rows.fleetEmpty!.push(none.startMs + none.workMs);
    warm(files);
    rows.onePinned!.push((await fleetRun(dir, files.length, [[0, 1]], SPLIT_BATCH)).workMs);
    warm(files);
    rows.twoPinned!.push((await fleetRun(dir, files.length, [[0, 1], [1, 1]], SPLIT_BATCH)).workMs);
    warm(files);
    rows.checkOnePinned!.push(await timed(pinnedCheck(0, allList)));
    warm(files);
    rows.checkTwoPinned!.push(await timed(pinnedCheck(0, halves[0]!), pinnedCheck(1, halves[1]!)));
    rows.ceiling!.push(await queueCeiling());
    const sec = (k: string) => (rows[k]!.at(-1)! / 1000).toFixed(2);
    console.log(
      `round ${i + 1}: check ${sec('check')} s, fleet of one ${sec('oneWorker')} s, one pinned ${sec('onePinned')} s, two pinned ${sec('twoPinned')} s, ` +
        `check pinned ${sec('checkOnePinned')} s, two checks pinned ${sec('checkTwoPinned')} s, queue ${rows.ceiling!.at(-1)!.toFixed(0)} batches/s`,
    );
  }
  await admin(`DROP DATABASE IF EXISTS ${QUEUE_DATABASE} WITH (FORCE)`);

  const m = (k: string) => median(rows[k]!);
  const n = files.length;
  const perCore = n / (m('onePinned') / 1000);
  const overhead = m('oneWorker') / m('check') - 1;
  console.log(`\n== medians of ${runs} rounds (machine gauge: SHA-256 of 1.9 MB in ${m('gauge').toFixed(2)} ms; rounds ${rows.gauge!.map((g) => g.toFixed(2)).join(', ')})`);
  console.log(`check --json, ${cores} threads:                       ${(m('check') / 1000).toFixed(2)} s`);
  console.log(`scan start + 1 worker, ${cores} threads:              ${(m('oneWorker') / 1000).toFixed(2)} s (scan start ${(m('start') / 1000).toFixed(2)} s of it)`);
  console.log(`  the whole runs:                                 +${((m('oneWorker') - m('check')) / n).toFixed(2)} ms an input, ${(overhead * 100).toFixed(1)} %`);
  // Per input: each side less what it costs on an empty folder (its processes' start, engine and
  // connections), measured in the same rounds.
  const perCheck = (m('check') - m('checkEmpty')) / n;
  const perFleet = (m('oneWorker') - m('fleetEmpty')) / n;
  console.log(`  per input (each less its run on an empty folder: check ${(m('checkEmpty') / 1000).toFixed(2)} s, scan start + worker ${(m('fleetEmpty') / 1000).toFixed(2)} s):`);
  console.log(`    check ${perCheck.toFixed(2)} ms, through the queue ${perFleet.toFixed(2)} ms: +${(perFleet - perCheck).toFixed(2)} ms, ${((perFleet / perCheck - 1) * 100).toFixed(1)} % (target <= 10 %)`);
  console.log(`1 worker on 1 core:                              ${(m('onePinned') / 1000).toFixed(2)} s (${perCore.toFixed(0)} inputs/s)`);
  console.log(`2 workers, a core each:                          ${(m('twoPinned') / 1000).toFixed(2)} s: ${(m('onePinned') / m('twoPinned')).toFixed(2)}x (target >= 1.8x; rounds ${rows.onePinned!.map((o, i) => (o / rows.twoPinned![i]!).toFixed(2)).join(', ')})`);
  console.log(`without a queue: check on 1 core ${(m('checkOnePinned') / 1000).toFixed(2)} s, two checks on a core each, half the files each ${(m('checkTwoPinned') / 1000).toFixed(2)} s: ${(m('checkOnePinned') / m('checkTwoPinned')).toFixed(2)}x (rounds ${rows.checkOnePinned!.map((o, i) => (o / rows.checkTwoPinned![i]!).toFixed(2)).join(', ')})`);
  const ceiling = m('ceiling');
  console.log(`queue ceiling, empty batches, ${CEILING_LOOPS} loops:           ${ceiling.toFixed(0)} batches/s = ${(ceiling * 200).toLocaleString('en-US')} inputs/s at 200 a batch`);
  console.log(`  = the inputs of ${Math.floor((ceiling * 200) / perCore).toLocaleString('en-US')} one-core workers at ${perCore.toFixed(0)} inputs/s`);
  console.log('\n50,000,000 objects (this folder\'s mix), N machines of 2 cores, at the measured per-core rate:');
  for (const machines of [1, 10, 50, 100, 500]) {
    const rate = Math.min(machines * 2 * perCore, ceiling * 200);
    const hours = 50e6 / rate / 3600;
    console.log(`  ${String(machines).padStart(4)} machines: ${rate.toFixed(0).padStart(7)} inputs/s, ${hours < 48 ? `${hours.toFixed(1)} hours` : `${(hours / 24).toFixed(1)} days`}${rate === ceiling * 200 ? ' (the queue ceiling)' : ''}`);
  }
}

await main();
