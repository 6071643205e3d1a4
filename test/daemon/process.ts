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

export function startDaemonProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [BIN, 'daemon', 'start', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start: ${err}`)), 20_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)\n/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ child, url: m[1]!, stderr: () => err, stdout: () => out, exited });
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening: ${err}`));
    });
  });
}
