// `provenance daemon start|stop|status`. start runs the /v1 daemon in the foreground (or, with
// --detach, in a background process whose logs go to daemon.log in the data dir) and prints
// `listening on http://HOST:PORT`; SIGTERM/SIGINT stop it gracefully with exit code 0.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATA_FILES, resolveDataDir } from '../daemon/data-dir.js';
import { isAlive, readLock, sleep } from '../daemon/lock.js';
import { checkSmtpUrl } from '../daemon/mailer.js';
import { DaemonLockedError, readState, startDaemon } from '../daemon/server.js';
import type { CommandIO } from './io.js';

export const DAEMON_EXIT = { ok: 0, failed: 1, usage: 2, notRunning: 3 } as const;

export interface StartCommandOptions {
  host: string;
  port: string;
  dataDir?: string;
  allowPrivateUrls: boolean;
  detach: boolean;
  smtpUrl?: string;
  mailFrom?: string;
  publicUrl?: string;
  trustProxy?: boolean;
  /** `--trust-anchors FILE.pem`: C2PA trust anchors instead of those kept with `provenance trust`. */
  trustAnchors?: string;
}

/** Set in a --detach child: its console is the log file, so it prints where mails went, not links. */
const DETACHED_ENV = 'PROVENANCE_DAEMON_DETACHED';

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
  const smtpUrl = options.smtpUrl ?? (io.env.PROVENANCE_SMTP_URL || undefined);
  const problem =
    options.trustProxy && !options.publicUrl
      ? '--trust-proxy needs --public-url: the address users reach through the proxy, used in sign-in links'
      : mailOptionProblem(smtpUrl, options.publicUrl);
  if (problem) {
    io.stderr.write(`provenance: ${problem}\n`);
    return DAEMON_EXIT.usage;
  }
  // The operator's C2PA trust anchors (--trust-anchors, else those kept with `provenance trust`),
  // as `provenance check` uses them, so that a daemon result equals the CLI's for the same bytes.
  // Read before anything starts: a bad file is a usage error, not a daemon that half starts.
  const { loadTrustAnchors, TrustAnchorError } = await import('../config/trust-store.js');
  let anchors;
  try {
    anchors = loadTrustAnchors({ file: options.trustAnchors, env: io.env });
  } catch (err) {
    if (!(err instanceof TrustAnchorError)) throw err;
    io.stderr.write(`provenance: ${options.trustAnchors ? '--trust-anchors: ' : ''}${err.message}\n`);
    return DAEMON_EXIT.usage;
  }
  if (options.detach) return startDetached({ ...options, smtpUrl }, dataDir, io);

  let daemon;
  try {
    daemon = await startDaemon({
      trustAnchorsPem: anchors?.pem,
      dataDir,
      host: options.host,
      port,
      allowPrivateUrls: options.allowPrivateUrls,
      logStream: io.stderr,
      trustProxy: options.trustProxy,
      web: {
        smtpUrl,
        mailFrom: options.mailFrom,
        publicUrl: options.publicUrl,
        console: io.stderr,
        linkOnConsole: io.env[DETACHED_ENV] !== '1',
      },
    });
  } catch (err) {
    const message = err instanceof DaemonLockedError ? err.message : `could not start the daemon: ${(err as Error).message}`;
    io.stderr.write(`provenance: ${message}\n`);
    return DAEMON_EXIT.failed;
  }
  io.stdout.write(`listening on ${daemon.url}\n`);
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await daemon.stop();
  return DAEMON_EXIT.ok;
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
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logFile = join(dataDir, DATA_FILES.log);
  const log = openSync(logFile, 'a', 0o600);
  const args = [process.argv[1]!, 'daemon', 'start', '--host', options.host, '--port', options.port, '--data-dir', dataDir];
  if (options.allowPrivateUrls) args.push('--allow-private-urls');
  if (options.mailFrom) args.push('--mail-from', options.mailFrom);
  if (options.publicUrl) args.push('--public-url', options.publicUrl);
  if (options.trustProxy) args.push('--trust-proxy');
  if (options.trustAnchors) args.push('--trust-anchors', resolve(options.trustAnchors));
  // The SMTP URL may hold a password: through the environment, not the command line (ps).
  const env = { ...process.env, ...io.env, [DETACHED_ENV]: '1', ...(options.smtpUrl ? { PROVENANCE_SMTP_URL: options.smtpUrl } : {}) };
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
      io.stderr.write(`provenance: the daemon exited (code ${exited}); see ${logFile}\n`);
      return DAEMON_EXIT.failed;
    }
    await sleep(50);
  }
  child.unref();
  io.stderr.write(`provenance: the daemon did not start listening within 20 s; see ${logFile}\n`);
  return DAEMON_EXIT.failed;
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
  // The daemon lets in-flight requests finish for up to 10 s before it cuts them.
  for (let waited = 0; waited < 15_000; waited += 50) {
    if (!isAlive(lock.pid)) {
      io.stdout.write(`stopped (pid ${lock.pid})\n`);
      return DAEMON_EXIT.ok;
    }
    await sleep(50);
  }
  io.stderr.write(`provenance: the daemon (pid ${lock.pid}) did not stop within 15 s\n`);
  return DAEMON_EXIT.failed;
}
