// The distributed scan's tests (test/postgres/fleet-*.test.ts): a queue database of their own on
// the test server, workers as real subprocesses of the built CLI, and a mixed folder to scan.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPLE_MAKER_NOTE, NOT_MEDIA, exifApp1, tinyJpeg, tinyPng } from '../fixtures/make.js';
import { ROOT } from './corpus.js';
import { sql } from './postgres.js';

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
