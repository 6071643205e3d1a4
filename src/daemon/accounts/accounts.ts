// Accounts and keys on the store: the one place that creates, finds and revokes them. Both the
// admin endpoint of a running daemon and the offline CLI call these, so they cannot disagree.
// Callers commit the store after a change they must not lose.
import { PLAN_IDS, type AccountRecord, type AccountView, type KeyRecord, type NewKey, type PlanId } from '../contract/api-types.js';
import { isWellFormedKey, newId, newKeyValue, sameKeyDigest, sha256Hex } from './key-format.js';
import { limitsOf } from './plans.js';
import { StoreConflictError, type Store, type StoredKey } from '../store/store.js';
import { periodOf, systemClock, type Clock } from '../contract/time.js';

/** A refused admin operation; `code` says why (the admin endpoint maps it to a status). */
export class AdminError extends Error {
  constructor(
    readonly code: 'invalid' | 'exists' | 'not_found' | 'not_running',
    message: string,
  ) {
    super(message);
  }
}

/** Active (not revoked) keys an account may have, on every path that creates one. */
export const MAX_ACTIVE_KEYS = 25;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/**
 * Control and format characters (NUL, ESC, BEL, bidi overrides...): never part of an address or
 * a key name. Refused at the edge, so none reaches a terminal, a mail header or a store (and
 * PostgreSQL, whose text cannot hold NUL, answers as the embedded store does).
 */
const CONTROL = /[\p{Cc}\p{Cf}]/u;

export interface PlanChoice {
  plan?: string;
  quota?: number;
}

export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly now: Clock = systemClock,
  ) {}

  async createAccount(input: { email: string } & PlanChoice): Promise<{ account: AccountRecord; key: NewKey }> {
    const email = normaliseEmail(input.email);
    const { plan, quota } = checkPlan(input);
    const account: AccountRecord = {
      id: newId('acct'),
      email,
      plan,
      ...(quota !== undefined ? { quota } : {}),
      created_at: this.now().toISOString(),
    };
    try {
      await this.store.insertAccount(account);
    } catch (err) {
      if (err instanceof StoreConflictError) throw new AdminError('exists', `An account for ${email} exists already.`);
      throw err;
    }
    const key = await this.addKey(account, 'first key');
    return { account: { ...account }, key };
  }

  async setPlan(email: string, choice: PlanChoice): Promise<AccountRecord> {
    const account = await this.requireAccount(email);
    const { plan, quota } = checkPlan(choice);
    const changed = await this.store.setAccountPlan(account.id, { plan, quota });
    if (!changed) throw new AdminError('not_found', `No account for ${account.email}.`);
    return changed;
  }

  async createKey(email: string, name?: string): Promise<NewKey> {
    const account = await this.requireAccount(email);
    // Here, not in one caller: the dashboard, the admin endpoint and the offline CLI all end here.
    const active = (await this.keysOfAccount(account.id)).filter((k) => !k.revoked_at).length;
    if (active >= MAX_ACTIVE_KEYS) {
      throw new AdminError('invalid', `An account has at most ${MAX_ACTIVE_KEYS} active keys; ${account.email} has ${active}: revoke one it no longer uses first.`);
    }
    if (name !== undefined && CONTROL.test(name)) throw new AdminError('invalid', 'A key name cannot hold control characters.');
    const added = await this.addKey(account, name?.trim() || 'key', MAX_ACTIVE_KEYS);
    // Another create of this account took the last place since the count above.
    if (!added) throw new AdminError('invalid', `An account has at most ${MAX_ACTIVE_KEYS} active keys; ${account.email} has ${MAX_ACTIVE_KEYS}: revoke one it no longer uses first.`);
    return added;
  }

  async revokeKey(keyId: string): Promise<KeyRecord> {
    const key = await this.store.revokeKey(keyId, this.now().toISOString());
    if (!key) throw new AdminError('not_found', `No key ${keyId}.`);
    return publicKey(key);
  }

  async listAccounts(): Promise<AccountView[]> {
    const period = periodOf(this.now());
    const accounts = await this.store.listAccounts();
    return Promise.all(
      accounts.map(async (account) => {
        const limits = limitsOf(account);
        return {
          ...account,
          limits: { calls_per_month: limits.callsPerMonth, requests_per_minute: limits.requestsPerMinute },
          usage: { period, used: await this.store.usage(account.id, period) },
        };
      }),
    );
  }

  async listKeys(email?: string): Promise<KeyRecord[]> {
    const accountId = email === undefined ? undefined : (await this.requireAccount(email)).id;
    return (await this.store.listKeys(accountId)).map(publicKey);
  }

  /** The active key and its account for a key value, or undefined (unknown or revoked). */
  async authenticate(value: string): Promise<{ key: StoredKey; account: AccountRecord } | undefined> {
    // A value that fails its checksum never reaches the lookup (the auth hook refuses it first
    // with its own message; this keeps the guarantee for every caller). The store finds the
    // record by its SHA-256 (a Map, or an index); the final word is a constant-time comparison
    // of the two digests, which a miss makes too, against a fixed digest. Here, once, rather
    // than in each store (docs/SECURITY.md).
    if (!isWellFormedKey(value)) return undefined;
    const digest = sha256Hex(value);
    const key = await this.store.keyByHash(digest);
    if (!sameKeyDigest(digest, key?.sha256) || !key || key.revoked_at) return undefined;
    const account = await this.store.accountById(key.account);
    if (!account) return undefined;
    return { key, account };
  }

  /**
   * The account of an address that opened its sign-in link: found, or created on the free plan
   * with a first key (returned once, as from `daemon accounts create`).
   */
  async signIn(email: string): Promise<{ account: AccountRecord; firstKey?: NewKey }> {
    const found = await this.findByEmail(email);
    if (found) return { account: found };
    try {
      const { account, key } = await this.createAccount({ email, plan: 'free' });
      return { account, firstKey: key };
    } catch (err) {
      // Two links of one address opened at once: the other one made the account.
      const made = err instanceof AdminError && err.code === 'exists' ? await this.findByEmail(email) : undefined;
      if (made) return { account: made };
      throw err;
    }
  }

  accountById(id: string): Promise<AccountRecord | undefined> {
    return this.store.accountById(id);
  }

  /** The keys of one account, oldest first. */
  async keysOfAccount(accountId: string): Promise<KeyRecord[]> {
    return (await this.store.listKeys(accountId)).map(publicKey);
  }

  /** Revokes a key only if it belongs to the account (the dashboard's revoke). */
  async revokeKeyOf(accountId: string, keyId: string): Promise<KeyRecord> {
    const key = await this.store.keyById(keyId);
    if (!key || key.account !== accountId) throw new AdminError('not_found', `No key ${keyId} on this account.`);
    return this.revokeKey(keyId);
  }

  findByEmail(email: string): Promise<AccountRecord | undefined> {
    return this.store.accountByEmail(normaliseEmail(email));
  }

  private async requireAccount(email: string): Promise<AccountRecord> {
    const account = await this.findByEmail(email);
    if (!account) throw new AdminError('not_found', `No account for ${normaliseEmail(email)}.`);
    return account;
  }

  /** The new key, or undefined when `maxActive` is given and the account has that many active keys. */
  private async addKey(account: AccountRecord, name: string, maxActive: number): Promise<NewKey | undefined>;
  private async addKey(account: AccountRecord, name: string): Promise<NewKey>;
  private async addKey(account: AccountRecord, name: string, maxActive?: number): Promise<NewKey | undefined> {
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
    if (!(await this.store.insertKey(key, maxActive))) return undefined;
    return { ...publicKey(key), value };
  }
}

export function publicKey({ sha256: _hash, ...rest }: StoredKey): KeyRecord {
  return { ...rest };
}

/** Trimmed and lower-cased, or AdminError('invalid') when it is not an e-mail address. */
export function normaliseEmail(email: string): string {
  const e = String(email ?? '').trim().toLowerCase();
  if (CONTROL.test(e)) throw new AdminError('invalid', 'That is not an e-mail address: it holds control characters.');
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
