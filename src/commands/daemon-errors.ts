// The system errors a daemon command can meet (a data dir it cannot write, a --host that is no
// address of this machine, a port in use), as one sentence that names the path or value and
// says what to do, instead of `EACCES: permission denied, open '.../daemon.lock'`.
import { existsSync } from 'node:fs';

type SystemError = NodeJS.ErrnoException & { syscall?: string; hostname?: string };

const ELSEWHERE = 'choose another with --data-dir (or PROVENANCE_DATA_DIR)';

/** A filesystem error in the data dir, or undefined when `err` is not one. */
export function dataDirProblem(err: unknown, dataDir: string): string | undefined {
  const e = err as SystemError;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return `cannot write the data dir ${dataDir}: permission denied. Make it writable, or ${ELSEWHERE}.`;
    case 'EROFS':
      return `cannot write the data dir ${dataDir}: it is on a read-only file system; ${ELSEWHERE}.`;
    case 'ENOSPC':
      return `cannot write the data dir ${dataDir}: the disk is full.`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `the data dir ${dataDir} cannot be used: a part of its path is a file, not a folder; ${ELSEWHERE}.`;
    default:
      return undefined;
  }
}

/** Why `daemon start` could not listen or use its data dir, or undefined for anything else. */
export function startProblem(err: unknown, where: { host: string; port: number; dataDir: string }): string | undefined {
  const e = err as SystemError;
  if (e?.syscall === 'getaddrinfo' || e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') {
    return `--host ${where.host}: no such address or host name. Give an address of this machine: 127.0.0.1 (this machine only, the default) or 0.0.0.0 (every network interface).`;
  }
  if (e?.code === 'EADDRNOTAVAIL') {
    return `--host ${where.host} is not an address of this machine. Give one of its own: 127.0.0.1 (this machine only, the default) or 0.0.0.0 (every network interface).`;
  }
  if (e?.code === 'EADDRINUSE') {
    return `port ${where.port} on ${where.host} is in use by another program: stop it, or choose another --port (0 picks a free one).`;
  }
  if ((e?.code === 'EACCES' || e?.code === 'EPERM') && e.syscall === 'listen') {
    return `port ${where.port} on ${where.host} needs privileges this user lacks: choose a --port from 1024 up (0 picks a free one).`;
  }
  return dataDirProblem(err, where.dataDir);
}

/**
 * A command that only reads the data dir (listing accounts or keys, the outbox) must not make
 * one where a typo points: undefined when the folder exists, else the sentence to print.
 */
export function missingDataDir(dataDir: string): string | undefined {
  if (existsSync(dataDir)) return undefined;
  return `there is no data dir at ${dataDir}: check --data-dir (or PROVENANCE_DATA_DIR). \`provenance daemon start\` or \`daemon accounts create\` makes one.`;
}

/** A plausible e-mail address for From:, bare (`a@example.com`) or named (`Name <a@example.com>`). */
export function isMailAddress(value: string): boolean {
  const address = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>".]+$/;
  const named = /^[^<>]*<([^<>]+)>$/.exec(value.trim());
  return address.test(named ? named[1]!.trim() : value.trim());
}
