// Where the user's configuration lives. The same folder conf would pick for the project name
// "provenance" (env-paths rules, no "-nodejs" suffix), computed here without loading conf so
// that `provenance check` can look for stored settings at the cost of a failed open().
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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
 * Cached API results. Inside the config folder when `PROVENANCE_CONFIG_DIR` relocates it (so a
 * relocated setup, e.g. a test's, keeps everything in one place); otherwise the platform's cache
 * folder: `$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%`
 * on Windows.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PROVENANCE_CONFIG_DIR) return join(configDir(env), 'cache');
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', APP_NAME);
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), APP_NAME, 'Cache');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), APP_NAME);
}
