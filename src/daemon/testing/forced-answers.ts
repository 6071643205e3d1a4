// Forced answers (test mode only): the request header `Provenance-Test-Response` makes the
// daemon answer as a real condition would, so a client can test its retry and error paths
// without using up a quota or breaking a server. The refusals are built by the same functions
// the real conditions use, so status, body and Retry-After cannot differ.
import type { AccountRecord } from '../contract/api-types.js';
import { ApiError, INTERNAL_ERROR_MESSAGE } from '../contract/errors.js';
import { limitsOf } from '../accounts/plans.js';
import { quotaExceededError } from '../accounts/quota.js';
import { rateLimitedError } from '../accounts/burst.js';

export const TEST_RESPONSE_HEADER = 'provenance-test-response';
export const TEST_MODE_FLAG = '--test-mode';
export const MAX_FORCED_DELAY_MS = 30_000;

export type ForcedAnswer =
  | { kind: 'quota_exceeded' | 'rate_limited' | 'internal_error' | 'download_failed'; value: string }
  | { kind: 'delay'; ms: number; value: string };

const ERRORS = ['quota_exceeded', 'rate_limited', 'internal_error', 'download_failed'] as const;

export type ForcedKind = ForcedAnswer['kind'];

/** Every forced answer: the conditions POST /v1/detect can really meet. */
export const FORCED_ALL: readonly ForcedKind[] = [...ERRORS, 'delay'];
/**
 * What can happen on any route, and so all a route allows unless it says otherwise: a free route
 * without quota or burst (POST /v1/uploads, GET /v1/detectors) can never answer a 429 or a 422,
 * and a forced one would teach a client a status the OpenAPI document does not list.
 */
export const FORCED_ANYWHERE: readonly ForcedKind[] = ['internal_error', 'delay'];

const HEADER_NAME = 'Provenance-Test-Response';

function usage(allowed: readonly ForcedKind[]): string {
  const names = allowed.map((k) => (k === 'delay' ? `delay=MS (0 to ${MAX_FORCED_DELAY_MS})` : k));
  return names.length > 2 ? `use one of ${names.slice(0, -1).join(', ')}, or ${names.at(-1)}` : `use ${names.join(' or ')}`;
}

/**
 * The header's value as a forced answer; undefined when there is no header. Throws the 400 the
 * client gets: outside test mode any use of the header, inside it an unknown value or one that
 * cannot happen on `route` (its `allowed` kinds).
 */
export function parseForcedAnswer(
  header: string | string[] | undefined,
  testMode: boolean,
  allowed: readonly ForcedKind[] = FORCED_ANYWHERE,
  route = 'this route',
): ForcedAnswer | undefined {
  if (header === undefined) return undefined;
  const name = HEADER_NAME;
  if (!testMode) {
    throw new ApiError('invalid_request', `The ${name} header works only on a daemon started with ${TEST_MODE_FLAG}; this daemon runs without it.`, name);
  }
  const value = (Array.isArray(header) ? header.join(',') : header).trim();
  let answer: ForcedAnswer | undefined;
  if ((ERRORS as readonly string[]).includes(value)) answer = { kind: value as (typeof ERRORS)[number], value };
  const delay = /^delay=(\d{1,6})$/.exec(value);
  if (delay && Number(delay[1]) <= MAX_FORCED_DELAY_MS) answer = { kind: 'delay', ms: Number(delay[1]), value };
  if (!answer) throw new ApiError('invalid_request', `The ${name} header "${value.slice(0, 64)}" is not a forced answer; ${usage(allowed)}.`, name);
  if (!allowed.includes(answer.kind)) {
    throw new ApiError('invalid_request', `The ${name} header "${value}" cannot happen on ${route}; there ${usage(allowed)}.`, name);
  }
  return answer;
}

/** What the quota and burst headers of a forced refusal say (the real refusal's state). */
export interface ForcedState {
  /** X-Quota-Used to report (the whole month for quota_exceeded), else undefined: the real usage. */
  quotaUsed?: number;
  /** RateLimit-* to report for rate_limited. */
  burst?: { limit: number; remaining: number; resetSeconds: number };
}

/** The refusal a forced error answer throws, and the limit state its headers must show. */
export function forcedRefusal(kind: Exclude<ForcedAnswer['kind'], 'delay'>, account: AccountRecord | undefined, at: Date): { error: ApiError; state: ForcedState } {
  const limits = account ? limitsOf(account) : undefined;
  switch (kind) {
    case 'quota_exceeded': {
      const limit = limits?.callsPerMonth ?? 0;
      return { error: quotaExceededError(limit, at), state: { quotaUsed: limit } };
    }
    case 'rate_limited': {
      // As a key whose window just filled: the oldest request leaves it in a full minute.
      const limit = limits?.requestsPerMinute ?? 0;
      return { error: rateLimitedError(limit, 60), state: { burst: { limit, remaining: 0, resetSeconds: 60 } } };
    }
    case 'internal_error':
      return { error: new ApiError('internal_error', INTERNAL_ERROR_MESSAGE), state: {} };
    case 'download_failed':
      return { error: new ApiError('download_failed', 'The URL answered HTTP 503, not a file.', 'url'), state: {} };
  }
}
