// Fixtures (`daemon start --fixtures FILE.json`, `daemon seed FILE.json`): accounts with their
// plan, custom quota and calls already used this month, and keys given in plain text so that a
// test suite has the same keys on every run. Keys are checked (format and checksum) and stored
// hashed, as always. A file is checked whole first: every problem is reported with its JSON
// path, and nothing is applied unless there is none. Seeding twice is idempotent: an account
// found by e-mail is updated, usage is set (not added), and a fixture key is put back as the
// file says (active, under its name) if a test revoked or renamed it since, so every run of a
// suite starts from the same keys. No path may give an account more than MAX_ACTIVE_KEYS.
//
//   { "accounts": [ { "email": "dev@example.test", "plan": "custom", "quota": 100, "used": 99,
//                     "keys": [ { "key": "prv_...", "name": "ci" } ] } ] }
import { PLAN_IDS, type AccountRecord, type PlanId } from '../contract/api-types.js';
import { isWellFormedKey, newId, sha256Hex } from '../accounts/key-format.js';
import { MAX_ACTIVE_KEYS } from '../accounts/accounts.js';
import type { Store } from '../store/store.js';
import { periodOf, type Clock } from '../contract/time.js';

export interface FixtureKey {
  key: string;
  name?: string;
}

export interface FixtureAccount {
  email: string;
  plan?: PlanId;
  quota?: number;
  /** Calls already used in the current month. */
  used?: number;
  keys?: FixtureKey[];
}

export interface Fixtures {
  accounts: FixtureAccount[];
}

export interface SeedResult {
  accounts_created: number;
  accounts_updated: number;
  keys_created: number;
  /** Fixture keys found revoked or renamed, made active under their fixture name again. */
  keys_restored: number;
}

/** The name a fixture key gets when the file gives none. */
const DEFAULT_KEY_NAME = 'fixture key';

/** Problems of a fixture document, each `$.path: what is wrong`; none means it can be applied. */
export class FixtureError extends Error {
  constructor(readonly problems: string[]) {
    super(`The fixtures have ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** As everywhere an address or a key name comes in (accounts.ts): no control or format characters. */
const CONTROL = /[\p{Cc}\p{Cf}]/u;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Checks the document's shape and values (no store needed); throws FixtureError. */
export function checkFixtures(doc: unknown): Fixtures {
  const problems: string[] = [];
  const unknownFields = (obj: Record<string, unknown>, allowed: string[], path: string) => {
    for (const k of Object.keys(obj)) if (!allowed.includes(k)) problems.push(`${path}.${k}: unknown field; allowed: ${allowed.join(', ')}`);
  };
  if (!isObject(doc)) throw new FixtureError(['$: must be an object {"accounts": [...]}']);
  unknownFields(doc, ['accounts'], '$');
  if (!Array.isArray(doc.accounts)) throw new FixtureError([...problems, '$.accounts: must be an array of accounts']);
  const emails = new Map<string, string>();
  const keys = new Map<string, string>();
  doc.accounts.forEach((account: unknown, i: number) => {
    const path = `$.accounts[${i}]`;
    if (!isObject(account)) return void problems.push(`${path}: must be an object with at least "email"`);
    unknownFields(account, ['email', 'plan', 'quota', 'used', 'keys'], path);
    const email = typeof account.email === 'string' ? account.email.trim().toLowerCase() : '';
    if (!EMAIL.test(email) || CONTROL.test(email)) problems.push(`${path}.email: must be an e-mail address`);
    else if (emails.has(email)) problems.push(`${path}.email: ${email} is also ${emails.get(email)}`);
    else emails.set(email, `${path}.email`);
    const plan = account.plan ?? 'free';
    if (typeof plan !== 'string' || !(PLAN_IDS as readonly string[]).includes(plan)) problems.push(`${path}.plan: must be one of ${PLAN_IDS.join(', ')}`);
    if (plan === 'custom' && !isCount(account.quota)) problems.push(`${path}.quota: a custom plan needs its monthly calls, a whole number >= 0`);
    // (A plan that is not a string is reported above; String() of some JSON objects throws.)
    if (typeof plan === 'string' && plan !== 'custom' && account.quota !== undefined) problems.push(`${path}.quota: only a custom plan has a quota; the ${plan} plan's is fixed`);
    if (account.used !== undefined && !isCount(account.used)) problems.push(`${path}.used: must be a whole number >= 0`);
    if (account.keys === undefined) return;
    if (!Array.isArray(account.keys)) return void problems.push(`${path}.keys: must be an array of {"key": "prv_...", "name"?}`);
    if (account.keys.length > MAX_ACTIVE_KEYS) {
      problems.push(`${path}.keys: ${account.keys.length} keys for ${email || 'one account'}; an account has at most ${MAX_ACTIVE_KEYS} active keys`);
    }
    account.keys.forEach((key: unknown, j: number) => {
      const kpath = `${path}.keys[${j}]`;
      if (!isObject(key)) return void problems.push(`${kpath}: must be an object {"key": "prv_...", "name"?}`);
      unknownFields(key, ['key', 'name'], kpath);
      if (key.name !== undefined && (typeof key.name !== 'string' || key.name.length > 200 || CONTROL.test(key.name))) {
        problems.push(`${kpath}.name: must be a string of at most 200 characters, without control characters`);
      }
      if (typeof key.key !== 'string' || !isWellFormedKey(key.key)) {
        problems.push(`${kpath}.key: not a valid key ("prv_" and 38 letters or digits with a checksum); make one with \`provenance daemon keys make\``);
      } else if (keys.has(key.key)) problems.push(`${kpath}.key: the same key is also ${keys.get(key.key)}`);
      else keys.set(key.key, `${kpath}.key`);
    });
  });
  if (problems.length) throw new FixtureError(problems);
  return {
    accounts: (doc.accounts as Record<string, unknown>[]).map((a) => ({
      email: (a.email as string).trim().toLowerCase(),
      plan: (a.plan ?? 'free') as PlanId,
      ...(a.quota !== undefined ? { quota: a.quota as number } : {}),
      ...(a.used !== undefined ? { used: a.used as number } : {}),
      keys: ((a.keys ?? []) as Record<string, unknown>[]).map((k) => ({ key: k.key as string, ...(k.name !== undefined ? { name: k.name as string } : {}) })),
    })),
  };
}

/**
 * Checks the document, then against the store (a key already held by another account; more
 * than MAX_ACTIVE_KEYS active keys on an account once seeded), then applies it; throws
 * FixtureError with nothing applied. The caller commits the store.
 */
export async function seedFixtures(store: Store, doc: unknown, now: Clock): Promise<SeedResult> {
  const fixtures = checkFixtures(doc);
  const problems: string[] = [];
  for (const [i, account] of fixtures.accounts.entries()) {
    const hashes = new Set<string>();
    for (const [j, { key }] of (account.keys ?? []).entries()) {
      const sha256 = sha256Hex(key);
      hashes.add(sha256);
      const stored = await store.keyByHash(sha256);
      if (!stored) continue;
      const owner = await store.accountById(stored.account);
      if (owner?.email !== account.email) problems.push(`$.accounts[${i}].keys[${j}].key: this key belongs to another account (${owner?.email ?? stored.account})`);
    }
    // Every fixture key is active after seeding, besides the account's other active keys.
    const existing = await store.accountByEmail(account.email);
    const others = existing ? (await store.listKeys(existing.id)).filter((k) => !k.revoked_at && !hashes.has(k.sha256)).length : 0;
    if (others + hashes.size > MAX_ACTIVE_KEYS) {
      problems.push(
        `$.accounts[${i}].keys: ${account.email} would have ${others + hashes.size} active keys (${hashes.size} in the fixtures, ${others} other active ones); an account has at most ${MAX_ACTIVE_KEYS}: revoke some first (provenance daemon keys revoke) or reset`,
      );
    }
  }
  if (problems.length) throw new FixtureError(problems);

  const result: SeedResult = { accounts_created: 0, accounts_updated: 0, keys_created: 0, keys_restored: 0 };
  const at = now();
  for (const fixture of fixtures.accounts) {
    const plan = { plan: fixture.plan ?? 'free', quota: fixture.quota };
    let account = await store.accountByEmail(fixture.email);
    if (account) {
      await store.setAccountPlan(account.id, plan);
      result.accounts_updated++;
    } else {
      account = { id: newId('acct'), email: fixture.email, plan: plan.plan, ...(plan.quota !== undefined ? { quota: plan.quota } : {}), created_at: at.toISOString() } satisfies AccountRecord;
      await store.insertAccount(account);
      result.accounts_created++;
    }
    for (const { key, name = DEFAULT_KEY_NAME } of fixture.keys ?? []) {
      const sha256 = sha256Hex(key);
      const stored = await store.keyByHash(sha256);
      if (stored) {
        if (stored.revoked_at !== null || stored.name !== name) {
          await store.restoreKey(stored.id, name);
          result.keys_restored++;
        }
        continue;
      }
      await store.insertKey({
        id: newId('key'),
        account: account.id,
        name,
        prefix: key.slice(0, 8),
        sha256,
        created_at: at.toISOString(),
        last_used_at: null,
        revoked_at: null,
      });
      result.keys_created++;
    }
    if (fixture.used !== undefined) await store.setUsage(account.id, periodOf(at), fixture.used);
  }
  return result;
}
