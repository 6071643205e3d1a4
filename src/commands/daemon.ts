// `provenance daemon start|stop|status`. start runs the /v1 daemon in the foreground (or, with
// --detach, in a background process whose logs go to daemon.log in the data dir) and prints
// `listening on http://HOST:PORT`; SIGTERM/SIGINT stop it gracefully with exit code 0.
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createServer, isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { DATA_FILES, resolveDataDir } from '../daemon/store/data-dir.js';
import { isAlive, readLock, sleep } from '../daemon/store/lock.js';
import { checkSmtpUrl } from '../daemon/web/mailer.js';
import { DaemonLockedError, startDaemon } from '../daemon/http/server.js';
import { parseTrustProxy, trustProxyArgument, type TrustProxy } from '../daemon/http/trust-proxy.js';
import { readState } from '../daemon/store/daemon-state.js';
import { parseMediaMemory, parseMediaWait } from '../daemon/media/media-budget.js';
import { parseDetectTimeout } from '../daemon/media/detect-timeout-flag.js';
import { parseMetricsListen, type MetricsListen } from '../daemon/http/metrics-listen.js';
import { parseUploadLimitFlags, type UploadLimitFlags } from './daemon-upload-flags.js';
import type { UploadLimits } from '../daemon/media/uploads.js';
import { dataDirProblem, isMailAddress, startProblem } from './daemon-errors.js';
import { DATABASE_URL_ENV, resolveStoreUrl } from '../daemon/store/open-store.js';
import { checkPostgresUrl } from '../daemon/store/pg-store.js';
import { isStoreUsageError } from '../daemon/store/store-errors.js';
import { parseCatalogue } from '../engine/checks.js';
import type { CatalogueName, TrustOptions } from '../types.js';
import type { CommandIO } from './io.js';
import { effectiveConfiguration } from './daemon-env.js';
import { prettyLogStream } from '../daemon/http/log-pretty.js';
import type { LogFormat, LogLevel } from '../daemon/http/log-levels.js';

export const DAEMON_EXIT = { ok: 0, failed: 1, usage: 2, notRunning: 3 } as const;

export interface StartCommandOptions extends UploadLimitFlags {
  host: string;
  port: string;
  dataDir?: string;
  /** `--store postgres://...` (or $PROVENANCE_DATABASE_URL): the shared PostgreSQL store. */
  store?: string;
  allowPrivateUrls: boolean;
  detach: boolean;
  smtpUrl?: string;
  mailFrom?: string;
  publicUrl?: string;
  /** `--trust-proxy [proxies]`: true when bare (one proxy), else a hop count or addresses/CIDRs. */
  trustProxy?: boolean | string;
  /** `--trust-anchors FILE.pem`: C2PA trust anchors instead of those kept with `provenance trust`. */
  trustAnchors?: string;
  /** `--test-mode`: the test clock and forced answers. */
  testMode?: boolean;
  /** `--fixtures FILE.json`: accounts and keys applied at start. */
  fixtures?: string;
  /** `--catalogue full|hosted` (default full). */
  catalogue?: string;
  /** `--media-memory SIZE`, `--media-wait SECONDS`: the media budget (daemon/media/media-budget.ts). */
  mediaMemory?: string;
  mediaWait?: string;
  /** `--detect-timeout SECONDS`: how long one file's checks may run (daemon/media/detect-timeout-flag.ts). */
  detectTimeout?: string;
  /** `--drain-delay SECONDS`, `--shutdown-grace SECONDS`: the stop's timings (http/server.ts). */
  drainDelay?: string;
  shutdownGrace?: string;
  /** `--log-level` (default info) and `--log-format json|pretty` (default json). */
  logLevel?: LogLevel;
  logFormat?: LogFormat;
  /** `--metrics-listen HOST:PORT`: GET /metrics without a token there (daemon/http/metrics-listen.ts). */
  metricsListen?: string;
}

/** Set in a --detach child: its console is the log file, so it prints where mails went, not links. */
const DETACHED_ENV = 'PROVENANCE_DAEMON_DETACHED';

/** A stop timing flag in milliseconds: seconds from 0 to an hour, fractions allowed. */
export function parseStopSeconds(flag: string, text: string): number {
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(seconds >= 0 && seconds <= 3600)) throw new RangeError(`${flag} must be a number of seconds from 0 to 3600, e.g. 5, not "${text}"`);
  return Math.round(seconds * 1000);
}

function parsePort(text: string): number | undefined {
  const n = Number(text);
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : undefined;
}

export async function runDaemonStart(options: StartCommandOptions, io: CommandIO): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const port = parsePort(options.port);
  if (port === undefined) {
    io.stderr.write(`provenance: --port must be a number from 0 to 65535, not "${options.port}"\n`);
    return DAEMON_EXIT.usage;
  }
  // A dotted number that is no IPv4 address (999.1.1.1) is a typo, not a host name to look up.
  if (/^[\d.]+$/.test(options.host) && !isIP(options.host)) {
    io.stderr.write(`provenance: --host ${options.host} is not an IPv4 address (each of its four numbers is 0 to 255); e.g. 127.0.0.1 (this machine only, the default) or 0.0.0.0 (every network interface).\n`);
    return DAEMON_EXIT.usage;
  }
  const smtpUrl = options.smtpUrl ?? (io.env.PROVENANCE_SMTP_URL || undefined);
  let trustProxy: TrustProxy | undefined;
  try {
    trustProxy = options.trustProxy === undefined || options.trustProxy === false ? undefined : parseTrustProxy(options.trustProxy);
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return DAEMON_EXIT.usage;
  }
  const problem =
    trustProxy !== undefined && !options.publicUrl
      ? '--trust-proxy needs --public-url: the address users reach through the proxy, used in sign-in links'
      : options.mailFrom !== undefined && !isMailAddress(options.mailFrom)
        ? `--mail-from "${options.mailFrom}" is not an e-mail address: give one such as noreply@example.com or "Provenance <noreply@example.com>"`
        : mailOptionProblem(smtpUrl, options.publicUrl);
  if (problem) {
    io.stderr.write(`provenance: ${problem}\n`);
    return DAEMON_EXIT.usage;
  }
  // The journal size past which the store folds it into its snapshot (tests make it small to
  // exercise compaction under load); the default suits every store size.
  const compactText = io.env.PROVENANCE_STORE_COMPACT_BYTES;
  const compactBytes = compactText ? Number(compactText) : undefined;
  if (compactBytes !== undefined && !(Number.isSafeInteger(compactBytes) && compactBytes > 0)) {
    io.stderr.write(`provenance: PROVENANCE_STORE_COMPACT_BYTES must be a whole number of bytes above 0, not "${compactText}"\n`);
    return DAEMON_EXIT.usage;
  }
  // Fixtures are checked whole before anything starts: every problem with its JSON path.
  let fixtures: unknown;
  if (options.fixtures) {
    const { readJsonFile } = await import('./json-file.js');
    const { checkFixtures, FixtureError } = await import('../daemon/testing/fixtures.js');
    const doc = readJsonFile(options.fixtures, 'fixture file', io);
    if (!doc) return DAEMON_EXIT.usage;
    try {
      checkFixtures(doc.value);
    } catch (err) {
      if (!(err instanceof FixtureError)) throw err;
      io.stderr.write(`provenance: --fixtures ${options.fixtures}: ${err.message}\n`);
      return DAEMON_EXIT.usage;
    }
    fixtures = doc.value;
  }
  let media: { memoryBytes?: number; waitMs?: number };
  let detectTimeoutMs: number | undefined;
  try {
    media = {
      memoryBytes: options.mediaMemory === undefined ? undefined : parseMediaMemory(options.mediaMemory),
      waitMs: options.mediaWait === undefined ? undefined : parseMediaWait(options.mediaWait),
    };
    detectTimeoutMs = options.detectTimeout === undefined ? undefined : parseDetectTimeout(options.detectTimeout);
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return DAEMON_EXIT.usage;
  }
  let stopTimings: { drainDelayMs?: number; shutdownGraceMs?: number };
  try {
    stopTimings = {
      drainDelayMs: options.drainDelay === undefined ? undefined : parseStopSeconds('--drain-delay', options.drainDelay),
      shutdownGraceMs: options.shutdownGrace === undefined ? undefined : parseStopSeconds('--shutdown-grace', options.shutdownGrace),
    };
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return DAEMON_EXIT.usage;
  }
  let metricsListen: MetricsListen | undefined;
  try {
    if (options.metricsListen !== undefined) metricsListen = parseMetricsListen(options.metricsListen);
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return DAEMON_EXIT.usage;
  }
  let uploadLimits: UploadLimits;
  try {
    uploadLimits = parseUploadLimitFlags(options);
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return DAEMON_EXIT.usage;
  }
  let catalogue: CatalogueName = 'full';
  try {
    if (options.catalogue !== undefined) catalogue = parseCatalogue(options.catalogue);
  } catch (err) {
    io.stderr.write(`provenance: --catalogue: ${(err as Error).message}\n`);
    return DAEMON_EXIT.usage;
  }
  // The C2PA trust anchors (the C2PA lists, updated or bundled, with those kept with `provenance
  // trust`; or --trust-anchors alone), as `provenance check` uses them, so that a daemon result
  // equals the CLI's for the same bytes. None in test mode or with the hosted catalogue: there
  // signature_verified is always false, as the hosted service answers (CONTRACT), and a
  // --trust-anchors that could change nothing is refused rather than ignored. Read before
  // anything starts: a bad file is a usage error, not a daemon that half starts.
  const noAnchors = options.testMode ? '--test-mode' : catalogue === 'hosted' ? '--catalogue hosted' : undefined;
  if (noAnchors && options.trustAnchors) {
    io.stderr.write(`provenance: --trust-anchors has no effect with ${noAnchors}: signature_verified is always false there, as the hosted service answers.\n`);
    return DAEMON_EXIT.usage;
  }
  let trust: TrustOptions = {};
  if (!noAnchors) {
    const { loadRunTrust, TrustAnchorError } = await import('../config/trust-store.js');
    const { staleListWarning } = await import('../config/trust-lists.js');
    const { packageDataFile } = await import('../media/package-data.js');
    try {
      trust = loadRunTrust({ file: options.trustAnchors, env: io.env, bundledDir: packageDataFile('c2pa') });
    } catch (err) {
      if (!(err instanceof TrustAnchorError)) throw err;
      io.stderr.write(`provenance: ${options.trustAnchors ? '--trust-anchors: ' : ''}${err.message}\n`);
      return DAEMON_EXIT.usage;
    }
    const stale = trust.trustLists && staleListWarning(trust.trustLists, new Date());
    if (stale) io.stderr.write(`provenance: ${stale}\n`);
  }
  const storeUrl = resolveStoreUrl(options.store, io.env);
  if (storeUrl) {
    try {
      checkPostgresUrl(storeUrl);
    } catch (err) {
      io.stderr.write(`provenance: ${(err as Error).message}\n`);
      return DAEMON_EXIT.usage;
    }
  }
  // A port already taken is found before the data dir is made or fixtures are applied: a start
  // that fails leaves nothing behind (the listen itself comes after the store opens).
  // (A daemon already on this data dir is left to the start below, which names it.)
  const holder = readLock(dataDir);
  const held = holder !== undefined && isAlive(holder.pid);
  const taken = port === 0 || held ? undefined : await listenProblem(options.host, port);
  if (taken) {
    io.stderr.write(`provenance: ${startProblem(taken, { host: options.host, port, dataDir }) ?? `could not start the daemon: ${taken.message}`}\n`);
    return DAEMON_EXIT.failed;
  }
  if (options.detach) return startDetached({ ...options, trustProxy: trustProxy === undefined ? undefined : trustProxyArgument(trustProxy), smtpUrl, store: storeUrl }, dataDir, io);

  let daemon;
  try {
    daemon = await startDaemon({
      trust,
      dataDir,
      storeUrl,
      host: options.host,
      port,
      allowPrivateUrls: options.allowPrivateUrls,
      // Logs go to stderr (daemon.log with --detach): JSON lines, or one readable line each.
      logStream: options.logFormat === 'pretty' ? prettyLogStream(io.stderr) : io.stderr,
      logLevel: options.logLevel,
      trustProxy,
      testMode: options.testMode ?? false,
      fixtures,
      catalogue,
      media,
      detectTimeoutMs,
      uploadLimits,
      metricsListen,
      ...stopTimings,
      store: compactBytes ? { compactBytes } : undefined,
      web: {
        smtpUrl,
        mailFrom: options.mailFrom,
        publicUrl: options.publicUrl,
        console: io.stderr,
        // The link (a live credential) and its address only on a person's terminal: a console
        // that is not one is a log (a detached daemon's daemon.log; the journal under systemd).
        linkOnConsole: io.env[DETACHED_ENV] !== '1' && (io.stderr as { isTTY?: boolean }).isTTY === true,
      },
    });
  } catch (err) {
    const { FixtureError } = await import('../daemon/testing/fixtures.js');
    if (err instanceof FixtureError) {
      io.stderr.write(`provenance: --fixtures ${options.fixtures}: ${err.message}\n`);
      return DAEMON_EXIT.usage;
    }
    // A bad database (refused, unknown, newer schema) is the operator's to fix: one line, exit 2.
    if (isStoreUsageError(err)) {
      io.stderr.write(`provenance: ${(err as Error).message}\n`);
      return DAEMON_EXIT.usage;
    }
    const message =
      err instanceof DaemonLockedError
        ? err.message
        : (startProblem(err, { host: options.host, port, dataDir }) ?? `could not start the daemon: ${(err as Error).message}`);
    io.stderr.write(`provenance: ${message}\n`);
    return DAEMON_EXIT.failed;
  }
  // What this start runs with, once, whichever flag or variable set it (passwords masked).
  daemon.app.log.info({ config: effectiveConfiguration(options, { dataDir, port, store: storeUrl, smtpUrl }) }, 'configuration');
  io.stdout.write(`listening on ${daemon.url}\n`);
  if (daemon.metricsUrl) io.stdout.write(`metrics on ${daemon.metricsUrl} (no token: keep it on loopback or a private network)\n`);
  if (options.testMode) io.stdout.write('test mode: `provenance daemon clock` and the Provenance-Test-Response header are on\n');
  const restored = daemon.app.services.testing.restored;
  if (restored) {
    io.stdout.write(
      restored.now === restored.saved
        ? `test clock: frozen at ${restored.now} (restored from the data dir)\n`
        : `test clock: frozen at ${restored.now}, the latest event the state records (saved at ${restored.saved}, which is before it)\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  // The first signal drains (docs/DAEMON.md, "Health, readiness and stopping"); a second one,
  // while that runs (an impatient Ctrl-C, a supervisor's repeat), hurries it: no more drain
  // delay, connections cut, the store still flushed. Kept listening until the end, so that a
  // third signal cannot kill the process with its store half written.
  const hurry = () => void daemon.stop({ hurry: true });
  process.on('SIGTERM', hurry);
  process.on('SIGINT', hurry);
  try {
    await daemon.stop();
  } finally {
    process.off('SIGTERM', hurry);
    process.off('SIGINT', hurry);
  }
  // Stopped: the store is flushed and closed, the lock released. Requests whose connections were
  // cut (past the grace, or hurried) may still hold a handle, such as a download that runs to its
  // 15 s limit; no client can get their answer any more, so the process does not wait for them.
  // (Unref'd: a process with nothing left running exits at once, as before.)
  setTimeout(() => process.exit(DAEMON_EXIT.ok), 1_000).unref();
  return DAEMON_EXIT.ok;
}

/** The error a listen on host:port would meet now (EADDRINUSE, EACCES, ...), if any. */
function listenProblem(host: string, port: number): Promise<Error | undefined> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (err) => done(err));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done(undefined)));
  });
}

/** What is wrong with --smtp-url or --public-url, if anything (checked before anything starts). */
function mailOptionProblem(smtpUrl: string | undefined, publicUrl: string | undefined): string | undefined {
  if (smtpUrl) {
    try {
      checkSmtpUrl(smtpUrl);
    } catch (err) {
      return (err as Error).message;
    }
  }
  if (publicUrl) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(publicUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) return '--public-url must be an http:// or https:// URL, e.g. https://provenance.example.com';
  }
  return undefined;
}

/** Re-runs `daemon start` without --detach in a new session, then waits until it listens. */
async function startDetached(options: StartCommandOptions, dataDir: string, io: CommandIO): Promise<number> {
  const { mkdirSync } = await import('node:fs');
  const logFile = join(dataDir, DATA_FILES.log);
  let log: number;
  let logStart: number;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    log = openSync(logFile, 'a', 0o600);
    logStart = fstatSync(log).size;
  } catch (err) {
    io.stderr.write(`provenance: ${dataDirProblem(err, dataDir) ?? (err as Error).message}\n`);
    return DAEMON_EXIT.failed;
  }
  const args = [process.argv[1]!, 'daemon', 'start', '--host', options.host, '--port', options.port, '--data-dir', dataDir];
  if (options.allowPrivateUrls) args.push('--allow-private-urls');
  if (options.mailFrom) args.push('--mail-from', options.mailFrom);
  if (options.publicUrl) args.push('--public-url', options.publicUrl);
  if (typeof options.trustProxy === 'string') args.push('--trust-proxy', options.trustProxy);
  if (options.trustAnchors) args.push('--trust-anchors', resolve(options.trustAnchors));
  if (options.testMode) args.push('--test-mode');
  if (options.catalogue !== undefined) args.push('--catalogue', options.catalogue);
  if (options.mediaMemory !== undefined) args.push('--media-memory', options.mediaMemory);
  if (options.mediaWait !== undefined) args.push('--media-wait', options.mediaWait);
  if (options.detectTimeout !== undefined) args.push('--detect-timeout', options.detectTimeout);
  if (options.maxUploadsPerAccount !== undefined) args.push('--max-uploads-per-account', options.maxUploadsPerAccount);
  if (options.maxUploadBytesPerAccount !== undefined) args.push('--max-upload-bytes-per-account', options.maxUploadBytesPerAccount);
  if (options.storageFloor !== undefined) args.push('--storage-floor', options.storageFloor);
  if (options.drainDelay !== undefined) args.push('--drain-delay', options.drainDelay);
  if (options.shutdownGrace !== undefined) args.push('--shutdown-grace', options.shutdownGrace);
  if (options.fixtures) args.push('--fixtures', resolve(options.fixtures));
  if (options.logLevel !== undefined) args.push('--log-level', options.logLevel);
  if (options.logFormat !== undefined) args.push('--log-format', options.logFormat);
  if (options.metricsListen !== undefined) args.push('--metrics-listen', options.metricsListen);
  // The SMTP and database URLs may hold passwords: through the environment, not the command line (ps).
  const env = {
    ...process.env,
    ...io.env,
    [DETACHED_ENV]: '1',
    // The child runs in the foreground of its own session, whatever PROVENANCE_DETACH said.
    PROVENANCE_DETACH: '0',
    ...(options.smtpUrl ? { PROVENANCE_SMTP_URL: options.smtpUrl } : {}),
    // PROVENANCE_STORE too: the child reads it before PROVENANCE_DATABASE_URL (commands/daemon-env.ts).
    ...(options.store ? { [DATABASE_URL_ENV]: options.store, PROVENANCE_STORE: options.store } : {}),
  };
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log], env });
  closeSync(log);
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? 1;
  });
  for (let waited = 0; waited < 20_000; waited += 50) {
    const state = readState(dataDir);
    if (state && state.pid === child.pid) {
      child.unref();
      io.stdout.write(`listening on ${state.url}\n`);
      return DAEMON_EXIT.ok;
    }
    if (exited !== null) {
      // The child said why on its console, which is the log: repeat that here, where the user is.
      const reasons = failureLines(logFile, logStart);
      io.stderr.write(`${reasons}provenance: the daemon exited (code ${exited}); see ${logFile}\n`);
      return DAEMON_EXIT.failed;
    }
    await sleep(50);
  }
  child.unref();
  io.stderr.write(`provenance: the daemon did not start listening within 20 s; see ${logFile}\n`);
  return DAEMON_EXIT.failed;
}

/**
 * Why a detached daemon stopped, from what it wrote to its log from `offset` on: its
 * `provenance: ...` lines, else (a crash) the last line that is not one of its JSON log lines.
 */
function failureLines(logFile: string, offset: number): string {
  let lines: string[];
  try {
    lines = readFileSync(logFile).subarray(offset).toString('utf8').split('\n');
  } catch {
    return '';
  }
  const said = lines.filter((line) => line.startsWith('provenance: '));
  if (said.length) return said.map((line) => `${line}\n`).join('');
  const last = lines.filter((line) => line.trim() && !line.startsWith('{')).at(-1);
  return last ? `provenance: ${last.trim()}\n` : '';
}

export async function runDaemonStatus(options: { dataDir?: string; json: boolean }, io: CommandIO): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const lock = readLock(dataDir);
  const state = readState(dataDir);
  const running = Boolean(lock && lock.role === 'daemon' && isAlive(lock.pid) && state && state.pid === lock.pid);
  if (options.json) {
    io.stdout.write(`${JSON.stringify(running ? { running, ...state } : { running, data_dir: dataDir })}\n`);
  } else {
    io.stdout.write(running ? `running (pid ${state!.pid}) on ${state!.url}, data dir ${dataDir}\n` : `not running (data dir ${dataDir})\n`);
  }
  return running ? DAEMON_EXIT.ok : DAEMON_EXIT.notRunning;
}

export async function runDaemonStop(options: { dataDir?: string }, io: CommandIO): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const lock = readLock(dataDir);
  if (!lock || lock.role !== 'daemon' || !isAlive(lock.pid)) {
    io.stdout.write(`no daemon is running (data dir ${dataDir})\n`);
    return DAEMON_EXIT.ok;
  }
  process.kill(lock.pid, 'SIGTERM');
  // The daemon drains (its drain delay, when /readyz was asked), then lets in-flight requests
  // finish within its shutdown grace before it cuts them: both are in its state file (an older
  // daemon's is not: its 10 s grace). Five seconds more to flush and close the store.
  const state = readState(dataDir);
  const boundMs = (state?.pid === lock.pid ? (state.drain_delay_ms ?? 0) + (state.shutdown_grace_ms ?? 10_000) : 10_000) + 5_000;
  for (let waited = 0; waited < boundMs; waited += 50) {
    if (!isAlive(lock.pid)) {
      io.stdout.write(`stopped (pid ${lock.pid})\n`);
      return DAEMON_EXIT.ok;
    }
    await sleep(50);
  }
  io.stderr.write(`provenance: the daemon (pid ${lock.pid}) did not stop within ${Math.round(boundMs / 1000)} s\n`);
  return DAEMON_EXIT.failed;
}
