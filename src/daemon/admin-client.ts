// Runs one admin operation (accounts, keys) the safe way: on the store directly when no daemon
// holds the data dir (taking the lock for the moment of the write), else through the running
// daemon's admin endpoint with the token from its 0600 file. Never two writers on one store.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Accounts, AdminError } from './accounts.js';
import type { AccountRecord, AccountView, KeyRecord, NewKey } from './api-types.js';
import { DATA_FILES } from './data-dir.js';
import { isAlive, sleep, tryLock } from './lock.js';
import { ADMIN_TOKEN_HEADER } from './routes/admin.js';
import { localUrl, readState, type DaemonState } from './server.js';
import { openStore } from './store.js';

export type AdminOp =
  | { op: 'createAccount'; email: string; plan?: string; quota?: number }
  | { op: 'listAccounts' }
  | { op: 'setPlan'; email: string; plan?: string; quota?: number }
  | { op: 'createKey'; email: string; name?: string }
  | { op: 'listKeys'; email?: string }
  | { op: 'revokeKey'; id: string };

export interface AdminResults {
  createAccount: { account: AccountRecord; key: NewKey };
  listAccounts: { accounts: AccountView[] };
  setPlan: { account: AccountRecord };
  createKey: { key: NewKey };
  listKeys: { keys: KeyRecord[] };
  revokeKey: { key: KeyRecord };
}

export async function runAdmin<T extends AdminOp>(dataDir: string, op: T): Promise<AdminResults[T['op']]> {
  for (let waited = 0; ; waited += 100) {
    const attempt = await tryLock(dataDir, 'admin');
    if ('lock' in attempt) {
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
    const accounts = new Accounts(store);
    let result: unknown;
    switch (op.op) {
      case 'createAccount':
        result = accounts.createAccount(op);
        break;
      case 'listAccounts':
        return { accounts: accounts.listAccounts() };
      case 'setPlan':
        result = { account: accounts.setPlan(op.email, op) };
        break;
      case 'createKey':
        result = { key: accounts.createKey(op.email, op.name) };
        break;
      case 'listKeys':
        return { keys: accounts.listKeys(op.email) };
      case 'revokeKey':
        result = { key: accounts.revokeKey(op.id) };
        break;
    }
    await store.commit();
    return result;
  } finally {
    await store.close();
  }
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
    if (!response.ok) throw new AdminError(response.status === 404 ? 'not_found' : 'invalid', json.error?.message ?? `HTTP ${response.status}`);
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
  }
}
