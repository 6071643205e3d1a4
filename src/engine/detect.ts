// The only place that turns bytes into a detection result (DESIGN). The CLI and the daemon both
// call it, so a result is the same whichever way it was asked for.
import { createHash } from 'node:crypto';
import { detectorById } from '../detectors/catalogue.js';
import type { CatalogueName, DetectContext, DetectionResult, Detector, DetectorId, Match, Media, TrustOptions } from '../types.js';
import { resolveChecks } from './checks.js';
import { newCheckId } from './ids.js';
import { sniffMediaType } from '../media/sniff.js';
import { releasePixels, trackPixels } from '../media/pixels.js';
import { collectNow, collectYoungNow } from './idle-collect.js';
import { workerThreads } from '../media/lazy-builtins.js';

/** Decoded pixels worth a collection of their own once their file is done (a 2,560 x 2,560 PNG, a
 * 1,800 x 1,800 WebP): below this V8's own collections keep up. */
const COLLECT_PIXELS_BYTES = 64 * 1024 * 1024;
/** Decoded pixels worth a young-generation collection once their file is done (a 300 x 300
 * picture): past some 64 pages of fresh memory, the next decode's page faults cost more than the
 * scavenge. */
const COLLECT_YOUNG_PIXELS_BYTES = 256 * 1024;

/** Whether this process's main thread collects its released pixels as the pool's threads do. */
let mainThreadCollects = false;

/** Called by the CLI when it checks many files in its own main thread (`check --concurrency 1`):
 * that thread is then the CLI's, not a library caller's, and collects as a worker does. */
export function collectPixelsOnMainThread(): void {
  mainThreadCollects = true;
}

export interface DetectOptions extends TrustOptions {
  /** Detector ids; all of them when omitted. Unknown or repeated ids throw CheckSelectionError. */
  checks?: readonly string[];
  /** `hosted`: only the hosted service's five detectors are known and run. Default `full`. */
  catalogue?: CatalogueName;
}

export async function describeMedia(bytes: Uint8Array): Promise<Media> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { bytes, type: await sniffMediaType(bytes), sha256 };
}

export async function detect(bytes: Uint8Array, options: DetectOptions = {}): Promise<DetectionResult> {
  const started = performance.now();
  const checks = resolveChecks(options.checks, options.catalogue);
  const media = await describeMedia(bytes);
  const context: DetectContext = {
    ...(options.trustLists?.length ? { trustLists: options.trustLists } : {}),
    ...(options.trustAnchorsPem ? { trustAnchorsPem: options.trustAnchorsPem } : {}),
  };
  const matches: Match[] = [];
  trackPixels(bytes);
  try {
    for (const id of checks) matches.push(await runCheck(detectorById(id), media, context));
  } finally {
    // The checks share one decode of the file's pixels (pixels.ts); once they are done it is
    // dropped and its bytes go back to the process's bound on decoded pixels. It is collected
    // first: V8 frees the decoder's buffers only when a collection finds them dead, and a thread
    // that decodes little JavaScript collects late. A large one by a full collection (four
    // 3,072 x 3,072 WebPs took `check` 240 MB past its start instead of one decode's 120 MB);
    // the others by a scavenge, so that the next decode writes into their memory, not into pages
    // fresh from the system (a 512 x 512 JPEG's check, decode included, 11.3-11.6 -> 9.3-9.7 ms
    // a file; 335 -> 135 page faults). Only on the pool's worker threads and the CLI's own main
    // thread: a library caller's thread is left to V8 (gc() is exposed to collect).
    releasePixels(bytes, collectReleased);
  }
  return {
    id: newCheckId(),
    media: { type: media.type, bytes: bytes.byteLength, sha256: media.sha256 },
    matches,
    checks_run: checks,
    duration_ms: Math.max(0, Math.round(performance.now() - started)),
  };
}

/** Collects a file's released pixels (`held` bytes) on a thread that is ours (see detect()). */
function collectReleased(held: number): boolean {
  if (workerThreads().isMainThread && !mainThreadCollects) return false;
  if (held >= COLLECT_PIXELS_BYTES) return collectNow();
  return held >= COLLECT_YOUNG_PIXELS_BYTES && collectYoungNow();
}

/** Applies the catalogue rules (SPEC 4.1 rule 3) and never lets a detector's failure escape. */
export async function runCheck(detector: Detector, media: Media, context: DetectContext = {}): Promise<Match> {
  const check: DetectorId = detector.id;
  if (detector.status === 'planned') return { check, ...(await detector.run(media, context)) };
  if (!detector.media_types.includes(media.type)) {
    return {
      check,
      result: 'unavailable',
      confidence: 0,
      reason: `The media type ${media.type} is not read by the ${check} check.`,
    };
  }
  try {
    return { check, ...(await detector.run(media, context)) };
  } catch (err) {
    return {
      check,
      result: 'unavailable',
      confidence: 0,
      reason: `The ${check} check failed on this file: ${(err as Error)?.message ?? String(err)}.`,
    };
  }
}

