// The distributed scan's tests (test/postgres/fleet-*.test.ts): a queue database of their own on
// the test server, workers as real subprocesses of the built CLI, and a mixed folder to scan.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { APPLE_MAKER_NOTE, NOT_MEDIA, exifApp1, tinyJpeg, tinyPng } from '../fixtures/make.js';
import { ROOT } from './corpus.js';
import { createTestDatabase, sql, type TestDatabase } from './postgres.js';
import { runBin, type CliRun } from './run-cli.js';

/** A subprocess of the built CLI: its exit, and what it wrote to stderr so far. */
export interface CliProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `provenance <args>` as a subprocess of the built CLI (stdout ignored). */
export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliProcess {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const err: Buffer[] = [];
  child.stderr!.on('data', (c: Buffer) => err.push(c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => Buffer.concat(err).toString(), exited };
}

/** `provenance scan worker` as a subprocess of the built CLI, one thread unless told. */
export function startWorker(queue: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): CliProcess {
  return startCli(['scan', 'worker', '--queue', queue, '--concurrency', '1', ...args], { env });
}

/** Counts of a scan's inputs by state, read from its rows. */
export async function inputCounts(queue: string, scan: string): Promise<{ queued: number; done: number; failed: number }> {
  const rows = await sql(queue, `SELECT state, count(*)::int AS n FROM provenance_scan.inputs WHERE scan = $1 GROUP BY state`, [scan]);
  const by = (s: string) => (rows.find((r) => r.state === s)?.n as number | undefined) ?? 0;
  return { queued: by('queued'), done: by('done'), failed: by('failed') };
}

/** Polls `condition` every 100 ms until it holds, at most `ms`; throws with `what` when it never does. */
export async function waitFor(what: string, condition: () => Promise<boolean> | boolean, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * `count` small files in subfolders of 100: camera JPEGs (Apple EXIF), plain JPEGs and PNGs, a
 * text file every 50th, and `signed` (a C2PA-signed JPEG) every 40th when given. Their paths.
 */
export function makeMixedFolder(dir: string, count: number, signed?: Uint8Array): string[] {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const sub = join(dir, `d${String(Math.floor(i / 100)).padStart(2, '0')}`);
    mkdirSync(sub, { recursive: true });
    const kind = i % 50 === 7 ? 'txt' : signed && i % 40 === 3 ? 'signed' : i % 3 === 0 ? 'png' : 'jpg';
    const path = join(sub, `f${String(i).padStart(5, '0')}.${kind === 'signed' ? 'jpg' : kind}`);
    const bytes =
      kind === 'txt'
        ? NOT_MEDIA
        : kind === 'signed'
          ? signed!
          : kind === 'png'
            ? tinyPng({ seed: i })
            : tinyJpeg({ seed: i, exif: i % 2 ? exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) : undefined });
    writeFileSync(path, bytes);
    paths.push(path);
  }
  return paths;
}

/** `check --json` lines and `scan results --json` lines compared as results: without the check's id and time. */
export const comparable = (lines: any[]) => lines.map(({ id: _i, duration_ms: _d, ...rest }) => rest);

/** What a fleet test file works in: see fleetTestBed. */
export interface FleetTestBed {
  /** The file's own folder: its fixtures, and where the CLI runs. */
  readonly dir: string;
  /** The queue's URL: the running test's database, or the file's (see fleetTestBed). */
  readonly queue: string;
  /** Keeps a subprocess to be killed after the file (SIGKILL), should it still run. */
  spawned(process: CliProcess): CliProcess;
  /** `provenance scan worker` on the queue (startWorker), kept as spawned() keeps it. */
  worker(args?: string[], env?: NodeJS.ProcessEnv): CliProcess;
  /** `provenance scan ARGS --queue <queue>` by the built CLI, in `dir`. */
  scan(args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun>;
}

/**
 * Registers the hooks a fleet test file shares: a folder of its own (named from `prefix`) and a
 * queue database, one for the file or, with `databasePerTest`, one for each test (a worker takes
 * batches of every scan in its queue, so tests that run workers keep apart that way). After the
 * file every subprocess kept is killed, the databases dropped and the folder removed. The file's
 * own hooks, registered after this call, run after these before a test and before these after it.
 */
export function fleetTestBed(prefix: string, options: { databasePerTest?: boolean } = {}): FleetTestBed {
  let dir: string | undefined;
  let current: TestDatabase | undefined;
  const databases: TestDatabase[] = [];
  const processes: CliProcess[] = [];
  const newDatabase = async () => {
    current = await createTestDatabase();
    databases.push(current);
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    if (!options.databasePerTest) await newDatabase();
  }, 60_000);
  if (options.databasePerTest) beforeEach(newDatabase, 60_000);
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    for (const d of databases) await d.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const bed: FleetTestBed = {
    get dir() {
      if (!dir) throw new Error('fleetTestBed: the folder is made in beforeAll');
      return dir;
    },
    get queue() {
      if (!current) throw new Error('fleetTestBed: the queue database is made in beforeAll or beforeEach');
      return current.url;
    },
    spawned: (p) => (processes.push(p), p),
    worker: (args = [], env = {}) => bed.spawned(startWorker(bed.queue, args, env)),
    scan: (args, env = {}) => runBin(['scan', ...args, '--queue', bed.queue], { cwd: bed.dir, env }),
  };
  return bed;
}
