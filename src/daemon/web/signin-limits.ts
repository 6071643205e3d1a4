// Rate limits on sign-in requests, so the form cannot be used to flood a mailbox or to send
// mail in bulk: per address, mails sent (default 5 per 15 minutes: 20 requests for one address
// in a minute send 5 mails); per client IP, requests made (default 30 per 15 minutes). Kept in
// memory, like the burst limit: a restart forgets them, which bounds nothing for long.
import { parseV6 } from '../media/url-guard.js';

export interface WindowLimit {
  limit: number;
  windowMs: number;
}

export interface SigninLimitOptions {
  perAddress: WindowLimit;
  perClient: WindowLimit;
}

export const DEFAULT_SIGNIN_LIMITS: SigninLimitOptions = {
  perAddress: { limit: 5, windowMs: 15 * 60 * 1000 },
  perClient: { limit: 30, windowMs: 15 * 60 * 1000 },
};

export type Take = { allowed: true } | { allowed: false; retryAfter: number };

/** Sliding-window counter per key; refused attempts do not enter the window. */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();
  constructor(readonly rule: WindowLimit) {}

  take(key: string, nowMs: number): Take {
    const window = (this.hits.get(key) ?? []).filter((t) => t > nowMs - this.rule.windowMs);
    if (window.length >= this.rule.limit) {
      this.hits.set(key, window);
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((window[0]! + this.rule.windowMs - nowMs) / 1000)) };
    }
    window.push(nowMs);
    this.hits.set(key, window);
    return { allowed: true };
  }

  /** Forgets every window (`provenance daemon reset`). */
  clear(): void {
    this.hits.clear();
  }

  sweep(nowMs: number): void {
    for (const [key, window] of this.hits) {
      if (!window.length || window[window.length - 1]! <= nowMs - this.rule.windowMs) this.hits.delete(key);
    }
  }
}

export type SigninDecision = { allowed: true } | { allowed: false; by: 'address' | 'client'; retryAfter: number };

export class SigninLimits {
  private readonly address: SlidingWindow;
  private readonly client: SlidingWindow;

  constructor(options: Partial<SigninLimitOptions> = {}) {
    this.address = new SlidingWindow(options.perAddress ?? DEFAULT_SIGNIN_LIMITS.perAddress);
    this.client = new SlidingWindow(options.perClient ?? DEFAULT_SIGNIN_LIMITS.perClient);
  }

  /** One sign-in request from `clientIp` for `email`: every request counts for the client, only mails sent count for the address. */
  take(email: string, clientIp: string, nowMs: number): SigninDecision {
    const byClient = this.client.take(clientIp, nowMs);
    if (!byClient.allowed) return { allowed: false, by: 'client', retryAfter: byClient.retryAfter };
    const byAddress = this.address.take(email, nowMs);
    if (!byAddress.allowed) return { allowed: false, by: 'address', retryAfter: byAddress.retryAfter };
    return { allowed: true };
  }

  sweep(nowMs: number): void {
    this.address.sweep(nowMs);
    this.client.sweep(nowMs);
  }

  /** Forgets every window (`provenance daemon reset`). */
  clear(): void {
    this.address.clear();
    this.client.clear();
  }
}

/**
 * The key the per-client limit counts a request under: an IPv4 address as it is (IPv4-mapped
 * IPv6 too), an IPv6 address by its /64. One IPv6 subscriber or host usually holds a whole /64,
 * and could otherwise take a fresh address for every request. Anything else is kept as it is.
 */
export function clientKey(ip: string): string {
  const address = ip.trim().toLowerCase();
  // parseV6 takes the address in brackets or with a zone (`fe80::1%eth0`) as well.
  const groups = parseV6(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

