// Where the daemon keeps its state: --data-dir, else PROVENANCE_DATA_DIR, else the platform's
// user data dir (XDG on Linux), computed here rather than with a dependency: it is five lines.
import { chmodSync, lstatSync, readdirSync, type Stats } from 'node:fs';
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

/** The daemon's own files in the data dir beside DATA_FILES: the embedded store's two. */
const STORE_FILES = ['provenance.json', 'provenance.journal'];
/** The daemon's own folders in the data dir; every file in them is the daemon's too. */
const OWN_FOLDERS = ['uploads', 'outbox'];

/**
 * Makes an existing data dir as private as a new one (docs/SECURITY.md): the dir and the
 * daemon's own folders 0700, the daemon's own files 0600. Files are created 0600 and folders
 * 0700, but a data dir made by an older version, by hand or restored from a backup may have
 * looser modes, which creating does not change. Only entries of this user's that are still
 * readable by others are changed: nothing else in the dir (a file of the operator's), nothing
 * a symlink points to (lstat; a symlink is left alone). Returns what was changed, for the log.
 */
export function tightenDataDir(dataDir: string, platform = process.platform): string[] {
  // Windows has no such modes (its ACLs are the user profile's).
  if (platform === 'win32' || typeof process.getuid !== 'function') return [];
  const uid = process.getuid();
  const changed: string[] = [];
  const tighten = (path: string, st: Stats | undefined, mode: number) => {
    if (!st || st.uid !== uid || (st.mode & 0o777) === mode || !(st.isFile() || st.isDirectory())) return;
    chmodSync(path, mode);
    changed.push(path);
  };
  const stat = (path: string) => {
    try {
      return lstatSync(path);
    } catch {
      return undefined;
    }
  };
  tighten(dataDir, stat(dataDir), 0o700);
  for (const name of [...Object.values(DATA_FILES), ...STORE_FILES]) {
    const path = join(dataDir, name);
    const st = stat(path);
    if (st?.isFile()) tighten(path, st, 0o600);
  }
  for (const folder of OWN_FOLDERS) {
    const dir = join(dataDir, folder);
    const st = stat(dir);
    if (!st?.isDirectory()) continue;
    tighten(dir, st, 0o700);
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const entry = stat(path);
      if (entry?.isFile()) tighten(path, entry, 0o600);
    }
  }
  return changed;
}
