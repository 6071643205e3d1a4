// The quota and burst headers of POST /v1/detect (SPEC 8.2), read into numbers.

export interface QuotaInfo {
  // snake_case, as every JSON field the CLI prints (`status --json` prints this object).
  /** API calls allowed this month. */
  limit: number;
  /** API calls used this month, including the request answered. */
  used: number;
  remaining: number;
  /** ISO 8601 UTC: when the monthly quota resets. */
  reset: string;
  burst?: {
    limit: number;
    remaining: number;
    /** Seconds until the burst window frees a slot. */
    reset_seconds: number;
  };
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function whole(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/** The quota headers of a response, or undefined when it has none (an unauthenticated answer). */
export function quotaFromHeaders(headers: Headers): QuotaInfo | undefined {
  const limit = whole(header(headers, 'x-quota-limit'));
  const used = whole(header(headers, 'x-quota-used'));
  const remaining = whole(header(headers, 'x-quota-remaining'));
  const reset = header(headers, 'x-quota-reset');
  if (limit === undefined || used === undefined || remaining === undefined || !reset) return undefined;
  const info: QuotaInfo = { limit, used, remaining, reset };
  const bLimit = whole(header(headers, 'ratelimit-limit'));
  const bRemaining = whole(header(headers, 'ratelimit-remaining'));
  const bReset = whole(header(headers, 'ratelimit-reset'));
  if (bLimit !== undefined && bRemaining !== undefined && bReset !== undefined) {
    info.burst = { limit: bLimit, remaining: bRemaining, reset_seconds: bReset };
  }
  return info;
}

/**
 * Retry-After in seconds: delta-seconds or an HTTP date (RFC 9110). At least 1, so a client
 * that honours it can never spin; undefined when absent or unreadable.
 */
export function retryAfterSeconds(headers: Headers, nowMs = Date.now()): number | undefined {
  const value = header(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(1, Math.ceil((at - nowMs) / 1000));
}

/** "12 of 500 calls used this month, 488 left; resets 2026-12-01T00:00:00Z" */
export function describeQuota(q: QuotaInfo): string {
  return `${q.used} of ${q.limit} calls used this month, ${q.remaining} left; resets ${q.reset}`;
}
