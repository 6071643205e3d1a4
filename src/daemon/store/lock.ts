// One writer per data dir: the daemon, or an offline admin command, holds `daemon.lock`
// (created with O_EXCL, so two processes cannot both create it). A lock whose process is gone
// (kill -9) is stale and is taken over.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILES } from './data-dir.js';

export interface LockInfo {
  pid: number;
  role: 'daemon' | 'admin';
  started_at: string;
}

export interface HeldLock {
  release(): void;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(dataDir: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, DATA_FILES.lock), 'utf8')) as LockInfo;
    return Number.isInteger(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock, or returns who holds it. */
export async function tryLock(dataDir: string, role: LockInfo['role']): Promise<{ lock: HeldLock } | { heldBy: LockInfo }> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, DATA_FILES.lock);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(dataDir);
      if (holder && isAlive(holder.pid)) return { heldBy: holder };
      // Stale (its process died) or half-written by a process that died while creating it.
      if (!holder) {
        // A lock being written right now is unreadable for a moment: give its writer a chance.
        await sleep(50);
        const again = readLock(dataDir);
        if (again && isAlive(again.pid)) return { heldBy: again };
      }
      rmSync(path, { force: true });
      continue;
    }
    const info: LockInfo = { pid: process.pid, role, started_at: new Date().toISOString() };
    writeSync(fd, JSON.stringify(info));
    closeSync(fd);
    let released = false;
    return {
      lock: {
        release() {
          if (released) return;
          released = true;
          const holder = readLock(dataDir);
          if (holder?.pid === process.pid) rmSync(path, { force: true });
        },
      },
    };
  }
  throw new Error(`Could not take the lock ${path}.`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
