// Running counts of a scan: what the progress display shows and what --summary prints.
import type { CheckResult, DetectionResult } from '../types.js';

export type ResultCounts = Record<CheckResult, number>;

export interface ScanSummary {
  inputs: number;
  checked: number;
  unreadable: number;
  failed_on: number;
  elapsed_ms: number;
  checks: Record<string, ResultCounts>;
}

export class ScanStats {
  discovered = 0;
  walking = true;
  checked = 0;
  unreadable = 0;
  failedOn = 0;
  /** c2pa credentials found but invalid (changed after signing, or badly signed). */
  c2paInvalid = 0;
  readonly startedAt = Date.now();
  readonly checks: Record<string, ResultCounts> = {};

  add(result: DetectionResult): void {
    this.checked++;
    for (const m of result.matches) {
      const counts = (this.checks[m.check] ??= { found: 0, not_found: 0, unavailable: 0 });
      counts[m.result]++;
      if (m.check === 'c2pa' && m.claims?.validation?.state === 'invalid') this.c2paInvalid++;
    }
  }

  get done(): number {
    return this.checked + this.unreadable;
  }

  found(check: string): number {
    return this.checks[check]?.found ?? 0;
  }

  summary(): ScanSummary {
    return {
      inputs: this.done,
      checked: this.checked,
      unreadable: this.unreadable,
      failed_on: this.failedOn,
      elapsed_ms: Date.now() - this.startedAt,
      checks: this.checks,
    };
  }
}
