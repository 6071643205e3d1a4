// Runs one admin operation (accounts, keys) the safe way: on the store directly when no daemon
// holds the data dir (taking the lock for the moment of the write), else through the running
// daemon's admin endpoint with the token from its 0600 file. Never two writers on one store.
// With a PostgreSQL store (--store URL) the operation goes straight to the database, daemons
// running or not: the database is the one writer, and every daemon reads what it wrote.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Accounts, AdminError } from '../accounts/accounts.js';
import type { AccountRecord, AccountView, KeyRecord, NewKey } from '../contract/api-types.js';
import { DATA_FILES } from '../store/data-dir.js';
import { isAlive, sleep, tryLock } from '../store/lock.js';
import { localUrl, readState, readStoreMarker, type DaemonState } from '../store/daemon-state.js';
import { openStore } from '../store/file-store.js';
import { PgStore } from '../store/pg-store.js';
import type { Store } from '../store/store.js';
import { ADMIN_TOKEN_HEADER } from './admin-token.js';
import type { StoreSnapshot } from '../store/store.js';
import type { ClockAction, ClockView } from '../testing/test-clock.js';
import { seedFixtures, type SeedResult } from '../testing/fixtures.js';
import type { RequestLogEntry } from '../testing/request-log.js';
import { importState, resetState } from '../testing/test-mode.js';
import { systemClock } from '../contract/time.js';

export type AdminOp =
  | { op: 'createAccount'; email: string; plan?: string; quota?: number }
  | { op: 'listAccounts' }
  | { op: 'setPlan'; email: string; plan?: string; quota?: number }
  | { op: 'createKey'; email: string; name?: string }
  | { op: 'listKeys'; email?: string }
  | { op: 'revokeKey'; id: string }
  | { op: 'clock'; change?: ClockAction }
  | { op: 'seed'; fixtures: unknown }
  | { op: 'exportState' }
  | { op: 'importState'; snapshot: unknown }
  | { op: 'reset'; keepAccounts: boolean }
  | { op: 'requests'; after?: number; account?: string; limit?: number };

export interface AdminResults {
  createAccount: { account: AccountRecord; key: NewKey };
  listAccounts: { accounts: AccountView[] };
  setPlan: { account: AccountRecord };
  createKey: { key: NewKey };
  listKeys: { keys: KeyRecord[] };
  revokeKey: { key: KeyRecord };
  clock: ClockView & { test_mode: boolean };
  seed: SeedResult;
  exportState: StoreSnapshot;
  importState: { imported: Record<string, number> };
  reset: { reset: true; kept_accounts: boolean };
  requests: { test_mode: boolean; requests: RequestLogEntry[] };
}

/** Where an admin command works: the data dir's embedded store (or its daemon), or a database. */
export type AdminTarget = { dataDir: string; storeUrl?: undefined } | { storeUrl: string; dataDir?: undefined };

export async function runAdmin<T extends AdminOp>(target: AdminTarget, op: T): Promise<AdminResults[T['op']]> {
  if (target.storeUrl !== undefined) {
    const store = await PgStore.open(target.storeUrl);
    try {
      return (await apply(store, op, undefined, store.location)) as AdminResults[T['op']];
    } finally {
      await store.close();
    }
  }
  const dataDir = target.dataDir;
  for (let waited = 0; ; waited += 100) {
    const attempt = await tryLock(dataDir, 'admin');
    if ('lock' in attempt) {
      const database = readStoreMarker(dataDir);
      if (database) {
        attempt.lock.release();
        throw new AdminError('invalid', `the daemon of ${dataDir} keeps its state in PostgreSQL (${database}); pass --store with that URL (or set PROVENANCE_DATABASE_URL)`);
      }
      try {
        return (await offline(dataDir, op)) as AdminResults[T['op']];
      } finally {
        attempt.lock.release();
      }
    }
    if (attempt.heldBy.role === 'daemon') {
      const state = await waitForState(dataDir, attempt.heldBy.pid);
      if (state) return (await online(dataDir, state, op)) as AdminResults[T['op']];
    }
    if (waited >= 10_000) throw new AdminError('invalid', `The data dir ${dataDir} stays locked by pid ${attempt.heldBy.pid}.`);
    await sleep(100);
  }
}

async function offline(dataDir: string, op: AdminOp): Promise<unknown> {
  const store = await openStore(dataDir);
  try {
    return await apply(store, op, join(dataDir, 'uploads'), dataDir);
  } finally {
    await store.close();
  }
}

/** The operation on an open store, committed before it returns. */
/**
 * The operation on an open store, committed before it returns. `uploadsDir` is the embedded
 * store's uploads folder (import and reset remove files no record points to); a database keeps
 * upload bytes with their records.
 */
async function apply(store: Store, op: AdminOp, uploadsDir: string | undefined, where: string): Promise<unknown> {
  const accounts = new Accounts(store);
  let result: unknown;
  switch (op.op) {
    case 'createAccount':
      result = await accounts.createAccount(op);
      break;
    case 'listAccounts':
      return { accounts: await accounts.listAccounts() };
    case 'setPlan':
      result = { account: await accounts.setPlan(op.email, op) };
      break;
    case 'createKey':
      result = { key: await accounts.createKey(op.email, op.name) };
      break;
    case 'listKeys':
      return { keys: await accounts.listKeys(op.email) };
    case 'revokeKey':
      result = { key: await accounts.revokeKey(op.id) };
      break;
    case 'clock':
    case 'requests':
      // Both live in a running daemon's memory only.
      throw new AdminError(
        'not_running',
        `No daemon runs on ${where}; the ${op.op === 'clock' ? 'test clock' : 'request log'} lives in a running daemon (provenance daemon start --test-mode).`,
      );
    case 'seed':
      result = await seedFixtures(store, op.fixtures, systemClock);
      break;
    case 'exportState':
      return await store.exportState();
    case 'importState':
      return await importState(store, uploadsDir, op.snapshot);
    case 'reset':
      return await resetState(store, uploadsDir, op.keepAccounts);
  }
  await store.commit();
  return result;
}

/** A daemon that just took the lock writes its state file once it listens. */
async function waitForState(dataDir: string, pid: number): Promise<DaemonState | undefined> {
  for (let i = 0; i < 100; i++) {
    const state = readState(dataDir);
    if (state && state.pid === pid) return state;
    if (!isAlive(pid)) return undefined;
    await sleep(50);
  }
  return undefined;
}

async function online(dataDir: string, state: DaemonState, op: AdminOp): Promise<unknown> {
  const token = readFileSync(join(dataDir, DATA_FILES.adminToken), 'utf8').trim();
  const base = `${localUrl(state)}/admin/v1`;
  const call = async (method: 'GET' | 'POST', path: string, body?: object) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { [ADMIN_TOKEN_HEADER]: token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as { error?: { message: string } };
    if (!response.ok) {
      const code = response.status === 404 ? 'not_found' : response.status >= 500 ? 'not_running' : 'invalid';
      throw new AdminError(code, json.error?.message ?? `HTTP ${response.status}`);
    }
    return json;
  };
  switch (op.op) {
    case 'createAccount':
      return call('POST', '/accounts', { email: op.email, plan: op.plan, quota: op.quota });
    case 'listAccounts':
      return call('GET', '/accounts');
    case 'setPlan':
      return call('POST', '/accounts/plan', { email: op.email, plan: op.plan, quota: op.quota });
    case 'createKey':
      return call('POST', '/keys', { email: op.email, name: op.name });
    case 'listKeys':
      return call('GET', op.email ? `/keys?email=${encodeURIComponent(op.email)}` : '/keys');
    case 'revokeKey':
      return call('POST', `/keys/${encodeURIComponent(op.id)}/revoke`);
    case 'clock':
      return op.change ? call('POST', '/clock', op.change) : call('GET', '/clock');
    case 'seed':
      return call('POST', '/seed', op.fixtures as object);
    case 'exportState':
      return call('GET', '/export');
    case 'importState':
      return call('POST', '/import', op.snapshot as object);
    case 'reset':
      return call('POST', '/reset', { keep_accounts: op.keepAccounts });
    case 'requests': {
      const q = new URLSearchParams();
      if (op.after !== undefined) q.set('after', String(op.after));
      if (op.account) q.set('account', op.account);
      if (op.limit !== undefined) q.set('limit', String(op.limit));
      return call('GET', `/requests${q.size ? `?${q}` : ''}`);
    }
  }
}
