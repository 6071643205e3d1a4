// `provenance scan worker`: takes batches from the queue until stopped and runs their inputs
// through the same worker pool and engine as `check`, writing each input's `check --json` line
// into its row.
//
// What no crash can break (docs/SCALE.md "What a crash costs"):
// - One result per input: a line is written only while its row is `queued`, so a batch run a
//   second time (its lease ran out; its worker was killed after writing, before acknowledging)
//   finds its finished inputs finished and leaves them.
// - Nothing lost: a worker renews its lease every third of it; killed, it stops, the lease runs
//   out, pg-boss's sweep (run by the live workers) puts the batch back, and another worker takes
//   what is still queued of it.
// - A poison input (one that ends every worker that reads it) cannot hold its batch: a batch on
//   its second or later try runs its inputs one at a time, counting each start in the input's row
//   first; an input begun MAX_INPUT_STARTS times without a result is written off as failed with
//   that reason, and the batch goes on.
import { hostname } from 'node:os';
import { trustListFiles } from '../config/trust-lists.js';
import type { DetectOptions } from '../engine/detect.js';
import { openHttps, type HttpsConnection } from '../engine/https-source.js';
import { READ_DEADLINE_MS } from '../engine/read-deadline.js';
import { openS3, type S3Connection } from '../engine/s3-source.js';
import type { Outcome, PoolRunner } from '../library/checker.js';
import { scanWindow } from '../library/scan-pool.js';
import { packageDataFile } from '../media/package-data.js';
import type { ErrorInfo } from '../types.js';
import type { FleetConnection } from './fleet-connection.js';
import { batchesLeft, claim, holdLease, InputReads, type ClaimedBatch } from './batch-claims.js';
import type { ScanCheckOptions } from './batch-jobs.js';
import { BATCH_QUEUE, DEAD_QUEUE, DEFAULT_LEASE_SECONDS, MAX_INPUT_STARTS, SCAN_SCHEMA } from './fleet-settings.js';
import { identityOf } from './input-identity.js';
import { itemOf, type InputLocation, type SourceConnections } from './input-location.js';
import { scanRow, type ScanRow } from './scan-rows.js';
import type { WorkerSummary } from './fleet-types.js';
import { ResultWriter } from './result-writer.js';

export interface WorkerPlan {
  fleet: FleetConnection;
  runner: PoolRunner;
  /** This build's engine fingerprint: a scan started by another build is said once in the log. */
  engine: string;
  /** Aborted by SIGTERM: the batches in hand are finished, then the worker stops. */
  signal: AbortSignal;
  /** One line per event worth a log (a batch done, a lost lease, a written-off input). */
  log: (line: string) => void;
  /** Seconds between looks at an empty queue. */
  pollSeconds?: number;
  /** The name results are written under (default host:pid). */
  id?: string;
  /** Stop once no batch is waiting (the bench's runs; tests). */
  untilEmpty?: boolean;
  /** One S3 object's or https:// URL's whole read, at most (`--read-timeout`; default READ_DEADLINE_MS). */
  readTimeoutMs?: number;
}

/** The longest wait between two tries of a queue that does not answer. */
const OUTAGE_WAIT_MAX_MS = 30_000;

/**
 * Batches a worker holds at once, at most. With one, the pool ran dry at the end of every batch
 * (its last inputs on one thread while the other waited, then the claim of the next). A second is
 * claimed only once the first has handed all its inputs to the pool, so the next batch's inputs
 * fill the pool while the last ones of the first finish, and a worker never sits on a batch it has
 * not begun while other workers run out (docs/PERFORMANCE.md, "Scans past one machine").
 */
const BATCHES_IN_HAND = 2;

/** How often a worker with --until-empty looks again while other workers still hold batches. */
const UNTIL_EMPTY_POLL_MS = 200;

export async function runWorker(plan: WorkerPlan): Promise<WorkerSummary> {
  const id = plan.id ?? `${hostname()}:${process.pid}`;
  const summary: WorkerSummary = { id, batches: 0, inputs: 0, failed: 0 };
  // What rows under this worker's name held before it began (a process of an earlier boot may have
  // had the same host:pid): the closing counts are what the database gained since (see the end).
  const before = await writtenUnder(plan.fleet, id).catch(() => undefined);
  let s3: Promise<S3Connection> | undefined;
  let https: Promise<HttpsConnection> | undefined;
  const readTimeoutMs = plan.readTimeoutMs ?? READ_DEADLINE_MS;
  const connections: SourceConnections = {
    s3: () => (s3 ??= openS3(process.env, readTimeoutMs)),
    https: () => (https ??= openHttps({ deadlineMs: readTimeoutMs })),
  };
  /** The reads in this thread under way, by batch: a batch with one stuck past its deadline is let go (holdLease). */
  const reads = new InputReads(readTimeoutMs);
  const toldEngine = new Set<string>();
  /** While the queue does not answer: since when, and the next wait (doubling to OUTAGE_WAIT_MAX_MS). */
  let outage: { since: number; waitMs: number } | undefined;
  /** Wakes the loops that wait: a batch was finished here, so another may be claimable or the queue empty. */
  const idle = new Idle(plan.signal);

  /** Batches in hand in this process; retry batches (one input at a time) run alone: see below. */
  let running = 0;
  let alone = 0;
  /** Batches in hand whose inputs are not all handed to the pool yet: no claim meanwhile. */
  let dispatching = 0;
  /** A loop is claiming: the others wait, so the counts above are set before anyone looks again. */
  let claiming = false;

  /** One batch after another until stopped; BATCHES_IN_HAND of these share the process's pool. */
  const takeBatches = async () => {
    while (!plan.signal.aborted) {
      if (alone || dispatching || claiming) {
        await idle.wait(UNTIL_EMPTY_POLL_MS);
        continue;
      }
      let job: ClaimedBatch | undefined;
      let dead = false;
      claiming = true;
      try {
        [job] = await claim(plan.fleet, BATCH_QUEUE, 1);
        if (!job) dead = await writeOffDead(plan, id, summary);
        if (outage) {
          plan.log(`the queue answers again after ${Math.round((Date.now() - outage.since) / 1000)} s.`);
          outage = undefined;
        }
      } catch (err) {
        claiming = false;
        // The database restarts, fails over or is unreachable for a while: the worker waits and
        // asks again rather than ending; the batches it held come back when their leases end.
        if (!outage) plan.log(`the queue does not answer (${(err as Error).message.split('\n')[0]}); asking again until it does.`);
        outage = { since: outage?.since ?? Date.now(), waitMs: Math.min((outage?.waitMs ?? 500) * 2, OUTAGE_WAIT_MAX_MS) };
        await idle.wait(outage.waitMs);
        continue;
      }
      if (!job) {
        claiming = false;
        if (dead) continue;
        if (plan.untilEmpty && !(await batchesLeft(plan.fleet))) break;
        await idle.wait(plan.untilEmpty ? UNTIL_EMPTY_POLL_MS : (plan.pollSeconds ?? 1) * 1000);
        continue;
      }
      // A batch on a later try may hold the input that ended the last worker that held it; its
      // inputs' starts are counted one at a time, which is only fair to the others if nothing else
      // runs in this process meanwhile (a crash would count a start against another batch's input).
      const retry = (job.retryCount ?? 0) > 0;
      if (retry) alone++;
      running++;
      dispatching++;
      // Counted: the next claim (another loop's) sees this batch in hand. Only batches that have
      // handed out all their inputs can be running beside it, so a retry's wait below ends.
      claiming = false;
      let dispatched = false;
      const onDispatched = () => {
        if (dispatched) return;
        dispatched = true;
        dispatching--;
        idle.wake();
      };
      let lease: { stop(): void } | undefined;
      try {
        const scan = await scanRow(plan.fleet, job.data.scan);
        lease = holdLease(plan.fleet, job.id, scan?.leaseSeconds ?? DEFAULT_LEASE_SECONDS, (line) => plan.log(line), reads);
        if (retry) while (running > 1) await idle.wait(UNTIL_EMPTY_POLL_MS);
        if (scan && scan.state !== 'cancelled') {
          if (scan.engine !== plan.engine && !toldEngine.has(scan.name)) {
            toldEngine.add(scan.name);
            plan.log(`scan ${scan.name} was started by another build of provenance (engine ${scan.engine}; this worker: ${plan.engine}); its results may differ from this worker's.`);
          }
          const batch: BatchRun = { plan, scan, job, connections, onDispatched, reading: (source) => reads.begin(job!.id, source) };
          await writingUnder(plan.fleet, scan.name, id, summary, (writer) => runBatch(batch, writer));
        }
        await plan.fleet.boss.complete(BATCH_QUEUE, job.id);
        summary.batches++;
      } catch (err) {
        // The database went away mid-batch, or the like: the batch is tried again after a pause
        // (pg-boss's back-off); what was written stays written.
        plan.log(`batch ${job.id} of scan ${job.data.scan}: ${(err as Error).message}; it will be tried again.`);
        await plan.fleet.boss.fail(BATCH_QUEUE, job.id, { message: (err as Error).message }).catch(() => {});
      } finally {
        onDispatched();
        lease?.stop();
        running--;
        if (retry) alone--;
        idle.wake();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: BATCHES_IN_HAND }, takeBatches));
  } finally {
    if (s3) (await s3.catch(() => undefined))?.client.destroy();
    if (https) await (await https.catch(() => undefined))?.agent.close().catch(() => {});
  }
  // The tally above counts what each write statement answered. A write whose answer was lost (the
  // connection cut after PostgreSQL committed it) is written yet uncounted, so the counts given
  // are the database's for this worker's name, kept by those same statements, when it answers;
  // the tally stands when it does not, or when it holds less than before (a scan deleted meanwhile).
  const after = before && (await writtenUnder(plan.fleet, id).catch(() => undefined));
  if (before && after && after.inputs >= before.inputs && after.failed >= before.failed) {
    summary.inputs = after.inputs - before.inputs;
    summary.failed = after.failed - before.failed;
  }
  return summary;
}

/** The inputs finished under a worker's name in every scan (the `workers` table), and of those, failed. */
async function writtenUnder(fleet: FleetConnection, id: string): Promise<{ inputs: number; failed: number }> {
  const { rows } = await fleet.pool.query<{ inputs: string; failed: string }>(
    `SELECT coalesce(sum(done + failed), 0) AS inputs, coalesce(sum(failed), 0) AS failed FROM ${SCAN_SCHEMA}.workers WHERE worker = $1`,
    [id],
  );
  return { inputs: Number(rows[0]!.inputs), failed: Number(rows[0]!.failed) };
}

/** Waits that end early on a stop or when another loop of the worker wakes them. */
class Idle {
  private wakers = new Set<() => void>();

  constructor(private readonly signal: AbortSignal) {}

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', done);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
      this.wakers.add(done);
    });
  }

  wake(): void {
    for (const done of [...this.wakers]) done();
  }
}

interface InputRow {
  seq: number;
  source: string;
  location: InputLocation;
  starts: number;
}

/** One batch in hand, and what its inputs are read and checked with. */
interface BatchRun {
  plan: WorkerPlan;
  scan: ScanRow;
  job: ClaimedBatch;
  connections: SourceConnections;
  /** Called once every input of the batch is in the pool's hands: the worker may claim the next. */
  onDispatched: () => void;
  /** An input's read begins (holdLease watches its deadline); the function returned ends it. */
  reading: (source: string) => () => void;
}

/**
 * A writer of `scan`'s rows under the worker's name `id`, given to `write`. What it wrote is added
 * to `tally` even when `write` fails later: those rows stay written, and a retry of the batch
 * leaves them (and counts nothing for them).
 */
async function writingUnder(
  fleet: FleetConnection,
  scan: string,
  id: string,
  tally: WorkerSummary,
  write: (writer: ResultWriter) => Promise<void>,
): Promise<void> {
  const writer = new ResultWriter(fleet, scan, id);
  try {
    await write(writer);
  } finally {
    tally.inputs += writer.written;
    tally.failed += writer.failed;
  }
}

async function runBatch({ plan, scan, job, connections, onDispatched, reading }: BatchRun, writer: ResultWriter): Promise<void> {
  const { fleet } = plan;
  // The C2PA lists are this machine's (paths differ between machines; updated lists too).
  const { c2paLists, c2paListsSha256: _lists, ...stored }: ScanCheckOptions = scan.options;
  const options: DetectOptions = c2paLists === false ? stored : { ...stored, trustLists: trustListFiles(packageDataFile('c2pa')) };
  const { rows } = await fleet.pool.query<InputRow>(
    `SELECT seq, source, location, starts FROM ${SCAN_SCHEMA}.inputs WHERE scan = $1 AND seq = ANY($2::int[]) AND state = 'queued' ORDER BY seq`,
    [scan.name, job.data.seqs],
  );
  if ((job.retryCount ?? 0) === 0) {
    // First try: the whole batch through the pool at once, as `check` runs a folder.
    const window = scanWindow();
    const inFlight = new Set<Promise<void>>();
    for (const row of rows) {
      const running = checkRow(plan.runner, row, options, connections, reading).then(([outcome, identity]) => writer.add(row.seq, outcome, identity));
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running)).catch(() => {});
      if (inFlight.size >= window) await Promise.race(inFlight);
    }
    onDispatched();
    await Promise.all(inFlight);
  } else {
    // A later try: some input may have ended the worker that held the batch. One at a time,
    // each start counted before it begins, each result written before the next.
    for (const row of rows) {
      const started = await fleet.pool.query<{ starts: number }>(
        `UPDATE ${SCAN_SCHEMA}.inputs SET starts = starts + 1 WHERE scan = $1 AND seq = $2 AND state = 'queued' AND starts < $3 RETURNING starts`,
        [scan.name, row.seq, MAX_INPUT_STARTS],
      );
      if (!started.rowCount) {
        if (row.starts >= MAX_INPUT_STARTS) {
          const error: ErrorInfo = {
            type: 'check_failed',
            message: `${row.source}: every worker that checked it ended before it was checked (${MAX_INPUT_STARTS} tries); written off so that the scan goes on. Check it alone with \`provenance check\` to see why.`,
          };
          plan.log(`scan ${scan.name}: ${error.message}`);
          await writer.add(row.seq, { source: row.source, ok: false, error, inputError: false });
          await writer.flush();
        }
        continue; // finished meanwhile by another worker
      }
      const [outcome, identity] = await checkRow(plan.runner, row, options, connections, reading);
      await writer.add(row.seq, outcome, identity);
      await writer.flush();
    }
  }
  await writer.flush();
}

/** One input through the pool, with the identity of the file as it was just before it was read. */
async function checkRow(
  runner: PoolRunner,
  row: InputRow,
  options: DetectOptions,
  connections: SourceConnections,
  reading: (source: string) => () => void,
): Promise<[Outcome, string | null]> {
  const item = await itemOf(row.source, row.location, connections);
  const identity = await identityOf(item);
  return [await runner.check(item, options, reading), identity];
}

/**
 * Batches whose tries are spent arrive in the dead-letter queue: their inputs still queued are
 * written off as failed with the batch's last error, so the scan ends and `scan retry` can try
 * them again. True when there was one.
 */
async function writeOffDead(plan: WorkerPlan, id: string, tally: WorkerSummary): Promise<boolean> {
  const jobs = await claim(plan.fleet, DEAD_QUEUE, 10);
  for (const job of jobs) {
    const why = (job as { output?: { message?: string; value?: { message?: string } } }).output;
    const message = why?.message ?? why?.value?.message ?? 'its batch failed every try';
    const { rows } = await plan.fleet.pool.query<{ seq: number; source: string }>(
      `SELECT seq, source FROM ${SCAN_SCHEMA}.inputs WHERE scan = $1 AND seq = ANY($2::int[]) AND state = 'queued'`,
      [job.data.scan, job.data.seqs],
    );
    // Written under this worker's name (the scan's per-worker counts have them): counted here too.
    await writingUnder(plan.fleet, job.data.scan, id, tally, async (writer) => {
      for (const row of rows) {
        const error: ErrorInfo = { type: 'check_failed', message: `${row.source}: not checked; its batch failed every try (last: ${message}).` };
        await writer.add(row.seq, { source: row.source, ok: false, error, inputError: false });
      }
      await writer.flush();
    });
    if (rows.length) plan.log(`scan ${job.data.scan}: ${rows.length} input(s) of a batch that failed every try written off as failed (${message}).`);
    await plan.fleet.boss.complete(DEAD_QUEUE, job.id);
  }
  return jobs.length > 0;
}

