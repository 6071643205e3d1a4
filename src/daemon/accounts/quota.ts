// Monthly quota per account (SPEC 8.2, CONTRACT order of checks). A reservation is the store's
// own check-and-increment (Store.reserveCall), so concurrent requests can never both take the
// last call, whichever store holds the count.
import type { AccountRecord } from '../contract/api-types.js';
import { ApiError } from '../contract/errors.js';
import { limitsOf } from './plans.js';
import type { Store } from '../store/store.js';
import { isoSeconds, periodOf, quotaResetOf, type Clock } from '../contract/time.js';

export interface QuotaState {
  limit: number;
  used: number;
  remaining: number;
  reset: Date;
}

export interface Reservation {
  accountId: string;
  period: string;
  /** The account's usage including this call: X-Quota-Used of its response. */
  used: number;
  released: boolean;
}

/** The 429 of an account whose month is used up at `at` (also what test mode forces). */
export function quotaExceededError(limit: number, at: Date): ApiError {
  const reset = quotaResetOf(at);
  return new ApiError(
    'quota_exceeded',
    `The account has used all ${limit} API calls of this month; the quota resets at ${isoSeconds(reset)}.`,
    undefined,
    Math.max(1, Math.ceil((reset.getTime() - at.getTime()) / 1000)),
  );
}

export class Quota {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  async state(account: AccountRecord, usedOverride?: number): Promise<QuotaState> {
    const at = this.now();
    const limit = limitsOf(account).callsPerMonth;
    const used = usedOverride ?? (await this.store.usage(account.id, periodOf(at)));
    return { limit, used, remaining: Math.max(0, limit - used), reset: quotaResetOf(at) };
  }

  /** Takes one call or throws 429 quota_exceeded; the caller commits the store. */
  async reserve(account: AccountRecord): Promise<Reservation> {
    const at = this.now();
    const period = periodOf(at);
    const limit = limitsOf(account).callsPerMonth;
    const used = await this.store.reserveCall(account.id, period, limit);
    if (used === undefined) throw quotaExceededError(limit, at);
    return { accountId: account.id, period, used, released: false };
  }

  /** Gives a reserved call back (the media could not be loaded because of the request itself). */
  async release(reservation: Reservation): Promise<void> {
    if (reservation.released) return;
    reservation.released = true;
    await this.store.releaseCall(reservation.accountId, reservation.period);
  }
}
