// Which API a run talks to and where its key comes from, decided from the environment and
// config.json alone (plain fs, no keychain access): `provenance check` asks this on every start.
import type { KeyStoreKind } from './credentials.js';
import { normalizeApiUrl, readSettings, SettingsError, type Settings } from './settings.js';

export type KeySource = 'env' | KeyStoreKind;

export interface RemoteTarget {
  /** The API base URL: PROVENANCE_API_URL, else the api_url setting (login sets it). */
  apiUrl?: string;
  apiUrlFrom?: 'PROVENANCE_API_URL' | 'config';
  /** Where the key for apiUrl comes from; undefined: none (not logged in to apiUrl). */
  keyFrom?: KeySource;
  /** The URL logged in to, when that is not apiUrl (its key is not sent elsewhere). */
  otherLogin?: string;
  settings: Settings;
}

export function remoteTarget(env: NodeJS.ProcessEnv): RemoteTarget {
  const settings = readSettings(env);
  let apiUrl: string | undefined;
  let apiUrlFrom: RemoteTarget['apiUrlFrom'];
  if (env.PROVENANCE_API_URL) {
    try {
      apiUrl = normalizeApiUrl(env.PROVENANCE_API_URL);
    } catch (err) {
      throw new SettingsError(`PROVENANCE_API_URL: ${(err as Error).message}`);
    }
    apiUrlFrom = 'PROVENANCE_API_URL';
  } else if (settings.api_url) {
    apiUrl = settings.api_url;
    apiUrlFrom = 'config';
  }
  const login = settings.login;
  let keyFrom: KeySource | undefined;
  let otherLogin: string | undefined;
  if (env.PROVENANCE_API_KEY) keyFrom = 'env';
  else if (login && login.api_url === apiUrl) keyFrom = login.key_store;
  else if (login) otherLogin = login.api_url;
  return { apiUrl, apiUrlFrom, keyFrom, otherLogin, settings };
}

/**
 * Whether `check` goes to the API: --local never, --remote always, otherwise when there is a
 * key to use (logged in, or PROVENANCE_API_KEY) or a login that the URL settings contradict
 * (reported then, rather than silently checking locally).
 */
export function wantsRemote(target: RemoteTarget, flags: { local?: boolean; remote?: boolean }): boolean {
  if (flags.local) return false;
  if (flags.remote) return true;
  return target.keyFrom !== undefined || target.otherLogin !== undefined;
}

/** Why a remote run cannot start, as one sentence the user can act on; undefined when it can. */
export function remoteBlocker(target: RemoteTarget, instead: string | undefined = LOCAL_INSTEAD): string | undefined {
  // `instead` is what the command can do without an API (check: --local); none for `upload`.
  const orInstead = instead ? `, or ${instead}` : '';
  if (!target.apiUrl) {
    return target.keyFrom === 'env'
      ? 'PROVENANCE_API_KEY is set but no API URL is: set PROVENANCE_API_URL, or run `provenance config set api_url URL`.'
      : `Not logged in to an API: run \`provenance login --api-url URL\` (or set PROVENANCE_API_KEY and PROVENANCE_API_URL)${orInstead}.`;
  }
  if (target.keyFrom) return undefined;
  if (target.otherLogin) {
    const why = target.apiUrlFrom === 'PROVENANCE_API_URL' ? 'PROVENANCE_API_URL names' : 'the api_url setting names';
    return `You are logged in to ${target.otherLogin}, but ${why} ${target.apiUrl}, and a key is only sent to the API it was stored for: run \`provenance login --api-url ${target.apiUrl}\`${orInstead}.`;
  }
  return `Not logged in to ${target.apiUrl}: run \`provenance login\` (or set PROVENANCE_API_KEY)${orInstead}.`;
}

/** What `check` can do without an API. */
export const LOCAL_INSTEAD = 'check on this machine with --local';
