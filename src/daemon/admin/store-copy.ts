// `provenance daemon store copy`: moves an embedded store into an empty PostgreSQL database.
// Accounts, keys (their SHA-256 only, so every key keeps working), usage counters and live
// uploads (their bytes too) go over in one transaction: all of it, or nothing. Sessions and
// sign-in tokens are not copied (users sign in again), nor expired uploads.
import { AdminError } from '../accounts/accounts.js';
import { openStore } from '../store/file-store.js';
import { tryLock } from '../store/lock.js';
import { checkPostgresUrl, PgStore } from '../store/pg-store.js';

export interface CopyOutcome {
  accounts: number;
  keys: number;
  usage: number;
  uploads: number;
  to: string;
}

export async function copyStore(fromDataDir: string, toUrl: string, nowMs = Date.now()): Promise<CopyOutcome> {
  // The target first: a malformed URL, a database that does not answer or one of a newer schema
  // is refused before the source is touched (taking its lock writes the data dir, and opening
  // it folds its journal into the snapshot).
  checkPostgresUrl(toUrl, '--to');
  const target = await PgStore.open(toUrl);
  try {
    // The source must hold still: no daemon may write it while it is read.
    const attempt = await tryLock(fromDataDir, 'admin');
    if (!('lock' in attempt)) {
      throw new AdminError(
        'invalid',
        attempt.heldBy.role === 'daemon'
          ? `a daemon (pid ${attempt.heldBy.pid}) runs on ${fromDataDir}; stop it first with \`provenance daemon stop --data-dir ${fromDataDir}\``
          : `an admin command (pid ${attempt.heldBy.pid}) holds ${fromDataDir}; try again in a moment`,
      );
    }
    try {
      const source = await openStore(fromDataDir);
      try {
        const snapshot = await source.exportState();
        snapshot.uploads = snapshot.uploads.filter((u) => Date.parse(u.expires_at) > nowMs);
        const { uploads } = await target.importAll(snapshot, (u) => source.readUploadBytes(u));
        return { accounts: snapshot.accounts.length, keys: snapshot.keys.length, usage: snapshot.usage.length, uploads, to: target.location };
      } finally {
        await source.close();
      }
    } finally {
      attempt.lock.release();
    }
  } finally {
    await target.close();
  }
}
