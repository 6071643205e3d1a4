// Where the API key lives: PROVENANCE_API_KEY, else the OS keychain, else (where no keychain is
// reachable, e.g. headless Linux) credentials.json in the config folder with mode 0600.
//
// A key is stored per API URL and only ever sent to that URL: pointing `api_url` elsewhere does
// not hand the stored key to another server.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KeychainUnavailable, osKeychain, type Keychain } from './keychain.js';
import { APP_NAME, configDir, CREDENTIALS_FILE, oneLine } from './paths.js';

export type KeyStoreKind = 'keychain' | 'file';

export interface CredentialDeps {
  /** The keychain to use (tests); default: the OS keychain through @napi-rs/keyring. */
  keychain?: () => Promise<Keychain>;
}

export class CredentialsError extends Error {}

interface CredentialsFile {
  keys: Record<string, string>;
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), CREDENTIALS_FILE);
}

/**
 * The keychain service name. A relocated config folder (PROVENANCE_CONFIG_DIR) is a separate
 * setup with its own logins, so its entries are named after the folder.
 */
export function keychainService(env: NodeJS.ProcessEnv = process.env): string {
  return env.PROVENANCE_CONFIG_DIR ? `${APP_NAME} (${configDir(env)})` : APP_NAME;
}

/**
 * A key goes into an HTTP header: printable ASCII without spaces, and of a sane length. Anything
 * else is a paste gone wrong (or an attempt at header injection), refused before it is sent.
 */
export function checkKeyShape(key: string): string | undefined {
  if (!key) return 'The key is empty.';
  if (key.length > 512) return 'The key is too long (over 512 characters); check what was pasted.';
  if (!/^[\x21-\x7e]+$/.test(key)) return 'The key contains spaces or characters that are not printable ASCII; check what was pasted.';
  return undefined;
}

function readFile(env: NodeJS.ProcessEnv): { data: CredentialsFile; mode?: number } {
  const file = credentialsPath(env);
  let text: string;
  let mode: number;
  try {
    text = readFileSync(file, 'utf8');
    mode = statSync(file).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { data: { keys: {} } };
    throw new CredentialsError(`${file} cannot be read: ${(err as Error).message}.`);
  }
  try {
    const data = JSON.parse(text) as Partial<CredentialsFile>;
    if (!data || typeof data.keys !== 'object' || data.keys === null) throw new Error('no "keys" object');
    return { data: { keys: { ...data.keys } }, mode };
  } catch (err) {
    throw new CredentialsError(`${file} is damaged (${oneLine((err as Error).message)}): delete it and log in again.`);
  }
}

/** Replaces credentials.json atomically; the file is created 0600 and never exists wider. */
function writeFile(env: NodeJS.ProcessEnv, data: CredentialsFile): void {
  const file = credentialsPath(env);
  if (Object.keys(data.keys).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'w' });
    chmodSync(tmp, 0o600); // a leftover tmp file may have existed with another mode
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new CredentialsError(`${file} cannot be written: ${(err as Error).message}.`);
  }
}

export interface SavedKey {
  store: KeyStoreKind;
  /** "the Secret Service keyring" or the credentials file's path. */
  where: string;
  /** Why the keychain was not used, when it was not. */
  fallbackReason?: string;
}

/** Stores the key for `apiUrl`: in the keychain when one is reachable, else in the 0600 file. */
export async function saveKey(
  env: NodeJS.ProcessEnv,
  apiUrl: string,
  key: string,
  options: { noKeychain?: boolean; deps?: CredentialDeps } = {},
): Promise<SavedKey> {
  let fallbackReason = 'the file store was asked for (--no-keychain)';
  if (!options.noKeychain) {
    try {
      const keychain = await (options.deps?.keychain ?? osKeychain)();
      await keychain.set(keychainService(env), apiUrl, key);
      removeFromFile(env, apiUrl); // no second copy left behind from an earlier login
      return { store: 'keychain', where: keychain.label };
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      fallbackReason = `no OS keychain is reachable (${err.message})`;
    }
  }
  const { data } = readFile(env);
  data.keys[apiUrl] = key;
  writeFile(env, data);
  return { store: 'file', where: credentialsPath(env), fallbackReason };
}

export interface LoadedKey {
  key: string;
  /** Something the user should fix (a credentials file readable by others). */
  warning?: string;
}

/** The stored key of `apiUrl` from where login put it; undefined when it is not there. */
export async function loadKey(env: NodeJS.ProcessEnv, apiUrl: string, store: KeyStoreKind, deps: CredentialDeps = {}): Promise<LoadedKey | undefined> {
  if (store === 'keychain') {
    try {
      const keychain = await (deps.keychain ?? osKeychain)();
      const key = await keychain.get(keychainService(env), apiUrl);
      return key ? { key } : undefined;
    } catch (err) {
      if (err instanceof KeychainUnavailable) {
        throw new CredentialsError(`The key was stored in the OS keychain, which cannot be reached now (${err.message}); log in again.`);
      }
      throw err;
    }
  }
  const { data, mode } = readFile(env);
  const key = data.keys[apiUrl];
  if (!key) return undefined;
  const warning =
    mode !== undefined && mode & 0o077
      ? `${credentialsPath(env)} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); run: chmod 600 '${credentialsPath(env)}'`
      : undefined;
  return { key, warning };
}

function removeFromFile(env: NodeJS.ProcessEnv, apiUrl: string): boolean {
  const { data } = readFile(env);
  if (!(apiUrl in data.keys)) return false;
  delete data.keys[apiUrl];
  writeFile(env, data);
  return true;
}

/** Removes the key of `apiUrl` from the keychain and the file; says where one was found. */
export async function deleteKey(env: NodeJS.ProcessEnv, apiUrl: string, deps: CredentialDeps = {}): Promise<{ removed: KeyStoreKind[]; keychainError?: string }> {
  const removed: KeyStoreKind[] = [];
  let keychainError: string | undefined;
  try {
    const keychain = await (deps.keychain ?? osKeychain)();
    if (await keychain.delete(keychainService(env), apiUrl)) removed.push('keychain');
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    keychainError = err.message;
  }
  if (removeFromFile(env, apiUrl)) removed.push('file');
  return { removed, keychainError };
}
