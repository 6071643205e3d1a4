// An API client for the current setup: the URL and key from the environment, config.json and
// the credential store (config/remote.ts, config/credentials.ts).
import { checkKeyShape, CredentialsError, loadKey, type CredentialDeps } from '../config/credentials.js';
import { remoteBlocker, remoteTarget, type KeySource, type RemoteTarget } from '../config/remote.js';
import { SettingsError } from '../config/settings.js';
import { ApiClient, type ApiClientOptions } from './api.js';
import type { Sleep } from './transport.js';

/** Replaceable parts of a remote run (tests): timers and the keychain. */
export interface RemoteDeps extends CredentialDeps {
  sleep?: Sleep;
}

/** The run cannot talk to the API as set up (not logged in, ...): a usage error (exit 2). */
export class SessionError extends Error {}

export interface Session {
  client: ApiClient;
  apiUrl: string;
  keyFrom?: KeySource;
  target: RemoteTarget;
  /** Something to tell the user (e.g. a credentials file readable by others). */
  warning?: string;
}

export const USER_AGENT = 'provenance-cli/0.1.0';

export interface OpenSessionOptions extends Omit<ApiClientOptions, 'baseUrl' | 'key' | 'sleep'> {
  /** false: a URL is enough (GET /v1/detectors needs no key). Default true. */
  needKey?: boolean;
  /** What the command can do without an API, for the not-logged-in message; none by default. */
  instead?: string;
  deps?: RemoteDeps;
}

export async function openSession(env: NodeJS.ProcessEnv, options: OpenSessionOptions = {}): Promise<Session> {
  try {
    return await open(env, options);
  } catch (err) {
    if (err instanceof CredentialsError || err instanceof SettingsError) throw new SessionError(err.message);
    throw err;
  }
}

async function open(env: NodeJS.ProcessEnv, options: OpenSessionOptions): Promise<Session> {
  const target = remoteTarget(env);
  const needKey = options.needKey ?? true;
  if (!target.apiUrl || (needKey && !target.keyFrom)) throw new SessionError(remoteBlocker(target, options.instead ?? '') ?? 'Not logged in.');
  let key: string | undefined;
  let warning: string | undefined;
  if (!needKey) {
    // GET /v1/detectors: public; the key is neither read nor sent.
  } else if (target.keyFrom === 'env') key = env.PROVENANCE_API_KEY;
  else if (target.keyFrom) {
    const loaded = await loadKey(env, target.apiUrl, target.keyFrom, options.deps);
    if (!loaded && needKey) {
      throw new SessionError(`The key for ${target.apiUrl} is missing from ${target.keyFrom === 'file' ? 'the credentials file' : 'the OS keychain'}: log in again with \`provenance login\`.`);
    }
    key = loaded?.key;
    warning = loaded?.warning;
  }
  const shape = key === undefined ? undefined : checkKeyShape(key);
  if (shape) throw new SessionError(`${target.keyFrom === 'env' ? 'PROVENANCE_API_KEY' : 'The stored key'}: ${shape}`);
  const { needKey: _needKey, deps: _deps, instead: _instead, ...clientOptions } = options;
  const client = new ApiClient({
    ...clientOptions,
    baseUrl: target.apiUrl,
    key,
    sleep: options.deps?.sleep,
    userAgent: USER_AGENT,
  });
  return { client, apiUrl: target.apiUrl, keyFrom: key ? target.keyFrom : undefined, target, warning };
}

/** "the OS keychain" / "PROVENANCE_API_KEY" / "the credentials file", for messages. */
export function describeKeySource(source: KeySource | undefined): string {
  if (source === 'env') return 'PROVENANCE_API_KEY';
  if (source === 'keychain') return 'the OS keychain';
  if (source === 'file') return 'the credentials file';
  return 'nowhere (not logged in)';
}
