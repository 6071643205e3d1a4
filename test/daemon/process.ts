// Runs the built CLI's daemon as a real subprocess (bin/provenance.js -> dist/cli.js).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../helpers/corpus.js';

export interface DaemonProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  stdout(): string;
  exited: Promise<number | null>;
}

export const BIN = join(ROOT, 'bin', 'provenance.js');

/** `daemon start --port 0` with these arguments; resolves once it says where it listens. */
export function startDaemonProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  return spawnDaemon(['--port', '0', ...args], env, () => true);
}

/**
 * `daemon start` with exactly these arguments; resolves once it says where it listens and
 * `ready` (given everything printed so far) is true, rejects if it exits first or within 20 s.
 */
export function spawnDaemon(args: string[], env: NodeJS.ProcessEnv, ready: (stdout: string, stderr: string) => boolean): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [BIN, 'daemon', 'start', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start within 20 s: ${out} ${err}`)), 20_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)\n/.exec(out);
      if (!m || !ready(out, err)) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.stderr!.off('data', check);
      resolve({ child, url: m[1]!, stderr: () => err, stdout: () => out, exited });
    };
    // After the listeners above, so each chunk is counted before it is checked.
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening: ${out} ${err}`));
    });
  });
}
