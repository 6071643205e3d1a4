// Reading and changing scans in the queue's tables: a scan's row, its status and results, the
// list of scans, cancel and retry.
import type { FleetConnection } from './fleet-connection.js';
import { BATCH_QUEUE, FleetError, QUEUE_SCHEMA, SCAN_SCHEMA } from './fleet-settings.js';
import { queueBatch, type ScanCheckOptions } from './batch-jobs.js';
import type { ScanStatus } from './fleet-types.js';

export interface ScanRow {
  name: string;
  state: 'listing' | 'queued' | 'cancelled';
  options: ScanCheckOptions;
  /** The first few sources, shown (secrets masked), and how many there were. */
  sources: string[];
  sourceCount: number;
  batchSize: number;
  leaseSeconds: number;
  engine: string;
  basedOn: string | null;
  /** Its inputs by state, kept by the statements that change a state. */
  queued: number;
  done: number;
  failed: number;
  reused: number;
  createdAt: Date;
  listedAt: Date | null;
  cancelledAt: Date | null;
}

export async function scanRow(fleet: FleetConnection, name: string): Promise<ScanRow | undefined> {
  const { rows } = await fleet.pool.query(
    `SELECT name, state, options, sources, coalesce(source_count, jsonb_array_length(sources))::int AS "sourceCount", batch_size AS "batchSize", lease_seconds AS "leaseSeconds", engine, based_on AS "basedOn",
            queued::int, done::int, failed::int, reused::int, created_at AS "createdAt", listed_at AS "listedAt", cancelled_at AS "cancelledAt"
       FROM ${SCAN_SCHEMA}.scans WHERE name = $1`,
    [name],
  );
  return rows[0] as ScanRow | undefined;
}

export async function requireScan(fleet: FleetConnection, name: string): Promise<ScanRow> {
  const row = await scanRow(fleet, name);
  if (!row) throw new FleetError(`no scan named ${name} in the queue at ${fleet.where} (provenance scan list).`);
  return row;
}

export async function scanStatus(fleet: FleetConnection, name: string): Promise<ScanStatus> {
  const scan = await requireScan(fleet, name);
  // The counts come with the scan's row (scan-worker.ts keeps them with the results, and per
  // worker); only the last minute's results are counted here, through their index.
  const { rows: recent } = await fleet.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${SCAN_SCHEMA}.inputs WHERE scan = $1 AND finished_at > now() - interval '60 seconds' AND NOT reused`,
    [name],
  );
  const workers = await fleet.pool.query<{ worker: string; done: string; failed: string; last: Date }>(
    `SELECT worker, done, failed, last_at AS last FROM ${SCAN_SCHEMA}.workers WHERE scan = $1 ORDER BY worker`,
    [name],
  );
  const { queued, done, failed } = scan;
  const rate = (recent[0]?.n ?? 0) / 60;
  const state = scan.state === 'cancelled' ? 'cancelled' : scan.state === 'listing' ? 'listing' : queued > 0 ? 'running' : 'finished';
  return {
    name,
    state,
    sources: scan.sources,
    sourceCount: scan.sourceCount,
    total: queued + done + failed,
    queued,
    done,
    failed,
    reused: scan.reused,
    rate: Math.round(rate * 100) / 100,
    etaSeconds: state === 'running' && rate > 0 ? Math.ceil(queued / rate) : null,
    workers: workers.rows.map((w) => ({ worker: w.worker, done: Number(w.done), failed: Number(w.failed), lastAt: w.last.toISOString() })),
    createdAt: scan.createdAt.toISOString(),
    basedOn: scan.basedOn,
  };
}

export async function listScans(fleet: FleetConnection): Promise<ScanStatus[]> {
  const { rows } = await fleet.pool.query<{ name: string }>(`SELECT name FROM ${SCAN_SCHEMA}.scans ORDER BY created_at, name`);
  const out: ScanStatus[] = [];
  for (const { name } of rows) out.push(await scanStatus(fleet, name));
  return out;
}

export interface ResultRow {
  seq: number;
  source: string;
  state: 'queued' | 'done' | 'failed';
  line: string | null;
  details: unknown;
  reason: string | null;
}

/** A scan's finished inputs in source order, a page at a time (memory stays flat for millions). */
export async function* scanResults(fleet: FleetConnection, name: string, page = 1000): AsyncGenerator<ResultRow> {
  await requireScan(fleet, name);
  let after = -1;
  for (;;) {
    const { rows } = await fleet.pool.query<ResultRow>(
      `SELECT seq, source, state, line, details, reason FROM ${SCAN_SCHEMA}.inputs WHERE scan = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [name, after, page],
    );
    for (const row of rows) yield row;
    if (rows.length < page) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/**
 * Stops a scan: no batch of it is begun from now on (its waiting jobs are cancelled, and a worker
 * that takes one anyway puts it down); batches in hand finish. The inputs not begun stay queued,
 * which `scan status` shows.
 */
export async function cancelScan(fleet: FleetConnection, name: string): Promise<{ cancelledJobs: number }> {
  await requireScan(fleet, name);
  await fleet.pool.query(`UPDATE ${SCAN_SCHEMA}.scans SET state = 'cancelled', cancelled_at = now() WHERE name = $1 AND state <> 'cancelled'`, [name]);
  // pg-boss cancels by job id: the waiting jobs of this scan, read from its job table.
  const { rows } = await fleet.pool.query<{ id: string }>(`SELECT id FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND state < 'active' AND data->>'scan' = $2`, [BATCH_QUEUE, name]);
  if (rows.length) await fleet.boss.cancel(BATCH_QUEUE, rows.map((r) => r.id));
  return { cancelledJobs: rows.length };
}

/** The failed inputs of a scan queued again, in batches of the scan's size; the rest untouched. */
export async function retryScan(fleet: FleetConnection, name: string): Promise<{ requeued: number }> {
  const scan = await requireScan(fleet, name);
  if (scan.state === 'cancelled') throw new FleetError(`scan ${name} was cancelled; start a new scan (--incremental ${name} reuses what it found).`);
  return fleet.transaction(async (client) => {
    const { rows } = await client.query<{ seq: number }>(
      `UPDATE ${SCAN_SCHEMA}.inputs SET state = 'queued', line = NULL, details = NULL, reason = NULL, worker = NULL, starts = 0, finished_at = NULL
        WHERE scan = $1 AND state = 'failed' RETURNING seq`,
      [name],
    );
    await client.query(`UPDATE ${SCAN_SCHEMA}.scans SET queued = queued + $2, failed = failed - $2 WHERE name = $1`, [name, rows.length]);
    const seqs = rows.map((r) => r.seq).sort((a, b) => a - b);
    for (let i = 0; i < seqs.length; i += scan.batchSize) await queueBatch(fleet, client, name, seqs.slice(i, i + scan.batchSize), scan.leaseSeconds);
    return { requeued: seqs.length };
  });
}

/** Removes a scan, its inputs and results, and its waiting jobs (docs/SCALE.md: cleaning up). */
export async function deleteScan(fleet: FleetConnection, name: string): Promise<void> {
  await cancelScan(fleet, name);
  await fleet.pool.query(`DELETE FROM ${SCAN_SCHEMA}.scans WHERE name = $1`, [name]);
}
