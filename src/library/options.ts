// Options shared by check() and scan(), validated once, up front: a wrong option is an error
// before any file is read.
import type { DetectOptions } from '../engine/detect.js';
import type { CatalogueName, DetectorId } from '../types.js';
import { trustListFiles } from '../config/trust-lists.js';
import { packageDataFile } from '../media/package-data.js';
import { trustAnchorsPem } from './trust-anchors.js';
import { validateChecks } from './validate.js';

export interface CommonOptions {
  /** Detector ids to run (see detectors()); all of them when omitted. An unknown or repeated id throws CheckSelectionError. */
  checks?: readonly DetectorId[];
  /**
   * C2PA trust anchors: PEM text, or the path of a PEM file, used instead of the C2PA Trust List
   * and TSA Trust List. Without it the lists are used: those `provenance trust update` put in the
   * config folder, else those shipped in the package. A manifest whose signer chains to an anchor
   * is `trusted` and its `signature_verified` is true. Anchors added with `provenance trust add`
   * are not read: pass them here.
   */
  trustAnchors?: string;
  /** Aborts the call: it rejects (or the scan's loop throws) with the signal's reason. */
  signal?: AbortSignal;
  /** `'hosted'`: only the hosted /v1 service's five detectors are known and run (as the CLI's
   * `--catalogue hosted`); `generator_metadata` and `invisible_watermark` are then unknown ids.
   * Default `'full'`: every detector. */
  catalogue?: CatalogueName;
  /**
   * The longest one `s3://` object or `https://` URL may take to read, from its first request to
   * its last byte, in milliseconds (default 120,000; the CLI's `--read-timeout`). Past it the
   * read is stopped and the input fails with a `read_error` InputError.
   */
  readTimeoutMs?: number;
}

export function detectOptions(options: CommonOptions): DetectOptions {
  validateChecks(options.checks, options.catalogue);
  const pem = trustAnchorsPem(options.trustAnchors);
  return {
    ...(options.checks ? { checks: [...options.checks] } : {}),
    ...(options.catalogue === 'hosted' ? { catalogue: 'hosted' as const } : {}),
    // Paths only: the c2pa check reads the lists where it finds a manifest.
    ...(pem ? { trustAnchorsPem: pem } : { trustLists: trustListFiles(packageDataFile('c2pa')) }),
  };
}
