// A worker's results into their rows, in groups: a row is written only while it is still queued,
// so a batch run twice never gives an input two results, and the scan's counts and the worker's
// move by exactly the rows that changed.
import type { Outcome } from '../library/checker.js';
import { errorLine, resultLine } from '../library/json-line.js';
import { verdictOf } from '../verdict/verdict.js';
import type { FleetConnection } from './fleet-connection.js';
import { SCAN_SCHEMA } from './fleet-settings.js';

/** Results are written in groups of this many, or after this long, whichever comes first. */
const WRITE_GROUP = 64;
const WRITE_AFTER_MS = 250;

/**
 * Writes outcomes into their rows in groups; a row already finished (by an earlier holder of the
 * batch) is left as it is.
 */
export class ResultWriter {
  private pending: { seq: number; state: 'done' | 'failed'; line: string; details: string | null; reason: string | null; identity: string | null | undefined }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Rows this writer finished (a row finished meanwhile by another worker is not counted), and of those, failed. */
  written = 0;
  failed = 0;

  constructor(
    private readonly fleet: FleetConnection,
    private readonly scan: string,
    private readonly worker: string,
  ) {}

  /** The outcome of input `seq`; `identity`: the file's as it was read (undefined: the listing's stays). */
  async add(seq: number, outcome: Outcome, identity?: string | null): Promise<void> {
    if (outcome.ok) {
      const line = outcome.json !== undefined ? outcome.json : resultLine(outcome.source, outcome.result, outcome.hints, verdictOf(outcome.result, undefined, outcome.hints));
      this.pending.push({ seq, state: 'done', line, details: outcome.details ? JSON.stringify(outcome.details) : null, reason: null, identity });
    } else {
      this.pending.push({ seq, state: 'failed', line: errorLine(outcome.source, outcome.error), details: null, reason: outcome.error.message, identity });
    }
    if (this.pending.length >= WRITE_GROUP) await this.flush();
    else this.timer ??= setTimeout(() => void this.flush().catch(() => {}), WRITE_AFTER_MS);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const group = this.pending;
    this.pending = [];
    // One write at a time, in order: a group never overtakes the one before it.
    this.writing = this.writing.then(() => (group.length ? this.write(group) : undefined));
    await this.writing;
  }

  private async write(group: ResultWriter['pending']): Promise<void> {
    // One statement: the rows still queued take their results, and the scan's counts and this
    // worker's move by exactly the rows that changed (a row finished meanwhile changes nothing).
    const { rows } = await this.fleet.pool.query<{ done: string; failed: string }>(
      `WITH changed AS (
         UPDATE ${SCAN_SCHEMA}.inputs AS i SET state = g.state, line = g.line, details = g.details, reason = g.reason, worker = $2, finished_at = now(),
                identity = CASE WHEN g.keep THEN i.identity ELSE g.identity END
           FROM unnest($3::int[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::text[], $9::bool[]) AS g(seq, state, line, details, reason, identity, keep)
          WHERE i.scan = $1 AND i.seq = g.seq AND i.state = 'queued'
         RETURNING i.state
       ), counts AS (
         SELECT count(*) FILTER (WHERE state = 'done') AS done, count(*) FILTER (WHERE state = 'failed') AS failed FROM changed
       ), scan AS (
         UPDATE ${SCAN_SCHEMA}.scans AS s SET queued = s.queued - c.done - c.failed, done = s.done + c.done, failed = s.failed + c.failed
           FROM counts c WHERE s.name = $1 AND c.done + c.failed > 0
       ), worker AS (
         INSERT INTO ${SCAN_SCHEMA}.workers (scan, worker, done, failed, last_at)
         SELECT $1, $2, c.done, c.failed, now() FROM counts c WHERE c.done + c.failed > 0
         ON CONFLICT (scan, worker) DO UPDATE SET done = workers.done + EXCLUDED.done, failed = workers.failed + EXCLUDED.failed, last_at = EXCLUDED.last_at
       )
       SELECT done, failed FROM counts`,
      [
        this.scan,
        this.worker,
        group.map((g) => g.seq),
        group.map((g) => g.state),
        group.map((g) => g.line),
        group.map((g) => g.details),
        group.map((g) => g.reason),
        group.map((g) => g.identity ?? null),
        group.map((g) => g.identity === undefined),
      ],
    );
    // One row always: `counts` aggregates without GROUP BY (0 and 0 when nothing changed).
    const failed = Number(rows[0]!.failed);
    this.written += Number(rows[0]!.done) + failed;
    this.failed += failed;
  }
}
