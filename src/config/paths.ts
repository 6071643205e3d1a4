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
