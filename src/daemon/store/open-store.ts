// Picks the daemon's store from its options: PostgreSQL when a postgres:// URL is given (--store
// or PROVENANCE_DATABASE_URL), else the embedded file store in the data dir. Everything above the
// store sees only the Store interface, whichever this returns.
import { openStore, type FileStoreOptions } from './file-store.js';
import { PgStore, type PgStoreOptions } from './pg-store.js';
import type { Store } from './store.js';

export const DATABASE_URL_ENV = 'PROVENANCE_DATABASE_URL';
/** --store's own variable (PROVENANCE_ + the flag's name), read before the older DATABASE_URL one. */
export const STORE_ENV = 'PROVENANCE_STORE';

export interface StoreChoice {
  dataDir: string;
  /** A postgres:// URL: the shared store; absent: the embedded store in the data dir. */
  url?: string;
  file?: FileStoreOptions;
  pg?: PgStoreOptions;
}

/**
 * --store, else $PROVENANCE_STORE, else $PROVENANCE_DATABASE_URL, else none (the embedded store).
 * The same order for `daemon start`, `daemon migrate`, `daemon store copy` and the admin commands:
 * an operator who set PROVENANCE_STORE for the daemon reaches the same database with each.
 */
export function resolveStoreUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return flag || env[STORE_ENV] || env[DATABASE_URL_ENV] || undefined;
}

export function openConfiguredStore(choice: StoreChoice): Promise<Store> {
  return choice.url ? PgStore.open(choice.url, choice.pg) : openStore(choice.dataDir, choice.file);
}
