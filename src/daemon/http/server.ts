// The daemon process around the app: the data-dir lock, the admin token file, listening, the
// pid/state files that `daemon stop|status` and the admin commands read, and a graceful stop
// (stop accepting, let in-flight requests finish within a bound, flush the store).
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, loggerOptions, type AppOptions } from './app.js';
import { DATA_FILES, tightenDataDir } from '../store/data-dir.js';
import { formatUrl, readState, writeStoreMarker, type DaemonState } from '../store/daemon-state.js';
import { sha256Hex } from '../accounts/key-format.js';
import { sleep, tryLock, type HeldLock, type LockInfo } from '../store/lock.js';

export interface StartOptions extends Omit<AppOptions, 'dataDir' | 'adminTokenSha256' | 'logger'> {
  dataDir: string;
  host?: string;
  port?: number;
  /** Where structured logs go (default: none). */
  logStream?: NodeJS.WritableStream;
  /** How long a stop waits for in-flight requests before closing their connections. */
  shutdownGraceMs?: number;
}

export interface RunningDaemon {
  url: string;
  app: FastifyInstance;
  stop(): Promise<void>;
}

export class DaemonLockedError extends Error {
  constructor(
    readonly holder: LockInfo,
    readonly state?: DaemonState,
  ) {
    super(
      holder.role === 'daemon'
        ? `A provenance daemon (pid ${holder.pid}${state ? `, ${state.url}` : ''}) already uses this data dir; stop it first with \`provenance daemon stop\`.`
        : `An admin command (pid ${holder.pid}) holds this data dir; try again in a moment.`,
    );
  }
}

async function takeLock(dataDir: string): Promise<HeldLock> {
  // An admin command holds the lock only for the moment of its write: wait for it briefly.
  for (let waited = 0; ; waited += 100) {
    const attempt = await tryLock(dataDir, 'daemon');
    if ('lock' in attempt) return attempt.lock;
    if (attempt.heldBy.role === 'daemon' || waited >= 5000) throw new DaemonLockedError(attempt.heldBy, readState(dataDir));
    await sleep(100);
  }
}

export async function startDaemon(options: StartOptions): Promise<RunningDaemon> {
  const { dataDir, host = '127.0.0.1', port = 8787, logStream, shutdownGraceMs = 10_000, ...appOptions } = options;
  const lock = await takeLock(dataDir);
  const files = Object.fromEntries(Object.entries(DATA_FILES).map(([k, v]) => [k, join(dataDir, v)])) as Record<
    keyof typeof DATA_FILES,
    string
  >;
  let app: FastifyInstance | undefined;
  try {
    // An existing data dir made with looser modes (an older version, by hand, a backup): made
    // as private as a new one, before anything is written to it (docs/SECURITY.md).
    tightenDataDir(dataDir);
    // A fresh token per start, in a file only this user can read; the daemon keeps its hash.
    const token = randomBytes(32).toString('base64url');
    rmSync(files.adminToken, { force: true });
    writeFileSync(files.adminToken, `${token}\n`, { mode: 0o600, flag: 'wx' });
    app = await buildApp({
      ...appOptions,
      dataDir,
      adminTokenSha256: sha256Hex(token),
      logger: logStream ? loggerOptions(logStream) : false,
    });
    await app.listen({ host, port });
    const address = app.server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const url = formatUrl(host, boundPort);
    const state: DaemonState = { pid: process.pid, url, host, port: boundPort, data_dir: dataDir, started_at: new Date().toISOString() };
    writeFileSync(files.state, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(files.pid, `${process.pid}\n`, { mode: 0o600 });
    writeStoreMarker(dataDir, appOptions.storeUrl ? app.services.store.location : undefined);

    let stopping: Promise<void> | undefined;
    const running = app;
    return {
      url,
      app: running,
      stop() {
        stopping ??= (async () => {
          // close() stops accepting and waits for in-flight requests; past the grace period
          // their connections are cut so a stuck client cannot hold the daemon up.
          const grace = setTimeout(() => running.server.closeAllConnections(), shutdownGraceMs);
          grace.unref();
          await running.close();
          clearTimeout(grace);
          for (const file of [files.state, files.pid, files.adminToken]) rmSync(file, { force: true });
          lock.release();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await app?.close().catch(() => {});
    rmSync(files.adminToken, { force: true });
    lock.release();
    throw err;
  }
}
