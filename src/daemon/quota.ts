// Monthly quota per account (SPEC 8.2, CONTRACT order of checks). A reservation is a synchronous
// check-and-increment on the in-memory store, so concurrent requests can never both take the
// last call: JavaScript runs one of them to completion before the other reads the count.
import type { AccountRecord } from './api-types.js';
import { ApiError } from './errors.js';
import { limitsOf } from './plans.js';
import type { Store } from './store.js';
import { isoSeconds, periodOf, quotaResetOf, type Clock } from './time.js';

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

export class Quota {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  state(account: AccountRecord, usedOverride?: number): QuotaState {
    const at = this.now();
    const limit = limitsOf(account).callsPerMonth;
    const used = usedOverride ?? this.usage(account.id, periodOf(at));
    return { limit, used, remaining: Math.max(0, limit - used), reset: quotaResetOf(at) };
  }

  /** Takes one call or throws 429 quota_exceeded; the caller commits the store. */
  reserve(account: AccountRecord): Reservation {
    const at = this.now();
    const period = periodOf(at);
    const limit = limitsOf(account).callsPerMonth;
    const used = this.usage(account.id, period);
    if (used >= limit) {
      const reset = quotaResetOf(at);
      throw new ApiError(
        'quota_exceeded',
        `The account has used all ${limit} API calls of this month; the quota resets at ${isoSeconds(reset)}.`,
        undefined,
        Math.max(1, Math.ceil((reset.getTime() - at.getTime()) / 1000)),
      );
    }
    const perAccount = (this.store.data.usage[account.id] ??= {});
    perAccount[period] = used + 1;
    return { accountId: account.id, period, used: used + 1, released: false };
  }

  /** Gives a reserved call back (the media could not be loaded because of the request itself). */
  release(reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    const perAccount = this.store.data.usage[reservation.accountId];
    if (perAccount?.[reservation.period]) perAccount[reservation.period]! -= 1;
  }

  private usage(accountId: string, period: string): number {
    return this.store.data.usage[accountId]?.[period] ?? 0;
  }
}
