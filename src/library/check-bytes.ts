// One file's bytes to its /v1 result, in the calling thread: the step where the library's
// check() and `provenance check` on one file (or with --concurrency 1; library/checker.ts)
// meet. Each reads its input its own way (a path, bytes or a stream here; a file or standard
// input there) and makes its own DetectOptions (the `trustAnchors` option; --trust-anchors or
// the stored anchors); from the bytes on, the path is this one.
import { detect, type DetectOptions } from '../engine/detect.js';
import type { DetectionResult } from '../types.js';
import { unlessAborted } from './abort.js';

/** The engine's result for `bytes`, or the signal's reason the moment it aborts. */
export function checkBytes(bytes: Uint8Array, options: DetectOptions = {}, signal?: AbortSignal): Promise<DetectionResult> {
  return unlessAborted(detect(bytes, options), signal);
}
