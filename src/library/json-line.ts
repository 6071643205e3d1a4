// One input's `check --json` line (without its newline): the result with its source, hints,
// C2PA signals and verdict, or the error that kept it from being checked. `check` writes it, and a
// distributed scan's workers store it (fleet/), so `scan results --json` gives the lines `check
// --json` would.
import { c2paDetails } from '../detectors/c2pa-manifest.js';
import type { Hints } from '../media/xmp-hints.js';
import type { SignalHit } from '../rubrics/signals.js';
import type { DetectionResult, ErrorInfo, Verdict } from '../types.js';

/**
 * The active manifest's C2PA signals (docs/C2PA.md "Signals"), a CLI-side addition like `hints`
 * and `verdict`: the signals rubric's name and version and the manifest's entry of its official
 * output. Absent without a manifest, and for a remote result (the /v1 answer has no crJSON).
 */
export interface LineSignals {
  rubricName: unknown;
  rubricVersion: unknown;
  localInceptions: SignalHit[];
  localTransformations: SignalHit[];
}

export function signalsOf(result: Pick<DetectionResult, 'matches'>): LineSignals | undefined {
  const signals = c2paDetails(result.matches.find((m) => m.check === 'c2pa')?.claims)?.signals;
  const active = signals?.active === undefined ? undefined : signals.output.manifests[signals.active];
  if (!signals || !active) return undefined;
  const { rubricName, rubricVersion } = signals.output;
  return { rubricName, rubricVersion, localInceptions: active.localInceptions, localTransformations: active.localTransformations };
}

export function resultLine(source: string, result: DetectionResult, hints: Hints | undefined, verdict: Verdict): string {
  const signals = signalsOf(result);
  return JSON.stringify({ source, ...result, ...(hints ? { hints } : {}), ...(signals ? { signals } : {}), verdict });
}

export function errorLine(source: string, error: ErrorInfo): string {
  return JSON.stringify({ source, error });
}

/**
 * A line the scan cache made (engine/scan-cache.ts ndjsonLine: the cached result, verdict-free)
 * with the signals and verdict added last, where JSON.stringify of the fresh line places them.
 */
export function withVerdict(json: string, verdict: Verdict, signals?: LineSignals): string {
  return `${json.slice(0, -1)}${signals ? `,"signals":${JSON.stringify(signals)}` : ''},"verdict":${JSON.stringify(verdict)}}`;
}
