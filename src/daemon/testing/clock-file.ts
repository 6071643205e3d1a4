// The test clock's saved state (test-clock.json in the data dir): a frozen clock survives a
// restart of a `--test-mode` daemon, which would otherwise come back at real time, before the
// events the test recorded. One file per data dir, whichever store the daemon uses (with
// PostgreSQL too: the clock belongs to the daemon, not to the shared state). A daemon started
// without --test-mode never reads it, and leaves it for the next --test-mode start.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILES } from '../store/data-dir.js';
import { parseInstant } from './test-clock.js';

/** The saved clock cannot be read back; `message` names the file and what to do. */
export class ClockFileError extends Error {}

export function clockFilePath(dataDir: string): string {
  return join(dataDir, DATA_FILES.testClock);
}

/** The frozen time saved in `file` (ms), or undefined when none is saved (real time). */
export function readClockFile(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClockFileError(`cannot read the saved test clock ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
  }
  let at: number | undefined;
  try {
    const saved = JSON.parse(text) as { mode?: unknown; at?: unknown };
    if (saved.mode === 'frozen' && typeof saved.at === 'string') at = parseInstant(saved.at);
  } catch {
    at = undefined;
  }
  if (at === undefined) throw new ClockFileError(`the saved test clock ${file} is damaged; delete it to start at real time, or fix it to {"mode": "frozen", "at": "2030-01-01T00:00:00.000Z"}.`);
  return at;
}

/**
 * Saves a frozen clock (temp file, fsync, rename: a crash leaves the old or the new file), or
 * removes the file for real time.
 */
export function writeClockFile(file: string, frozenAtMs: number | undefined): void {
  if (frozenAtMs === undefined) {
    rmSync(file, { force: true });
    return;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ mode: 'frozen', at: new Date(frozenAtMs).toISOString() })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
