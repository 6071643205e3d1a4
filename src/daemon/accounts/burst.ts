// The per-key burst gate's rule (CONTRACT "Headers"): each plan's requests per minute, counted
// in a sliding 60 s window that the store keeps (in process for the embedded store, shared by
// every daemon for a database).
import type { AccountRecord } from '../contract/api-types.js';
import { ApiError } from '../contract/errors.js';
import type { Clock } from '../contract/time.js';
import type { BurstDecision, Store, StoredKey } from '../store/store.js';
import { limitsOf } from './plans.js';

export class Burst {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  take(key: StoredKey, account: AccountRecord): Promise<BurstDecision> {
    return this.store.takeBurst(key.id, limitsOf(account).requestsPerMinute, this.now().getTime());
  }

  /** What `take` would answer, admitting nothing (a forced answer in test mode). */
  peek(key: StoredKey, account: AccountRecord): Promise<BurstDecision> {
    return this.store.peekBurst(key.id, limitsOf(account).requestsPerMinute, this.now().getTime());
  }

  sweep(): Promise<void> {
    return this.store.sweepBurst(this.now().getTime());
  }
}

/** The 429 of a key over its plan's burst limit (also what test mode forces). */
export function rateLimitedError(limit: number, retryAfter: number): ApiError {
  return new ApiError(
    'rate_limited',
    `This key made ${limit} requests in the last 60 seconds, its plan's burst limit; retry in ${retryAfter} seconds.`,
    undefined,
    retryAfter,
  );
}
