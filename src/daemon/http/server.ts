// The daemon process around the app: the data-dir lock, the admin token file, listening, the
// pid/state files that `daemon stop|status` and the admin commands read, and a graceful stop
// (issue 27; docs/DAEMON.md, "Health, readiness and stopping"): /readyz goes 503 at once, the
// listener stays open for the drain delay so a load balancer notices, then stops accepting;
// in-flight requests finish within the shutdown grace, the rest are cut; the store is flushed
// and closed.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, loggerOptions, type AppOptions } from './app.js';
import type { LogLevel } from './log-levels.js';
import { DATA_FILES, tightenDataDir } from '../store/data-dir.js';
import { formatUrl, readState, writeStoreMarker, type DaemonState } from '../store/daemon-state.js';
import { sha256Hex } from '../accounts/key-format.js';
import { sleep, tryLock, type HeldLock, type LockInfo } from '../store/lock.js';
import { startMetricsServer, type MetricsListen, type MetricsServer } from './metrics-listen.js';

export interface StartOptions extends Omit<AppOptions, 'dataDir' | 'adminTokenSha256' | 'logger'> {
  dataDir: string;
  host?: string;
  port?: number;
  /** Where structured logs go (default: none). */
  logStream?: NodeJS.WritableStream;
  /** `--log-level` (default info). */
  logLevel?: LogLevel;
  /** How long a stop waits for in-flight requests, once it stops accepting, before cutting them. */
  shutdownGraceMs?: number;
  /**
   * How long a stop keeps accepting connections after /readyz went 503, so that a load balancer
   * probing /readyz sees it and sends no more (default 5 s; 0: none). Waited only when /readyz
   * was asked since the start: with no one watching readiness the wait would tell no one.
   */
  drainDelayMs?: number;
  /** `--metrics-listen`: GET /metrics without a token on an address of its own (metrics-listen.ts). */
  metricsListen?: MetricsListen;
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
export const DEFAULT_DRAIN_DELAY_MS = 5_000;

export interface RunningDaemon {
  url: string;
  app: FastifyInstance;
  /** The --metrics-listen address's /metrics URL, when there is one. */
  metricsUrl?: string;
  /**
   * Drains and stops (once; later calls get the same promise). `hurry` (a second SIGTERM or
   * SIGINT): skip what is left of the drain delay and cut every connection now, in-flight
   * requests included; the store is still flushed and closed.
   */
  stop(options?: { hurry?: boolean }): Promise<void>;
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
  const {
    dataDir,
    host = '127.0.0.1',
    port = 8787,
    logStream,
    logLevel,
    shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS,
    drainDelayMs = DEFAULT_DRAIN_DELAY_MS,
    metricsListen,
    ...appOptions
  } = options;
  const lock = await takeLock(dataDir);
  const files = Object.fromEntries(Object.entries(DATA_FILES).map(([k, v]) => [k, join(dataDir, v)])) as Record<
    keyof typeof DATA_FILES,
    string
  >;
  let app: FastifyInstance | undefined;
  let metricsServer: MetricsServer | undefined;
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
      logger: logStream ? loggerOptions(logStream, logLevel) : false,
    });
    await app.listen({ host, port });
    if (metricsListen) {
      if (!app.metrics) throw new Error('--metrics-listen needs the metrics, which this daemon was built without');
      metricsServer = await startMetricsServer(app.metrics, metricsListen);
    }
    const address = app.server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const url = formatUrl(host, boundPort);
    const state: DaemonState = {
      pid: process.pid,
      url,
      host,
      port: boundPort,
      data_dir: dataDir,
      started_at: new Date().toISOString(),
      drain_delay_ms: drainDelayMs,
      shutdown_grace_ms: shutdownGraceMs,
    };
    writeFileSync(files.state, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(files.pid, `${process.pid}\n`, { mode: 0o600 });
    writeStoreMarker(dataDir, appOptions.storeUrl ? app.services.store.location : undefined);

    let stopping: Promise<void> | undefined;
    let hurried = false;
    // What a hurry does at the current step: end the drain delay, or cut the connections.
    let onHurry = () => {};
    const running = app;
    const { drain } = running.services;
    let cutter: NodeJS.Timeout | undefined;
    // Cuts every connection, and again every 100 ms until the close ends: between fastify's
    // close() and its server.close() (after the preClose hooks) a connection could still come.
    const cutAll = () => {
      running.server.closeAllConnections();
      cutter ??= setInterval(() => running.server.closeAllConnections(), 100);
      cutter.unref();
    };
    const metricsOut = metricsServer;
    return {
      url,
      app: running,
      metricsUrl: metricsOut?.url,
      stop(stopOptions = {}) {
        if (stopOptions.hurry && !hurried) {
          hurried = true;
          onHurry();
        }
        stopping ??= (async () => {
          drain.begin();
          const delay = drain.watched && !hurried ? drainDelayMs : 0;
          running.log.info({ drainDelayMs: delay, shutdownGraceMs }, 'stopping: /readyz answers 503; draining');
          if (delay > 0) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, delay);
              onHurry = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
          // close() stops accepting (and closes idle keep-alive connections) and waits for
          // in-flight requests, whose responses say Connection: close; past the grace period,
          // or at once when hurried, their connections are cut so a stuck client cannot hold
          // the daemon up. Then the pool and the store close (app.ts onClose).
          const closed = running.close();
          onHurry = cutAll;
          const grace = setTimeout(cutAll, hurried ? 0 : shutdownGraceMs);
          try {
            await closed;
          } finally {
            clearTimeout(grace);
            clearInterval(cutter);
            // Stopped: a hurry from now on has nothing left to cut.
            onHurry = () => {};
          }
          // The metrics address kept answering through the drain (a scrape then shows it).
          await metricsOut?.close();
          for (const file of [files.state, files.pid, files.adminToken]) rmSync(file, { force: true });
          lock.release();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await metricsServer?.close().catch(() => {});
    await app?.close().catch(() => {});
    rmSync(files.adminToken, { force: true });
    lock.release();
    throw err;
  }
}
