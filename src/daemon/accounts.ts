// Accounts and keys on the store: the one place that creates, finds and revokes them. Both the
// admin endpoint of a running daemon and the offline CLI call these, so they cannot disagree.
import { PLAN_IDS, type AccountRecord, type AccountView, type KeyRecord, type NewKey, type PlanId } from './api-types.js';
import { newId, newKeyValue, sha256Hex } from './key-format.js';
import { limitsOf } from './plans.js';
import type { Store, StoredKey } from './store.js';
import { periodOf, systemClock, type Clock } from './time.js';

/** A refused admin operation; `code` says why (the admin endpoint maps it to a status). */
export class AdminError extends Error {
  constructor(
    readonly code: 'invalid' | 'exists' | 'not_found',
    message: string,
  ) {
    super(message);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface PlanChoice {
  plan?: string;
  quota?: number;
}

export class Accounts {
  /** SHA-256 of a key -> key record, so authentication is one map lookup. */
  private readonly byHash = new Map<string, StoredKey>();

  constructor(
    private readonly store: Store,
    private readonly now: Clock = systemClock,
  ) {
    for (const key of Object.values(store.data.keys)) this.byHash.set(key.sha256, key);
  }

  createAccount(input: { email: string } & PlanChoice): { account: AccountRecord; key: NewKey } {
    const email = normaliseEmail(input.email);
    if (this.findByEmail(email)) throw new AdminError('exists', `An account for ${email} exists already.`);
    const { plan, quota } = checkPlan(input);
    const account: AccountRecord = {
      id: newId('acct'),
      email,
      plan,
      ...(quota !== undefined ? { quota } : {}),
      created_at: this.now().toISOString(),
    };
    this.store.data.accounts[account.id] = account;
    const key = this.addKey(account, 'first key');
    return { account: { ...account }, key };
  }

  setPlan(email: string, choice: PlanChoice): AccountRecord {
    const account = this.requireAccount(email);
    const { plan, quota } = checkPlan(choice);
    account.plan = plan;
    if (quota === undefined) delete account.quota;
    else account.quota = quota;
    return { ...account };
  }

  createKey(email: string, name?: string): NewKey {
    return this.addKey(this.requireAccount(email), name?.trim() || 'key');
  }

  revokeKey(keyId: string): KeyRecord {
    const key = this.store.data.keys[keyId];
    if (!key) throw new AdminError('not_found', `No key ${keyId}.`);
    key.revoked_at ??= this.now().toISOString();
    return publicKey(key);
  }

  listAccounts(): AccountView[] {
    const period = periodOf(this.now());
    return Object.values(this.store.data.accounts).map((account) => {
      const limits = limitsOf(account);
      return {
        ...account,
        limits: { calls_per_month: limits.callsPerMonth, requests_per_minute: limits.requestsPerMinute },
        usage: { period, used: this.store.data.usage[account.id]?.[period] ?? 0 },
      };
    });
  }

  listKeys(email?: string): KeyRecord[] {
    const accountId = email === undefined ? undefined : this.requireAccount(email).id;
    return Object.values(this.store.data.keys)
      .filter((k) => accountId === undefined || k.account === accountId)
      .map(publicKey);
  }

  /** The active key and its account for a key value, or undefined (unknown or revoked). */
  authenticate(value: string): { key: StoredKey; account: AccountRecord } | undefined {
    const key = this.byHash.get(sha256Hex(value));
    if (!key || key.revoked_at) return undefined;
    const account = this.store.data.accounts[key.account];
    if (!account) return undefined;
    return { key, account };
  }

  /**
   * The account of an address that opened its sign-in link: found, or created on the free plan
   * with a first key (returned once, as from `daemon accounts create`).
   */
  signIn(email: string): { account: AccountRecord; firstKey?: NewKey } {
    const found = this.findByEmail(email);
    if (found) return { account: found };
    const { account, key } = this.createAccount({ email, plan: 'free' });
    return { account: this.store.data.accounts[account.id]!, firstKey: key };
  }

  accountById(id: string): AccountRecord | undefined {
    return this.store.data.accounts[id];
  }

  /** The keys of one account, oldest first. */
  keysOfAccount(accountId: string): KeyRecord[] {
    return Object.values(this.store.data.keys)
      .filter((k) => k.account === accountId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map(publicKey);
  }

  /** Revokes a key only if it belongs to the account (the dashboard's revoke). */
  revokeKeyOf(accountId: string, keyId: string): KeyRecord {
    const key = this.store.data.keys[keyId];
    if (!key || key.account !== accountId) throw new AdminError('not_found', `No key ${keyId} on this account.`);
    return this.revokeKey(keyId);
  }

  findByEmail(email: string): AccountRecord | undefined {
    const wanted = normaliseEmail(email);
    return Object.values(this.store.data.accounts).find((a) => a.email === wanted);
  }

  private requireAccount(email: string): AccountRecord {
    const account = this.findByEmail(email);
    if (!account) throw new AdminError('not_found', `No account for ${normaliseEmail(email)}.`);
    return account;
  }

  private addKey(account: AccountRecord, name: string): NewKey {
    const value = newKeyValue();
    const key: StoredKey = {
      id: newId('key'),
      account: account.id,
      name,
      prefix: value.slice(0, 8),
      sha256: sha256Hex(value),
      created_at: this.now().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    this.store.data.keys[key.id] = key;
    this.byHash.set(key.sha256, key);
    return { ...publicKey(key), value };
  }
}

export function publicKey({ sha256: _hash, ...rest }: StoredKey): KeyRecord {
  return { ...rest };
}

/** Trimmed and lower-cased, or AdminError('invalid') when it is not an e-mail address. */
export function normaliseEmail(email: string): string {
  const e = String(email ?? '').trim().toLowerCase();
  if (!EMAIL.test(e)) throw new AdminError('invalid', `"${email}" is not an e-mail address.`);
  return e;
}

function checkPlan({ plan = 'free', quota }: PlanChoice): { plan: PlanId; quota?: number } {
  if (!(PLAN_IDS as readonly string[]).includes(plan)) {
    throw new AdminError('invalid', `Unknown plan "${plan}"; use one of ${PLAN_IDS.join(', ')}.`);
  }
  if (plan === 'custom') {
    if (quota === undefined || !Number.isSafeInteger(quota) || quota < 0) {
      throw new AdminError('invalid', 'A custom plan needs its agreed monthly calls: --quota N (a whole number >= 0).');
    }
    return { plan, quota };
  }
  if (quota !== undefined) {
    throw new AdminError('invalid', `--quota only applies to the custom plan; the ${plan} plan's quota is fixed.`);
  }
  return { plan: plan as PlanId };
}
