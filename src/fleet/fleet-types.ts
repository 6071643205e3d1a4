// The distributed scan's public types (the library exports them): in a module of their own that
// names neither `pg` nor pg-boss, so that the package's declarations need no types of those.
import type { CatalogueName } from '../types.js';

export interface QueueOptions {
  /** The queue's PostgreSQL URL; default: PROVENANCE_QUEUE. */
  queue?: string;
  /** Where PROVENANCE_QUEUE (and the AWS SDK's settings) are read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface StartScanOptions extends QueueOptions {
  name: string;
  /**
   * Files, folders (walked as `check` walks them), s3://bucket/prefix URLs, https:// URLs. An
   * http:// URL, or a malformed s3:// or https:// one, is a FleetError before the scan is made.
   */
  sources: readonly string[];
  checks?: readonly string[];
  catalogue?: CatalogueName | string;
  /** PEM text of C2PA trust anchors, as `check --trust-anchors` reads from a file. */
  trustAnchorsPem?: string;
  /**
   * Also check signers against the C2PA Trust List and TSA Trust List, each worker's own copy
   * (updated, else bundled). Default: only when `trustAnchorsPem` is not given (it replaces
   * them, as `--trust-anchors` does); `scan start` passes true with the anchors added by hand.
   */
  c2paLists?: boolean;
  include?: readonly string[];
  exclude?: readonly string[];
  caseSensitive?: boolean;
  /** Inputs per job (1 to 10,000; default 200). */
  batchSize?: number;
  /** Seconds a worker holds a batch without renewing (3 to 3,600; default 60). */
  leaseSeconds?: number;
  /**
   * An earlier scan: inputs unchanged since it (size and mtime, or S3 ETag) take its results, when
   * it was checked with the same options (checks, catalogue, trust anchors) and engine build.
   */
  incremental?: string;
  onListed?: (listed: number) => void;
  /** Aborting it stops the listing and cancels the scan (what was queued is not checked). */
  signal?: AbortSignal;
}

export interface ScanWorkerOptions extends QueueOptions {
  /** Worker threads for checks (1 to 256; default the available cores, at most 4 per core). */
  concurrency?: number;
  /** Aborting it finishes the batches in hand and ends the worker (SIGTERM in the CLI). */
  signal?: AbortSignal;
  /** End once no batch is waiting, instead of waiting for more. */
  untilEmpty?: boolean;
  /** Each event worth a log line (a lost lease, a written-off input, a failed batch). */
  onLog?: (line: string) => void;
  /** Seconds between looks at an empty queue (default 1). */
  pollSeconds?: number;
  /**
   * The longest one S3 object or https:// URL may take to read, request to last byte, in seconds
   * (1 to 3,600; default 120). A batch whose read is still going 30 s past it is let go: its
   * lease is no longer renewed, so another worker takes it.
   */
  readTimeoutSeconds?: number;
}

/** One input of a scan as `scan results` gives it: its `check --json` line once finished. */
export interface ScanResultRow {
  source: string;
  state: 'queued' | 'done' | 'failed';
  /** The `check --json` line (without its newline); null while queued. */
  line: string | null;
  /** Report details of its C2PA match (for the HTML report), when it has one. */
  details: unknown;
  reason: string | null;
}

export interface WorkerShare {
  worker: string;
  done: number;
  failed: number;
  lastAt: string;
}

export interface ScanStatus {
  name: string;
  /** listing, running (inputs left), finished (none left), cancelled. */
  state: 'listing' | 'running' | 'finished' | 'cancelled';
  /** The first five sources as given, each URL with its secrets masked (`?token=***`). */
  sources: string[];
  /** How many sources were given (`sources` holds the first five). */
  sourceCount: number;
  total: number;
  queued: number;
  done: number;
  failed: number;
  /** Of `done`, answered from the scan named by --incremental. */
  reused: number;
  /** Inputs finished per second over the last minute. */
  rate: number;
  /** Seconds until the queued inputs are done at that rate; null when nothing runs. */
  etaSeconds: number | null;
  workers: WorkerShare[];
  createdAt: string;
  basedOn: string | null;
}

export interface StartOutcome {
  name: string;
  /** Inputs listed (duplicates of a source already listed are not counted again). */
  total: number;
  /** Inputs queued for workers. */
  queued: number;
  /** Inputs answered from the scan named by --incremental. */
  reused: number;
  /**
   * With --incremental, why none of that scan's results were taken: it was checked with other
   * options or by another engine build (every input is queued).
   */
  notReused?: string;
  /** Sources that could not be listed (a missing file or bucket, refused credentials, ...). */
  listErrors: { source: string; message: string }[];
  batches: number;
}

export interface WorkerSummary {
  /** The name its results are written under (host:pid), as `scan status` lists workers. */
  id: string;
  /** Batches it finished. */
  batches: number;
  /**
   * Inputs it finished (a result or a failure written into the input's row), those of a batch
   * that failed later and those written off from the dead-letter queue included: as the database
   * counts them under its name, when the queue answers at the end.
   */
  inputs: number;
  /** Of those, failed. */
  failed: number;
}
