// What the benches that start daemons share: their command-line options, and the wait for a
// started daemon's `listening on URL` line.
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** `--name VALUE` from this script's arguments, else the fallback. */
export function benchOption(name: string, fallback: string, args = process.argv.slice(2)): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
}

/** The URL a daemon (or the bare transport floor) prints once it listens; rejects if it exits first. */
export function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) res(m[1]!);
    });
    child.on('exit', (code) => rej(new Error(`daemon exited ${code}`)));
  });
}

/** Every file under `dir`, recursively (in the order the file system gives them). */
export function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The median (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
