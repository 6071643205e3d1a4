// Settings in config.json (the file conf keeps in the config folder): what `provenance config`
// shows and changes, and the login record `provenance login` writes.
//
// Reading is plain fs, like trust-store.ts: `provenance check` reads this on every run to learn
// whether checks go to an API, and must not pay for loading conf. Writing loads conf lazily.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, CONFIG_FILE, oneLine, WRITE_REFUSED_EXIT, writeProblem } from './paths.js';

/** Where `provenance login` put the key of `api_url`; never the key itself. */
export interface LoginRecord {
  api_url: string;
  key_store: 'keychain' | 'file';
}

export interface Settings {
  /** Base URL of the /v1 API (without `/v1`). */
  api_url?: string;
  /** PEM file of C2PA trust anchors for local checks (see trust-store.ts). */
  trust_anchors?: string;
  /** false: remote checks neither read nor write the result cache. Default true. */
  cache?: boolean;
  /** true: `check` keeps and uses the scan cache (as with --incremental). Default false. */
  incremental?: boolean;
  /** `full` (default) or `hosted`: which detectors `check` and `detectors` know (as --catalogue). */
  catalogue?: string;
  /** Written by `provenance login`, removed by `provenance logout`. */
  login?: LoginRecord;
}

export class SettingsError extends Error {}

export function settingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), CONFIG_FILE);
}

/** config.json as it is on disk ({} when there is none). Throws SettingsError when damaged. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const file = settingsPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsError(`${file} cannot be read: ${(err as Error).message}.`);
  }
  if (!text.trim()) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(`${file} is damaged (${oneLine((err as Error).message)}): fix it or delete it.`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new SettingsError(`${file} is damaged (not a JSON object): fix it or delete it.`);
  const settings = data as Record<string, unknown>;
  const login = settings.login as Partial<LoginRecord> | undefined;
  if (login !== undefined && (typeof login?.api_url !== 'string' || (login.key_store !== 'keychain' && login.key_store !== 'file'))) {
    throw new SettingsError(`${file}: the login record is damaged; run \`provenance logout\` and log in again.`);
  }
  return settings as Settings;
}

/**
 * An API base URL as the client uses it: http or https, no user name or password, no query or
 * fragment, no trailing slash and no trailing `/v1` (the client adds `/v1/...` itself).
 */
export function normalizeApiUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SettingsError(`"${value}" is not a URL; give the API's base address, e.g. https://api.example.com.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingsError(`The API URL must start with https:// (or http://), not ${url.protocol}//.`);
  if (url.username || url.password) throw new SettingsError('The API URL must not carry a user name or password; the key is given to `provenance login`.');
  if (url.search || url.hash) throw new SettingsError('The API URL must not have a query string or fragment.');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

export interface SettingSpec {
  describe: string;
  /** The value to store, from what the user typed; throws SettingsError when invalid. */
  parse(value: string): string | boolean;
}

/** What `provenance config set` accepts. `login` is written only by login/logout. */
export const SETTABLE: Record<string, SettingSpec> = {
  api_url: {
    describe: 'base URL of the /v1 API that remote checks use (without /v1)',
    parse: normalizeApiUrl,
  },
  trust_anchors: {
    describe: 'PEM file of C2PA trust anchors for local checks (`config set` stores it as an absolute path, a relative one taken from the working directory)',
    parse: (v) => {
      if (!v.trim()) throw new SettingsError('trust_anchors needs the path of a PEM file.');
      return v;
    },
  },
  cache: {
    describe: 'true (default) or false: keep remote results in the cache, keyed by file SHA-256, checks and API URL',
    parse: (v) => parseBoolean('cache', v),
  },
  incremental: {
    describe: 'true or false (default): local checks keep a scan cache and answer unchanged files from it, as with --incremental',
    parse: (v) => parseBoolean('incremental', v),
  },
  catalogue: {
    describe: "full (default: every detector) or hosted (exactly the hosted service's five), as --catalogue",
    parse: (v) => {
      const name = v.trim().toLowerCase();
      if (name !== 'full' && name !== 'hosted') throw new SettingsError('catalogue is full or hosted.');
      return name;
    },
  },
};

function parseBoolean(key: string, v: string): boolean {
  if (/^(true|yes|on|1)$/i.test(v)) return true;
  if (/^(false|no|off|0)$/i.test(v)) return false;
  throw new SettingsError(`${key} is true or false.`);
}

// ---------------------------------------------------------------------------------------------
// Writing: through conf, loaded only by the commands that write.

type ConfModule = typeof import('conf');
type ConfStore = InstanceType<ConfModule['default']>;

/** config.json for writing; a write the filesystem refuses is a SettingsError saying why. */
export interface SettingsStore {
  set(key: string, value: unknown): void;
  delete(key: string): void;
  readonly path: string;
}

// A computed specifier keeps conf out of the CLI bundle (as in trust-store.ts).
const importExternal = (specifier: string): Promise<unknown> => import(specifier);

export async function openSettings(env: NodeJS.ProcessEnv = process.env): Promise<SettingsStore> {
  readSettings(env); // a damaged file is reported, never overwritten
  const { default: Conf } = (await importExternal('conf')) as ConfModule;
  const file = settingsPath(env);
  const writing = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      const problem = writeProblem(err, file);
      if (problem) throw Object.assign(new SettingsError(problem), { exitCode: WRITE_REFUSED_EXIT });
      throw err;
    }
  };
  let conf: ConfStore;
  try {
    conf = writing(() => new Conf<Record<string, unknown>>({ cwd: configDir(env), configName: CONFIG_FILE.replace(/\.json$/, '') }) as unknown as ConfStore);
  } catch (err) {
    if (err instanceof SettingsError) throw err;
    throw new SettingsError(`${file} is damaged (${oneLine((err as Error).message)}): fix it or delete it.`);
  }
  return {
    set: (key, value) => writing(() => conf.set(key, value)),
    delete: (key) => writing(() => conf.delete(key)),
    path: conf.path,
  };
}
