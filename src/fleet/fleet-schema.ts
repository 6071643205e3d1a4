// The scan tables in the queue's PostgreSQL (docs/SCALE.md "The tables"): one row per scan, one
// per input. An input's row is also its result: a worker writes its line only while the row is
// still `queued`, so a batch run twice (a lost lease, a worker killed after writing and before
// acknowledging) can never give an input two results. pg-boss keeps its jobs (batches of input
// numbers) in its own schema.
import { SCAN_SCHEMA } from './fleet-settings.js';

/**
 * Bumped with each change below; a database of a newer version is refused, not altered, and one
 * of an older version is brought up to this one (fleet-connection.ts).
 * 2: `scans.sources` holds the first few sources with their secrets masked and `source_count`
 * how many there were (version 1 kept every source as given, tokens and all, in one value);
 * `inputs.place` keeps one input per file however its path was spelled.
 */
export const FLEET_SCHEMA_VERSION = 2;

/** Sources kept in a scan's row, shown by `scan status` and the report's head (the rest are counted). */
export const SHOWN_SOURCES = 5;

const S = SCAN_SCHEMA;

export const FLEET_DDL = `
CREATE SCHEMA IF NOT EXISTS ${S};
CREATE TABLE IF NOT EXISTS ${S}.version (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS ${S}.scans (
  name text PRIMARY KEY,
  -- listing: sources being listed; queued: every input listed and queued; cancelled
  state text NOT NULL CHECK (state IN ('listing', 'queued', 'cancelled')),
  -- what a worker needs to check as \`check\` would: checks, catalogue, trust anchors (PEM)
  options jsonb NOT NULL,
  -- the first SHOWN_SOURCES sources as shown (secrets masked), and how many were given: the
  -- sources themselves are the inputs' rows (a --files-from list of millions is not one value)
  sources jsonb NOT NULL,
  source_count bigint,
  batch_size integer NOT NULL,
  lease_seconds integer NOT NULL,
  engine text NOT NULL,
  based_on text,
  -- inputs by state, kept by the statements that change a state (so that a status of a scan of
  -- millions reads one row, not millions)
  queued bigint NOT NULL DEFAULT 0,
  done bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  reused bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  listed_at timestamptz,
  cancelled_at timestamptz
);
CREATE TABLE IF NOT EXISTS ${S}.inputs (
  scan text NOT NULL REFERENCES ${S}.scans (name) ON DELETE CASCADE,
  -- source order: results come out in it
  seq integer NOT NULL,
  -- as \`check --json\` names it
  source text NOT NULL,
  -- how any worker reads it: {"path"} (absolute) or {"pathBytes"} (base64), {"s3"}, {"url"}
  location jsonb NOT NULL,
  -- size and mtime, or the S3 ETag: what --incremental compares
  identity text,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed')),
  -- workers that began it and ended without a result (MAX_INPUT_STARTS)
  starts smallint NOT NULL DEFAULT 0,
  -- the \`check --json\` line, and the report details of its C2PA match
  line text,
  details jsonb,
  reason text,
  worker text,
  reused boolean NOT NULL DEFAULT false,
  finished_at timestamptz,
  -- a file's real path (symbolic links and ./ resolved), as a SHA-256: one input per file however
  -- the sources spelled it; NULL for objects and URLs (their source is their place)
  place bytea,
  PRIMARY KEY (scan, seq),
  UNIQUE (scan, source)
);
-- version 2 on a database made by version 1 (CREATE TABLE IF NOT EXISTS left its tables as they were)
ALTER TABLE ${S}.scans ADD COLUMN IF NOT EXISTS source_count bigint;
ALTER TABLE ${S}.inputs ADD COLUMN IF NOT EXISTS place bytea;
CREATE UNIQUE INDEX IF NOT EXISTS inputs_place ON ${S}.inputs (scan, place);
-- what each worker wrote: \`scan status\`'s per-worker lines
CREATE TABLE IF NOT EXISTS ${S}.workers (
  scan text NOT NULL REFERENCES ${S}.scans (name) ON DELETE CASCADE,
  worker text NOT NULL,
  done bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (scan, worker)
);
CREATE INDEX IF NOT EXISTS inputs_state ON ${S}.inputs (scan, state);
CREATE INDEX IF NOT EXISTS inputs_finished ON ${S}.inputs (scan, finished_at) WHERE finished_at IS NOT NULL;
`;

/** Serialises schema set-up between processes that start at once (any 64-bit number of ours). */
export const FLEET_SCHEMA_LOCK = 7_146_201_733;
