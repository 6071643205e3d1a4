// `provenance scan start`: lists the sources as `check` walks them (folders in sorted order, S3
// prefixes a page of 1,000 keys at a time), writes one row per input and queues them in batches,
// each batch's rows and its job in one transaction, so a listing cut short leaves no input
// without its job and no job without its inputs.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import type { PoolClient } from 'pg';
import type { FsPath } from '../engine/byte-paths.js';
import { expandInputs } from '../engine/inputs.js';
import type { PathFilter } from '../engine/path-filter.js';
import { errorLine } from '../library/json-line.js';
import type { FleetConnection } from './fleet-connection.js';
import { FleetError, SCAN_SCHEMA } from './fleet-settings.js';
import { queueBatch } from './batch-jobs.js';
import { identityOf } from './input-identity.js';
import { locationOf, type InputLocation } from './input-location.js';
import { cancelScan, scanRow } from './scan-rows.js';
import { sourceSummary } from './shown-source.js';
import type { ScanCheckOptions } from './batch-jobs.js';
import type { StartOutcome } from './fleet-types.js';


export interface StartPlan {
  name: string;
  sources: FsPath[];
  options: ScanCheckOptions;
  filter?: PathFilter;
  batchSize: number;
  leaseSeconds: number;
  engine: string;
  /** --incremental SCAN: the scan compared with, recorded in this one's row. */
  basedOn?: string;
  /**
   * Whether basedOn's results may be taken: only when it was checked with the same options and
   * engine build (checkBasedOn); then inputs whose size and mtime (or ETag) match are not checked again.
   */
  reuse?: boolean;
  /** Called after each batch is queued, with the inputs listed so far. */
  onListed?: (listed: number) => void;
  /** Aborted (Ctrl-C): the listing stops, and the scan is cancelled with what it had queued. */
  signal?: AbortSignal;
}

interface Row {
  seq: number;
  source: string;
  location: InputLocation;
  identity: string | null;
  /** A file's real path as a SHA-256 (the scan's inputs are unique by it); null for objects and URLs. */
  place: Buffer | null;
  listError?: { type: string; message: string };
}

export async function startScan(fleet: FleetConnection, plan: StartPlan): Promise<StartOutcome> {
  // The row keeps the first few sources, masked, and their count: never a token in clear, and
  // never a list of millions in one value (PostgreSQL's jsonb stops at 256 MB); no worker reads it.
  const { shown, count } = sourceSummary(plan.sources);
  try {
    await fleet.pool.query(
      `INSERT INTO ${SCAN_SCHEMA}.scans (name, state, options, sources, source_count, batch_size, lease_seconds, engine, based_on) VALUES ($1, 'listing', $2, $3, $4, $5, $6, $7, $8)`,
      [plan.name, plan.options, JSON.stringify(shown), count, plan.batchSize, plan.leaseSeconds, plan.engine, plan.basedOn ?? null],
    );
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new FleetError(`a scan named ${plan.name} exists already (provenance scan list); choose another name.`);
    throw err;
  }
  const outcome: StartOutcome = { name: plan.name, total: 0, queued: 0, reused: 0, listErrors: [], batches: 0 };
  let seq = 0;
  let rows: Row[] = [];
  const flush = async () => {
    if (!rows.length) return;
    const chunk = rows;
    rows = [];
    const { inserted, reused, queued } = await fleet.transaction((client) => writeBatch(fleet, client, plan, chunk));
    outcome.total += inserted;
    outcome.reused += reused;
    outcome.queued += queued.length;
    if (queued.length) outcome.batches++;
    plan.onListed?.(outcome.total);
  };
  for await (const item of expandInputs(plan.sources, { filter: plan.filter, stdin: false })) {
    if (plan.signal?.aborted) {
      // A half-listed scan would look finished once its queued inputs were done: it is
      // cancelled instead, and said so.
      await cancelScan(fleet, plan.name);
      throw new FleetError(`scan ${plan.name}: listing interrupted after ${outcome.total} inputs; the scan is cancelled (provenance scan delete ${plan.name} removes it).`, 130);
    }
    // A URL's identity costs a HEAD: asked at listing only when an earlier scan is compared with
    // (the worker asks anyway, just before it reads).
    const identity = item.kind === 'https' && !plan.reuse ? null : await identityOf(item);
    const location = locationOf(item);
    const row: Row = { seq: seq++, source: item.source, location, identity, place: await placeOf(location) };
    if (item.kind === 'error') {
      row.listError = item.error.toInfo();
      if (outcome.listErrors.length < 1000) outcome.listErrors.push({ source: item.source, message: item.error.message });
    }
    rows.push(row);
    if (rows.length >= plan.batchSize) await flush();
  }
  await flush();
  await fleet.pool.query(`UPDATE ${SCAN_SCHEMA}.scans SET state = CASE WHEN state = 'listing' THEN 'queued' ELSE state END, listed_at = now() WHERE name = $1`, [plan.name]);
  return outcome;
}

/**
 * Where a listed file is, whatever the spelling: `examples`, `./examples/camera.jpg` and its absolute
 * path name one file, which is one input. Its real path (links resolved), hashed to stay small; a
 * path that cannot be resolved (gone, or a listing error) is kept as given, made absolute.
 */
async function placeOf(location: InputLocation): Promise<Buffer | null> {
  const path = 'pathBytes' in location ? Buffer.from(location.pathBytes, 'base64') : 'path' in location ? location.path : undefined;
  if (path === undefined) return null;
  let real: string | Buffer = path;
  try {
    real = typeof path === 'string' ? await realpath(path) : await realpath(path, { encoding: 'buffer' });
  } catch {
    // kept as given
  }
  return createHash('sha256').update(real).digest();
}

/**
 * One batch: its rows (a source or a file listed before in this scan is skipped, so it has one result),
 * the results --incremental can reuse, and one job for the rest.
 */
async function writeBatch(fleet: FleetConnection, client: PoolClient, plan: StartPlan, rows: Row[]) {
  const inserted = await client.query<{ seq: number; state: 'queued' | 'failed' }>(
    `INSERT INTO ${SCAN_SCHEMA}.inputs (scan, seq, source, location, identity, place, state, line, reason, finished_at)
     SELECT $1, r.seq, r.source, r.location, r.identity, r.place, CASE WHEN r.reason IS NULL THEN 'queued' ELSE 'failed' END, r.line, r.reason,
            CASE WHEN r.reason IS NULL THEN NULL ELSE now() END
       FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::text[], $6::bytea[], $7::text[], $8::text[]) AS r(seq, source, location, identity, place, line, reason)
     -- a source, or a file (its place), listed already: either unique key
     ON CONFLICT DO NOTHING
     RETURNING seq, state`,
    [
      plan.name,
      rows.map((r) => r.seq),
      rows.map((r) => r.source),
      rows.map((r) => JSON.stringify(r.location)),
      rows.map((r) => r.identity),
      rows.map((r) => r.place),
      rows.map((r) => (r.listError ? errorLine(r.source, r.listError) : null)),
      rows.map((r) => r.listError?.message ?? null),
    ],
  );
  let listed = inserted.rows.filter((r) => r.state === 'queued').map((r) => r.seq);
  const failed = inserted.rows.length - listed.length;
  let reused = 0;
  if (plan.basedOn && plan.reuse && listed.length) {
    const copied = await client.query<{ seq: number }>(
      `UPDATE ${SCAN_SCHEMA}.inputs AS now_ SET state = 'done', line = before.line, details = before.details, worker = before.worker, reused = true, finished_at = now()
         FROM ${SCAN_SCHEMA}.inputs AS before
        WHERE now_.scan = $1 AND now_.seq = ANY($2::int[]) AND now_.state = 'queued' AND now_.identity IS NOT NULL
          AND before.scan = $3 AND before.source = now_.source AND before.identity = now_.identity AND before.state = 'done'
        RETURNING now_.seq`,
      [plan.name, listed, plan.basedOn],
    );
    reused = copied.rows.length;
    const taken = new Set(copied.rows.map((r) => r.seq));
    listed = listed.filter((seq) => !taken.has(seq));
  }
  const seqs = listed.sort((a, b) => a - b);
  if (seqs.length) await queueBatch(fleet, client, plan.name, seqs, plan.leaseSeconds);
  await client.query(`UPDATE ${SCAN_SCHEMA}.scans SET queued = queued + $2, done = done + $3, reused = reused + $3, failed = failed + $4 WHERE name = $1`, [
    plan.name,
    seqs.length,
    reused,
    failed,
  ]);
  return { inserted: inserted.rows.length, reused, queued: seqs };
}

/**
 * The scan named by --incremental must exist (and differ from the new one). Its results are taken
 * only when they were made as this scan's would be: the same options that change a result
 * (checks, catalogue, trust anchors, the C2PA lists' fingerprint) and the same engine build (its
 * fingerprint covers the data the package ships), as `check --incremental` keys its
 * cache (engine/scan-cache.ts scanScope). Else why not, and nothing is reused.
 */
export async function checkBasedOn(
  fleet: FleetConnection,
  name: string,
  basedOn: string,
  now: { options: ScanCheckOptions; engine: string },
): Promise<{ reuse: true } | { reuse: false; why: string }> {
  if (basedOn === name) throw new FleetError('--incremental names the scan to compare with: an earlier scan, not this one.');
  const before = await scanRow(fleet, basedOn);
  if (!before) throw new FleetError(`--incremental ${basedOn}: no such scan (provenance scan list).`);
  if (before.engine !== now.engine) return { reuse: false, why: `its results were made by another build of provenance (engine ${before.engine}; this one: ${now.engine})` };
  const differs = optionsDiffer(before.options, now.options);
  if (differs) return { reuse: false, why: `its results were made with other ${differs}` };
  return { reuse: true };
}

/**
 * The first option that differs between two scans' (by its name in the scan's options), or
 * undefined. Every option is compared, so one added later keys reuse too; checks in any order.
 */
function optionsDiffer(a: ScanCheckOptions, b: ScanCheckOptions): string | undefined {
  const value = (o: ScanCheckOptions, key: string) => {
    const v = (o as unknown as Record<string, unknown>)[key];
    if (key === 'checks' && Array.isArray(v)) return JSON.stringify([...v].sort());
    if (key === 'catalogue') return JSON.stringify(v ?? 'full');
    return JSON.stringify(v ?? null);
  };
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort((x, y) => (x === 'checks' ? -1 : y === 'checks' ? 1 : x.localeCompare(y)));
  const key = keys.find((k) => value(a, k) !== value(b, k));
  if (key === undefined) return undefined;
  if (key === 'checks') return `checks (${(a.checks ?? []).join(',')}; this scan: ${(b.checks ?? []).join(',')})`;
  if (key === 'trustAnchorsPem') return 'trust anchors';
  if (key === 'c2paListsSha256') return 'C2PA trust lists (a `trust update` since, or lists of another machine)';
  return `${key} (${value(a, key)}; this scan: ${value(b, key)})`;
}
