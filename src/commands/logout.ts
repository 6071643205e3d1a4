// `provenance logout`: removes the stored key (keychain and credentials file) and the login
// record; checks run on this machine again. The api_url setting stays, so a later login need
// not be told the URL again.
import type { RemoteDeps } from '../client/session.js';
import { CredentialsError, deleteKey } from '../config/credentials.js';
import { openSettings, readSettings, SettingsError } from '../config/settings.js';
import { EXIT, type CommandIO } from './io.js';

export async function runLogout(_options: Record<string, never>, io: CommandIO, deps: RemoteDeps = {}): Promise<number> {
  try {
    const login = readSettings(io.env).login;
    const envNote = io.env.PROVENANCE_API_KEY ? 'PROVENANCE_API_KEY is still set in the environment: unset it, or checks keep going to the API.\n' : '';
    if (!login) {
      io.stdout.write(`Not logged in: no key is stored.\n${envNote}`);
      return EXIT.ok;
    }
    const { removed } = await deleteKey(io.env, login.api_url, deps);
    const store = await openSettings(io.env);
    store.delete('login');
    const where = removed.length ? ` The key was removed from ${removed.map((r) => (r === 'keychain' ? 'the OS keychain' : 'the credentials file')).join(' and ')}.` : '';
    io.stdout.write(`Logged out of ${login.api_url}.${where}\n${envNote || 'Checks run on this machine again; `provenance login` to use the API.\n'}`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CredentialsError || err instanceof SettingsError) {
      io.stderr.write(`provenance: ${err.message}\n`);
      return EXIT.unreadable;
    }
    throw err;
  }
}
