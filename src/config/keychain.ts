// The OS keychain, through @napi-rs/keyring: the macOS Keychain, the Windows Credential Manager,
// the Secret Service (GNOME Keyring, KWallet) on Linux.
//
// On Linux the entry is pinned to the Secret Service. keyring's default would fall back to the
// kernel keyring, which forgets its keys at logout or reboot (and, on some systems, answers with
// an in-memory store): a key that silently vanishes is worse than the 0600 file we fall back to.
//
// The native module is loaded with a computed import, only by the commands that store or read a
// key: never on the start-up path of `provenance check`.

export interface Keychain {
  /** Where keys go, in words for messages ("the macOS Keychain"). */
  readonly label: string;
  get(service: string, account: string): Promise<string | null>;
  set(service: string, account: string, secret: string): Promise<void>;
  /** true when an entry was removed. */
  delete(service: string, account: string): Promise<boolean>;
}

/** No keychain can be reached here (no module for this platform, no Secret Service, locked...). */
export class KeychainUnavailable extends Error {}

type KeyringModule = typeof import('@napi-rs/keyring');

const importExternal = (specifier: string): Promise<unknown> => import(specifier);

export function keychainLabel(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the Secret Service keyring';
}

function unavailable(err: unknown): KeychainUnavailable {
  const message = (err as Error)?.message ?? String(err);
  return new KeychainUnavailable(message.replace(/\s+/g, ' ').trim());
}

/** The OS keychain. Throws KeychainUnavailable when @napi-rs/keyring cannot be loaded here. */
export async function osKeychain(): Promise<Keychain> {
  let mod: KeyringModule;
  try {
    mod = (await importExternal('@napi-rs/keyring')) as KeyringModule;
  } catch (err) {
    throw unavailable(err);
  }
  const options = { linux: { store: 'secret-service' as const } };
  const entry = (service: string, account: string) => new mod.AsyncEntry(service, account, options);
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(err);
    }
  };
  return {
    label: keychainLabel(),
    get: (service, account) => guarded(() => entry(service, account).getPassword()),
    set: (service, account, secret) => guarded(() => entry(service, account).setPassword(secret)),
    delete: (service, account) => guarded(() => entry(service, account).deletePassword()),
  };
}
