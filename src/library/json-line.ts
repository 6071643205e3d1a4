// One input's `check --json` line (without its newline): the result with its source, hints and
// verdict, or the error that kept it from being checked. `check` writes it, and a distributed
// scan's workers store it (fleet/), so `scan results --json` gives the lines `check --json` would.
import type { Hints } from '../media/xmp-hints.js';
import type { DetectionResult, ErrorInfo, Verdict } from '../types.js';

export function resultLine(source: string, result: DetectionResult, hints: Hints | undefined, verdict: Verdict): string {
  return JSON.stringify({ source, ...result, ...(hints ? { hints } : {}), verdict });
}

export function errorLine(source: string, error: ErrorInfo): string {
  return JSON.stringify({ source, error });
}

/**
 * A line the scan cache made (engine/scan-cache.ts ndjsonLine: the cached result, verdict-free)
 * with the verdict added last, where JSON.stringify of the fresh line places it.
 */
export function withVerdict(json: string, verdict: Verdict): string {
  return `${json.slice(0, -1)},"verdict":${JSON.stringify(verdict)}}`;
}
