// The daemon's notion of time. Every module takes `now` instead of calling Date, so tests can
// cross a month boundary or age an upload without waiting.
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** Quota period of an instant: its UTC calendar month, `YYYY-MM`. */
export function periodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** First instant of the next UTC month: when the quota of `at`'s month resets. */
export function quotaResetOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** ISO 8601 in UTC without milliseconds, as in `2026-12-01T00:00:00Z`. */
export function isoSeconds(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
