// The worker's side of pg-boss: claiming batches (and seeing when the queue does not answer),
// holding a batch's lease, and whether any batch is left for --until-empty.
import type { Job } from 'pg-boss';
import type { BatchJob } from './batch-jobs.js';
import type { FleetConnection } from './fleet-connection.js';
import { BATCH_QUEUE, DEAD_QUEUE, QUEUE_SCHEMA } from './fleet-settings.js';

/** A claimed job, with pg-boss's count of its earlier tries. */
export type ClaimedBatch = Job<BatchJob> & { retryCount?: number };

/**
 * Up to `count` jobs of `queue`, claimed. pg-boss's fetch() answers "no job" when its query fails
 * (it expects only constraint errors there); a worker must tell an empty queue from one that does
 * not answer (with --until-empty it would stop), so the query runs here and its error is thrown.
 */
export async function claim(fleet: FleetConnection, queue: string, count: number): Promise<ClaimedBatch[]> {
  let failure: unknown;
  const db = {
    executeSql: async (text: string, values: unknown[]) => {
      try {
        return await fleet.pool.query(text, values);
      } catch (err) {
        failure = err;
        throw err;
      }
    },
  };
  const jobs = await fleet.boss.fetch<BatchJob>(queue, { batchSize: count, includeMetadata: true, db } as never);
  if (failure) throw failure;
  return (jobs ?? []) as ClaimedBatch[];
}

/** How long past its deadline a read must still be going before its batch counts as stuck. */
export const STUCK_GRACE_MS = 30_000;

/**
 * The reads in this thread (an https:// URL's, an S3 object's) of the batches a worker holds,
 * each since when. Every such read has its own deadline (engine/read-deadline.ts); one still
 * going STUCK_GRACE_MS past it is stuck beyond what this worker can stop, and its batch's lease
 * is left to run out (holdLease) so that the batch comes back to the queue rather than being held
 * for as long as the worker lives.
 */
export class InputReads {
  private readonly open = new Map<number, { batch: string; source: string; since: number }>();
  private next = 0;
  constructor(
    /** The read deadline in milliseconds (the worker's --read-timeout). */
    readonly deadlineMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A read of `batch`'s input `source` begins; call what it returns when it ends. */
  begin(batch: string, source: string): () => void {
    const id = this.next++;
    this.open.set(id, { batch, source, since: this.now() });
    return () => this.open.delete(id);
  }

  /** A read of `batch` going on past its deadline and the grace: which, and for how long. */
  stuck(batch: string): { source: string; ms: number } | undefined {
    const now = this.now();
    for (const read of this.open.values()) {
      if (read.batch === batch && now - read.since > this.deadlineMs + STUCK_GRACE_MS) return { source: read.source, ms: now - read.since };
    }
    return undefined;
  }
}

/**
 * Renews a batch's lease every third of it. pg-boss 10 has no renewal of its own: its sweep fails
 * an active job whose `started_on + expire_in` has passed, so moving `started_on` on is the
 * renewal (pg-boss is pinned to 10.x for this; docs/SCALE.md). A renewal that finds the job no
 * longer active means the lease was lost (the sweep ran first): said once; the batch goes on,
 * and whatever of it another worker finishes first stays that worker's.
 */
export function holdLease(fleet: FleetConnection, jobId: string, leaseSeconds: number, log: (line: string) => void, reads?: InputReads): { stop(): void } {
  let lost = false;
  const timer = setInterval(
    () => {
      // An input stuck past its deadline: no more renewals, so the lease ends and the sweep
      // gives the batch to another worker (whatever this one still finishes stays written).
      const stuck = reads?.stuck(jobId);
      if (stuck) {
        clearInterval(timer);
        log(
          `batch ${jobId}: ${JSON.stringify(stuck.source)} has been read for ${Math.round(stuck.ms / 1000)} s, past its ${Math.round(reads!.deadlineMs / 1000)} s deadline; ` +
            `the batch's lease is no longer renewed, so another worker takes it once the lease runs out.`,
        );
        return;
      }
      fleet.pool
        .query(`UPDATE ${QUEUE_SCHEMA}.job SET started_on = now() WHERE name = $1 AND id = $2 AND state = 'active'`, [BATCH_QUEUE, jobId])
        .then(({ rowCount }) => {
          if (!rowCount && !lost) {
            lost = true;
            log(`batch ${jobId}: its lease ran out before it was renewed; another worker may take it (no input gets two results).`);
          }
        })
        .catch(() => {});
    },
    Math.max(1000, (leaseSeconds * 1000) / 3),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Whether any batch may still need a worker: one waiting, waiting out its back-off, or held by a
 * worker (which may die, and its batch come back). `--until-empty` ends only when none is left.
 */
export async function batchesLeft(fleet: FleetConnection): Promise<boolean> {
  const { rowCount } = await fleet.pool.query(`SELECT 1 FROM ${QUEUE_SCHEMA}.job WHERE name IN ($1, $2) AND state IN ('created', 'retry', 'active') LIMIT 1`, [
    BATCH_QUEUE,
    DEAD_QUEUE,
  ]);
  return Boolean(rowCount);
}
