// Running counts of a scan: what the progress display shows and what --summary prints.
import type { CheckResult, DetectionResult, Verdict, VerdictAi } from '../types.js';

export type ResultCounts = Record<CheckResult, number>;

export interface ScanSummary {
  inputs: number;
  checked: number;
  unreadable: number;
  failed_on: number;
  elapsed_ms: number;
  /** With --incremental: how many of `checked` were answered from the scan cache. */
  from_cache?: number;
  checks: Record<string, ResultCounts>;
  /** Files by verdict (src/verdict), and how many of them had checks that disagree. */
  verdicts: Record<VerdictAi, number> & { disagreements: number };
}

export class ScanStats {
  discovered = 0;
  walking = true;
  checked = 0;
  unreadable = 0;
  failedOn = 0;
  /** c2pa credentials found but invalid (changed after signing, or badly signed). */
  c2paInvalid = 0;
  /** Results answered from the scan cache (counted in `checked` too). */
  fromCache = 0;
  readonly startedAt = Date.now();
  readonly checks: Record<string, ResultCounts> = {};
  readonly verdicts: ScanSummary['verdicts'] = { generated: 0, contains: 0, may_contain: 0, none_found: 0, disagreements: 0 };

  /** `incremental`: the run uses the scan cache, and the summary says how many it answered. */
  constructor(readonly incremental = false) {}

  add(result: DetectionResult, fromCache = false, verdict?: Verdict): void {
    this.checked++;
    if (verdict) {
      this.verdicts[verdict.ai]++;
      if (verdict.disagreement) this.verdicts.disagreements++;
    }
    if (fromCache) this.fromCache++;
    for (const m of result.matches) {
      // An own-key test, not `??=`: a remote API may answer a check id this build does not know
      // (client/v1-shapes.ts), and `constructor` would find Object's own function on a plain object.
      const counts = Object.hasOwn(this.checks, m.check) ? this.checks[m.check]! : (this.checks[m.check] = { found: 0, not_found: 0, unavailable: 0 });
      counts[m.result]++;
      if (m.check === 'c2pa' && m.claims?.validation?.state === 'invalid') this.c2paInvalid++;
    }
  }

  get done(): number {
    return this.checked + this.unreadable;
  }

  found(check: string): number {
    return Object.hasOwn(this.checks, check) ? this.checks[check]!.found : 0;
  }

  summary(): ScanSummary {
    return {
      inputs: this.done,
      checked: this.checked,
      unreadable: this.unreadable,
      failed_on: this.failedOn,
      elapsed_ms: Date.now() - this.startedAt,
      ...(this.incremental ? { from_cache: this.fromCache } : {}),
      checks: this.checks,
      verdicts: this.verdicts,
    };
  }
}
