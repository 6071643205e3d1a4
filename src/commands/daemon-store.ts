// `provenance daemon migrate` and `provenance daemon store copy`: the PostgreSQL store's schema,
// and moving an embedded store into it. Store problems (bad URL, refused connection, a schema
// newer than this provenance) are one line and exit 2, with nothing written.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AdminError } from '../daemon/accounts/accounts.js';
import { copyStore } from '../daemon/admin/store-copy.js';
import { STORE_FILE } from '../daemon/store/file-store.js';
import { resolveStoreUrl } from '../daemon/store/open-store.js';
import { PgStore } from '../daemon/store/pg-store.js';
import { StoreConflictError } from '../daemon/store/store.js';
import { isStoreUsageError } from '../daemon/store/store-errors.js';
import { DAEMON_EXIT } from './daemon.js';
import type { CommandIO } from './io.js';

function fail(io: CommandIO, err: unknown): number {
  io.stderr.write(`provenance: ${(err as Error).message}\n`);
  const usage = isStoreUsageError(err) || err instanceof StoreConflictError || (err instanceof AdminError && err.code === 'invalid');
  return usage ? DAEMON_EXIT.usage : DAEMON_EXIT.failed;
}

export async function runDaemonMigrate(options: { store?: string }, io: CommandIO): Promise<number> {
  const url = resolveStoreUrl(options.store, io.env);
  if (!url) {
    io.stderr.write('provenance: daemon migrate needs --store postgres://USER@HOST:PORT/DATABASE (or $PROVENANCE_STORE, or $PROVENANCE_DATABASE_URL)\n');
    return DAEMON_EXIT.usage;
  }
  try {
    const store = await PgStore.open(url);
    const { from, to, applied } = store.migration;
    await store.close();
    io.stdout.write(
      applied.length
        ? `migrated ${store.location} from schema version ${from} to ${to} (applied ${applied.join(', ')})\n`
        : `${store.location} is at schema version ${to}; nothing to do\n`,
    );
    return DAEMON_EXIT.ok;
  } catch (err) {
    return fail(io, err);
  }
}

export async function runStoreCopy(options: { from: string; to: string }, io: CommandIO): Promise<number> {
  const from = resolve(options.from);
  if (!existsSync(join(from, STORE_FILE))) {
    io.stderr.write(`provenance: --from ${from} holds no embedded store (${STORE_FILE})\n`);
    return DAEMON_EXIT.usage;
  }
  try {
    const done = await copyStore(from, options.to);
    io.stdout.write(`copied ${done.accounts} accounts, ${done.keys} keys, ${done.usage} usage counters and ${done.uploads} live uploads from ${from} to ${done.to}\n`);
    return DAEMON_EXIT.ok;
  } catch (err) {
    return fail(io, err);
  }
}
