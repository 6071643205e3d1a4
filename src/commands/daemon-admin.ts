// `provenance daemon accounts ...` and `daemon keys ...`: offline administration for tests and
// CI (no e-mail). Each works whether or not a daemon runs (see src/daemon/admin-client.ts).
import { AdminError } from '../daemon/accounts/accounts.js';
import { runAdmin, type AdminOp, type AdminResults } from '../daemon/admin/admin-client.js';
import type { AccountView, KeyRecord, NewKey } from '../daemon/contract/api-types.js';
import { resolveDataDir } from '../daemon/store/data-dir.js';
import { resolveStoreUrl } from '../daemon/store/open-store.js';
import { isStoreUsageError } from '../daemon/store/store-errors.js';
import { limitsOf } from '../daemon/accounts/plans.js';
import { dataDirProblem, missingDataDir } from './daemon-errors.js';
import type { CommandIO } from './io.js';
import { DAEMON_EXIT } from './daemon.js';

export interface AdminCommandOptions {
  dataDir?: string;
  /** A postgres:// URL (or $PROVENANCE_DATABASE_URL): work on that database, not a data dir. */
  store?: string;
  json: boolean;
}

async function run<T extends AdminOp>(
  op: T,
  options: AdminCommandOptions,
  io: CommandIO,
  print: (result: AdminResults[T['op']]) => string,
): Promise<number> {
  let result: AdminResults[T['op']];
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const storeUrl = resolveStoreUrl(options.store, io.env);
  // Only `accounts create` may make a data dir; every other command needs one that exists
  // (with --store the state is in the database, and no data dir is read).
  const missing = op.op === 'createAccount' || storeUrl ? undefined : missingDataDir(dataDir);
  if (missing) {
    io.stderr.write(`provenance: ${missing}\n`);
    return DAEMON_EXIT.failed;
  }
  try {
    result = await runAdmin(storeUrl ? { storeUrl } : { dataDir }, op);
  } catch (err) {
    io.stderr.write(`provenance: ${dataDirProblem(err, dataDir) ?? (err as Error).message}\n`);
    return (err instanceof AdminError && err.code === 'invalid') || isStoreUsageError(err) ? DAEMON_EXIT.usage : DAEMON_EXIT.failed;
  }
  io.stdout.write(options.json ? `${JSON.stringify(result)}\n` : print(result));
  return DAEMON_EXIT.ok;
}

function parseQuota(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  // Invalid numbers are passed through as NaN so the store's own check words the refusal.
  return Number.isSafeInteger(n) ? n : NaN;
}

const keyLine = (k: KeyRecord) =>
  `${k.id}  ${k.prefix}...  ${k.name}  created ${k.created_at}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}${k.last_used_at ? `  last used ${k.last_used_at}` : ''}\n`;
const newKeyText = (k: NewKey) => `key ${k.id}: ${k.value}\n(shown once: only its SHA-256 is kept, so store it now)\n`;
const accountLine = (a: AccountView) =>
  `${a.id}  ${a.email}  ${a.plan}  ${a.usage.used}/${a.limits.calls_per_month} calls in ${a.usage.period}, ${a.limits.requests_per_minute}/min\n`;

export function runAccountsCreate(o: AdminCommandOptions & { email: string; plan?: string; quota?: string }, io: CommandIO) {
  return run({ op: 'createAccount', email: o.email, plan: o.plan, quota: parseQuota(o.quota) }, o, io, ({ account, key }) => {
    const limits = limitsOf(account);
    return `account ${account.id} (${account.email}), plan ${account.plan}: ${limits.callsPerMonth} calls/month, ${limits.requestsPerMinute} requests/minute\n${newKeyText(key)}`;
  });
}

export function runAccountsList(o: AdminCommandOptions, io: CommandIO) {
  return run({ op: 'listAccounts' }, o, io, ({ accounts }) => (accounts.length ? accounts.map(accountLine).join('') : 'no accounts\n'));
}

export function runAccountsSetPlan(o: AdminCommandOptions & { email: string; plan: string; quota?: string }, io: CommandIO) {
  return run({ op: 'setPlan', email: o.email, plan: o.plan, quota: parseQuota(o.quota) }, o, io, ({ account }) => {
    const limits = limitsOf(account);
    return `account ${account.id} (${account.email}) is now on plan ${account.plan}: ${limits.callsPerMonth} calls/month, ${limits.requestsPerMinute} requests/minute\n`;
  });
}

export function runKeysCreate(o: AdminCommandOptions & { email: string; name?: string }, io: CommandIO) {
  return run({ op: 'createKey', email: o.email, name: o.name }, o, io, ({ key }) => newKeyText(key));
}

export function runKeysList(o: AdminCommandOptions & { email?: string }, io: CommandIO) {
  return run({ op: 'listKeys', email: o.email }, o, io, ({ keys }) => (keys.length ? keys.map(keyLine).join('') : 'no keys\n'));
}

export function runKeysRevoke(o: AdminCommandOptions & { id: string }, io: CommandIO) {
  return run({ op: 'revokeKey', id: o.id }, o, io, ({ key }) => `revoked ${key.id} (${key.prefix}...) at ${key.revoked_at}\n`);
}
