// The test clock (`provenance daemon clock`): real time until a test sets or advances it, then
// frozen at the time it was given, so that a test's steps happen at exactly the times it chose.
// Every time rule of the daemon reads `now` through it (quota month, burst windows, upload and
// session expiry, sign-in links, created_at / last_used_at), because buildApp hands its `now`
// to every service. It never moves back before the latest recorded event: a key used "in
// January" followed by a request "in December" would make the state contradict itself.
import { systemClock, type Clock } from '../contract/time.js';

export type ClockMode = 'real' | 'frozen';

export interface ClockView {
  now: string;
  mode: ClockMode;
}

export type ClockAction = { action: 'set'; at: string } | { action: 'advance'; by: string } | { action: 'real' };

/** A refused clock change; `message` says why in one line. */
export class ClockError extends Error {}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `31d`, `2h`, `90s`, `1d12h`, `500ms` -> milliseconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const t = String(text).trim();
  if (!/^(\d+(ms|s|m|h|d|w))+$/.test(t)) return undefined;
  let total = 0;
  for (const [, n, unit] of t.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) total += Number(n) * UNITS[unit!]!;
  return Number.isSafeInteger(total) ? total : undefined;
}

/** A strict ISO 8601 instant with a zone (`2026-12-01T00:00:00Z`, `...+01:00`), in ms. */
export function parseInstant(text: string): number | undefined {
  const t = String(text).trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A value from a request body, for a message: a string in quotes, anything else as JSON (String() of some objects throws). */
const quoted = (value: unknown) => (typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value)));

export class TestClock {
  private frozenAt: number | undefined;

  constructor(private readonly real: Clock = systemClock) {}

  /** The daemon's `now`: pass this (bound) wherever a Clock is wanted. */
  readonly now: Clock = () => (this.frozenAt === undefined ? this.real() : new Date(this.frozenAt));

  view(): ClockView {
    return { now: this.now().toISOString(), mode: this.frozenAt === undefined ? 'real' : 'frozen' };
  }

  /**
   * Where a change would put the clock (undefined: real time), refusing one that would put `now`
   * before `latestEventMs` (the latest time the state records). It does not move the clock: the
   * caller saves the target first (clock-file.ts), then freezes it there.
   */
  target(change: ClockAction, latestEventMs: number): number | undefined {
    let target: number | undefined;
    switch (change.action) {
      case 'set':
        target = typeof change.at === 'string' ? parseInstant(change.at) : undefined;
        if (target === undefined) throw new ClockError(`${quoted(change.at)} is not an ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z.`);
        break;
      case 'advance': {
        const ms = typeof change.by === 'string' ? parseDuration(change.by) : undefined;
        if (ms === undefined) throw new ClockError(`${quoted(change.by)} is not a duration; use e.g. 31d, 2h, 90s, 500ms or 1d12h.`);
        target = this.now().getTime() + ms;
        break;
      }
      case 'real':
        target = this.real().getTime();
        break;
      default:
        throw new ClockError('Unknown clock action; use show, set ISO-8601, advance DURATION or real.');
    }
    if (target < latestEventMs) {
      throw new ClockError(
        `The clock cannot go back to ${new Date(target).toISOString()}: the state records an event at ${new Date(latestEventMs).toISOString()}. Reset the daemon (provenance daemon reset) to start earlier.`,
      );
    }
    return change.action === 'real' ? undefined : target;
  }

  /** Freezes the clock at `atMs`, or returns it to real time (undefined). */
  freeze(atMs: number | undefined): void {
    this.frozenAt = atMs;
  }
}
