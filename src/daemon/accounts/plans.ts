// SPEC 8.2's plan table. The custom plan's monthly calls are agreed per account (set by the operator).
import type { AccountRecord, PlanId } from '../contract/api-types.js';

export interface PlanLimits {
  callsPerMonth: number;
  requestsPerMinute: number;
}

const FIXED: Record<Exclude<PlanId, 'custom'>, PlanLimits> = {
  free: { callsPerMonth: 500, requestsPerMinute: 10 },
  starter: { callsPerMonth: 10_000, requestsPerMinute: 60 },
  growth: { callsPerMonth: 100_000, requestsPerMinute: 120 },
};
const CUSTOM_REQUESTS_PER_MINUTE = 300;

export function limitsOf(account: Pick<AccountRecord, 'plan' | 'quota'>): PlanLimits {
  if (account.plan === 'custom') {
    return { callsPerMonth: account.quota ?? 0, requestsPerMinute: CUSTOM_REQUESTS_PER_MINUTE };
  }
  return FIXED[account.plan];
}
