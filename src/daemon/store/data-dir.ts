// Where the daemon keeps its state: --data-dir, else PROVENANCE_DATA_DIR, else the platform's
// user data dir (XDG on Linux), computed here rather than with a dependency: it is five lines.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv, platform = process.platform): string {
  if (flag) return resolve(flag);
  if (env.PROVENANCE_DATA_DIR) return resolve(env.PROVENANCE_DATA_DIR);
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'provenance');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'provenance', 'Data');
  const xdg = env.XDG_DATA_HOME;
  // XDG: a relative XDG_DATA_HOME is invalid and must be ignored.
  return join(xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'share'), 'provenance');
}

/** Files in the data dir besides the store and the uploads folder. */
export const DATA_FILES = {
  lock: 'daemon.lock',
  pid: 'daemon.pid',
  state: 'daemon.json',
  adminToken: 'admin.token',
  log: 'daemon.log',
  /** Written when the daemon's state is in a database (`--store`): which one, without a password. */
  storeMarker: 'store.json',
  /** A --test-mode daemon's frozen test clock, restored at its next --test-mode start. */
  testClock: 'test-clock.json',
} as const;
