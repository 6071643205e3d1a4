import type { C2paDetails } from '../detectors/c2pa-manifest.js';
import type { DetectionResult, ErrorInfo } from '../types.js';
import type { DetectOptions } from './detect.js';
import type { Hints } from './xmp-hints.js';

/** One file to check: a path the worker reads itself, or bytes already in memory (stdin). */
export interface WorkerTask {
  id: number;
  source: string;
  path?: string;
  bytes?: Uint8Array;
  options: DetectOptions;
  /** The CLI's unsigned XMP hints (never part of the /v1 result the daemon returns). */
  hints?: boolean;
}

/** What a worker found: the /v1 result plus what the CLI's report shows beside it. */
export interface Checked {
  result: DetectionResult;
  hints?: Hints;
  /** Report details of the c2pa match, which structured clone cannot carry inside `result`. */
  details?: C2paDetails;
}

export type WorkerReply =
  | ({ id: number; ok: true } & Checked)
  | { id: number; ok: false; inputError: boolean; error: ErrorInfo };
