// Where the user's configuration lives. The same folder conf would pick for the project name
// "provenance" (env-paths rules, no "-nodejs" suffix), computed here without loading conf so
// that `provenance check` can look for stored settings at the cost of a failed open().
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const APP_NAME = 'provenance';
/** Settings (conf's default file name). Key `trust_anchors`: path to a PEM file of anchors. */
export const CONFIG_FILE = 'config.json';
/** Trust anchors added with `provenance trust add`. */
export const TRUST_STORE_FILE = 'trust-anchors.json';

/**
 * `PROVENANCE_CONFIG_DIR` when set; otherwise the platform's config folder: `$XDG_CONFIG_HOME`
 * or `~/.config` on Linux, `~/Library/Preferences` on macOS, `%APPDATA%` on Windows.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PROVENANCE_CONFIG_DIR) return resolve(env.PROVENANCE_CONFIG_DIR);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', APP_NAME);
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), APP_NAME, 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), APP_NAME);
}

/** The API key where no OS keychain is reachable: mode 0600, beside config.json. */
export const CREDENTIALS_FILE = 'credentials.json';

/**
 * The cache folder: cached API results and the scan cache of `check --incremental`.
 * `PROVENANCE_CACHE_DIR` when set; inside the config folder when `PROVENANCE_CONFIG_DIR` relocates
 * it (so a relocated setup, e.g. a test's, keeps everything in one place); otherwise the
 * platform's cache folder: `$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS,
 * `%LOCALAPPDATA%` on Windows.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PROVENANCE_CACHE_DIR) return resolve(env.PROVENANCE_CACHE_DIR);
  if (env.PROVENANCE_CONFIG_DIR) return join(configDir(env), 'cache');
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', APP_NAME);
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), APP_NAME, 'Cache');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), APP_NAME);
}

/**
 * A filesystem error met while writing a file of the config folder, as one sentence a user can
 * act on (undefined for anything that is not a filesystem error). EACCES on a folder the user
 * cannot write is a permission problem, never a "damaged" file.
 */
export function writeProblem(err: unknown, file: string): string | undefined {
  const code = (err as NodeJS.ErrnoException)?.code;
  const folder = dirname(file);
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `cannot write ${file}: permission denied. Make ${folder} writable, or set PROVENANCE_CONFIG_DIR to a folder you can write.`;
    case 'EROFS':
      return `cannot write ${file}: ${folder} is on a read-only file system. Set PROVENANCE_CONFIG_DIR to a folder you can write.`;
    case 'ENOSPC':
      return `cannot write ${file}: the disk is full.`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `cannot write ${file}: a part of ${folder} is a file, not a folder.`;
    default:
      return undefined;
  }
}

/** Exit code of a write the filesystem refused: the command failed, the input was fine. */
export const WRITE_REFUSED_EXIT = 1;

/** A message (e.g. JSON.parse's, which quotes the text it failed on) on one line. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

/** The scan cache of `check --incremental` (an LMDB database; engine/scan-cache.ts). */
export function scanCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'scan');
}
