// A scan's batches as pg-boss jobs: what a job carries, and how one is queued inside the
// transaction that writes its inputs (so neither exists without the other).
import type { PoolClient } from 'pg';
import type { DetectOptions } from '../engine/detect.js';
import type { CatalogueName } from '../types.js';
import type { FleetConnection } from './fleet-connection.js';
import { BATCH_QUEUE } from './fleet-settings.js';

/**
 * What every worker applies to every input of the scan: the `check` options that change a result,
 * resolved at `scan start` (stored as the scan's `options`, handed to the engine as they are).
 */
export interface ScanCheckOptions extends DetectOptions {
  checks: string[];
  catalogue: CatalogueName;
  trustAnchorsPem?: string;
  /** false: the anchors replace the C2PA lists; otherwise each worker adds its own copy of them. */
  c2paLists?: false;
  /**
   * With the C2PA lists: the SHA-256 of the lists the scan was started with (the updated ones in
   * the config folder, else the bundled ones), so that --incremental takes results only across
   * the same lists (a `trust update` since makes every input checked again). Not a detect option.
   */
  c2paListsSha256?: string;
}

/** A job's data: the scan, and the numbers (source order) of the inputs of its batch. */
export interface BatchJob {
  scan: string;
  seqs: number[];
}

/** One job naming a batch of a scan's inputs, inserted in the caller's transaction. */
export async function queueBatch(fleet: FleetConnection, client: PoolClient, scan: string, seqs: number[], leaseSeconds: number): Promise<void> {
  await fleet.boss.insert([{ name: BATCH_QUEUE, data: { scan, seqs } satisfies BatchJob, expireInSeconds: leaseSeconds }], {
    db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) },
  } as never);
}

