import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { CommandIO } from '../../src/commands/io.js';
import { ROOT } from './corpus.js';

export interface CliRun {
  /** The exit code; -1 when the process was ended by a signal (runBin: see `signal`). */
  code: number;
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  return () => Buffer.concat(chunks).toString('utf8');
}

/** Runs the CLI in-process with injected streams (no TTY, so no colour); stdin bytes or a stream. */
export async function runCli(args: string[], stdin: Uint8Array | Readable = new Uint8Array(), env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  // The isolated config folder of vitest.config.ts, unless the test names its own.
  const io: CommandIO = {
    stdin: stdin instanceof Readable ? stdin : Readable.from([Buffer.from(stdin)]),
    stdout,
    stderr,
    env: { PROVENANCE_CONFIG_DIR: process.env.PROVENANCE_CONFIG_DIR, ...env },
  };
  const code = await main(['node', 'provenance', ...args], io);
  return { code, stdout: out(), stderr: err() };
}

/** Runs the built CLI (bin/provenance.js) as a real subprocess. */
export function runBin(args: string[], options: { cwd?: string; stdin?: Uint8Array; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolvePromise({ code: code ?? -1, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
    child.stdin.end(options.stdin ?? new Uint8Array());
  });
}

export function parseLines(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}
