// Set-up for the remote-mode tests: a real daemon (the stand-in for the hosted API) on
// 127.0.0.1 with an OS-chosen port, a throw-away config folder per setup (PROVENANCE_CONFIG_DIR),
// and ways to run the CLI against both. Never any address but 127.0.0.1.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { RemoteDeps } from '../../src/client/session.js';
import { runCheck, type CheckOptions } from '../../src/commands/check.js';
import type { CommandIO } from '../../src/commands/io.js';
import { listen, makeApp, type TestApp } from '../daemon/helpers.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import type { AppOptions } from '../../src/daemon/http/app.js';
import { periodOf } from '../../src/daemon/contract/time.js';

export interface RemoteSetup {
  t: TestApp;
  base: string;
  /** The throw-away config folder (config.json, credentials.json, cache/). */
  cfg: string;
  env: NodeJS.ProcessEnv;
  key: string;
  accountId: string;
  /** Every stdout/stderr the CLI wrote through `cli()`, to check that no key leaked. */
  transcript: string[];
  cli(args: string[], stdin?: Uint8Array | string | Readable, env?: NodeJS.ProcessEnv): Promise<CliRun>;
  /** API calls the account used this month, read from the daemon's store (costs nothing). */
  used(): Promise<number>;
  close(): Promise<void>;
}

export async function remoteSetup(
  options: { plan?: string; quota?: number; app?: Partial<AppOptions> } = {},
): Promise<RemoteSetup> {
  const t = await makeApp(options.app ?? {});
  const base = await listen(t.app);
  const { key, accountId } = await t.account('client', options.plan ?? 'custom', options.quota ?? (options.plan && options.plan !== 'custom' ? undefined : 10_000));
  const cfg = mkdtempSync(join(tmpdir(), 'prov-client-'));
  const env: NodeJS.ProcessEnv = { PROVENANCE_CONFIG_DIR: cfg };
  const transcript: string[] = [];
  return {
    t,
    base,
    cfg,
    env,
    key,
    accountId,
    transcript,
    async cli(args, stdin = '', extraEnv = {}) {
      const run = await runCli(args, typeof stdin === 'string' ? Buffer.from(stdin) : stdin, { ...env, ...extraEnv });
      transcript.push(run.stdout, run.stderr);
      return run;
    },
    used() {
      // The month of the app's clock (a test's own, else now): the quota counts by it.
      return t.app.services.store.usage(accountId, periodOf(options.app?.now ? options.app.now() : new Date()));
    },
    async close() {
      await t.close();
      rmSync(cfg, { recursive: true, force: true });
    },
  };
}

/** `provenance login --with-key` (file store, so every machine behaves alike). */
export function login(r: RemoteSetup, key = r.key, extra: string[] = ['--no-keychain']): Promise<CliRun> {
  return r.cli(['login', '--api-url', r.base, '--with-key', ...extra], `${key}\n`);
}

/** runCheck with injected streams and remote deps (timers, keychain), beyond what the CLI flags reach. */
export async function runCheckWith(options: Partial<CheckOptions> & { inputs: string[] }, env: NodeJS.ProcessEnv, deps?: RemoteDeps): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const io: CommandIO = { stdin: Readable.from([Buffer.alloc(0)]), stdout, stderr, env };
  const code = await runCheck({ json: true, ...options, remoteDeps: deps }, io);
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

/** A fresh folder with the given files; returns its path and the files' paths. */
export function filesIn(files: Record<string, Uint8Array>): { dir: string; paths: string[]; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'prov-client-files-'));
  const paths = Object.entries(files).map(([name, bytes]) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  });
  return { dir, paths, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file below `dir`, with its contents (for "the key is in no file but credentials.json"). */
export function filesBelow(dir: string): { path: string; text: string; mode: number }[] {
  const out: { path: string; text: string; mode: number }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else out.push({ path, text: readFileSync(path, 'latin1'), mode: st.mode & 0o777 });
    }
  };
  walk(dir);
  return out;
}

/** A result line without what differs from run to run (SPEC: id, duration_ms). */
export function comparable(line: Record<string, unknown>): Record<string, unknown> {
  // `signals` (issue 38) is read from the file's crJSON on this machine: a remote answer has none.
  const { id: _id, duration_ms: _d, signals: _g, ...rest } = line;
  return rest;
}
