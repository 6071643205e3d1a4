// `provenance login [--api-url URL] [--with-key] [--no-keychain]`: checks a key against the API
// without spending a call (ApiClient.checkKey), then stores it: the OS keychain where one is
// reachable, else credentials.json (mode 0600) in the config folder. The key is never printed.
import { createInterface } from 'node:readline';
import { ApiClient } from '../client/api.js';
import { NetworkError, ProtocolError } from '../client/errors.js';
import { describeQuota } from '../client/quota.js';
import { USER_AGENT, type RemoteDeps } from '../client/session.js';
import { checkKeyShape, CredentialsError, deleteKey, saveKey } from '../config/credentials.js';
import { isWellFormedKey } from '../daemon/accounts/key-format.js';
import { normalizeApiUrl, openSettings, readSettings, SettingsError } from '../config/settings.js';
import { readStream } from '../engine/inputs.js';
import { EXIT, type CommandIO } from './io.js';
import { printable } from '../ui/terminal-text.js';

export interface LoginOptions {
  apiUrl?: string;
  /** Read the key from standard input (a pipe), not from a hidden prompt. */
  withKey: boolean;
  /** false (--no-keychain): keep the key in the 0600 credentials file. */
  keychain: boolean;
}

type TtyIn = NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };

class Cancelled extends Error {}

/** One visible line from the terminal (the API URL). */
async function askLine(question: string, io: CommandIO): Promise<string> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      rl.once('SIGINT', () => reject(new Cancelled()));
      rl.once('close', () => reject(new Cancelled()));
    });
  } finally {
    rl.close();
  }
}

/**
 * Reads a line from the terminal without echoing it: raw mode, our own line editing
 * (backspace, Ctrl-U), Ctrl-C cancels. Escape sequences (arrow keys) are skipped.
 */
export function readHidden(prompt: string, io: CommandIO): Promise<string> {
  const stdin = io.stdin as TtyIn;
  io.stderr.write(prompt);
  const wasRaw = Boolean(stdin.isRaw);
  stdin.setRawMode?.(true);
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let value = '';
    let escape: 'none' | 'esc' | 'csi' = 'none';
    const finish = (fn: () => void) => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.setRawMode?.(wasRaw);
      stdin.pause();
      io.stderr.write('\n');
      fn();
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (escape === 'esc') {
          escape = ch === '[' || ch === 'O' ? 'csi' : 'none';
          continue;
        }
        if (escape === 'csi') {
          if (ch >= '@' && ch <= '~') escape = 'none';
          continue;
        }
        if (ch === '\r' || ch === '\n') return finish(() => resolve(value));
        if (ch === '\u0003') return finish(() => reject(new Cancelled()));
        if (ch === '\u0004' && !value) return finish(() => reject(new Cancelled()));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = '';
        else if (ch === '\u001b') escape = 'esc';
        else if (ch >= ' ') value += ch;
      }
    };
    const onEnd = () => finish(() => resolve(value));
    stdin.on('data', onData);
    stdin.on('end', onEnd);
  });
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

export async function runLogin(options: LoginOptions, io: CommandIO, deps: RemoteDeps = {}): Promise<number> {
  const fail = (message: string, code: number = EXIT.usage) => {
    io.stderr.write(`provenance: ${message}\n`);
    return code;
  };
  const tty = Boolean((io.stdin as TtyIn).isTTY);
  let apiUrl: string;
  let previous: string | undefined;
  try {
    const settings = readSettings(io.env);
    previous = settings.login?.api_url;
    let given = options.apiUrl ?? io.env.PROVENANCE_API_URL ?? settings.api_url;
    if (!given) {
      if (!tty || options.withKey) return fail('No API URL is set: give it with --api-url URL (or set PROVENANCE_API_URL).');
      given = (await askLine('API URL (e.g. https://api.example.com): ', io)).trim();
      if (!given) return fail('No API URL given.');
    }
    apiUrl = normalizeApiUrl(given);
  } catch (err) {
    if (err instanceof SettingsError) return fail(err.message);
    if (err instanceof Cancelled) return fail('Login cancelled.', EXIT.interrupted);
    throw err;
  }
  if (apiUrl.startsWith('http:') && !isLoopback(apiUrl)) {
    io.stderr.write(`provenance: warning: ${apiUrl} is plain http: the key will cross the network unencrypted. Use https:// unless this is a network you control.\n`);
  }

  let key: string;
  if (options.withKey) {
    key = (await readStream(io.stdin)).toString('utf8').trim();
  } else if (tty) {
    try {
      key = (await readHidden(`API key for ${apiUrl} (input hidden): `, io)).trim();
    } catch (err) {
      if (err instanceof Cancelled) return fail('Login cancelled.', EXIT.interrupted);
      throw err;
    }
  } else {
    return fail('Standard input is not a terminal: pipe the key in with --with-key, e.g. `provenance login --with-key < key.txt`.');
  }
  const shape = checkKeyShape(key);
  if (shape) return fail(shape);
  // The key format is the contract's (prv_ + 32 base62 + a CRC-32 checksum): a key cut short or
  // mistyped is the user's input at fault, said before anything is sent (exit 2).
  if (!isWellFormedKey(key)) {
    return fail('The key is malformed: a key is "prv_" and 38 letters or digits, the last 6 a checksum of the others; check that it was copied whole. Nothing was sent or stored.');
  }

  // The key is checked before anything is stored: a refused key leaves the old login in place.
  const client = new ApiClient({ baseUrl: apiUrl, key, sleep: deps.sleep, userAgent: USER_AGENT, maxInFlight: 1 });
  let check: Awaited<ReturnType<ApiClient['checkKey']>>;
  try {
    check = await client.checkKey();
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ProtocolError) return fail(err.message, EXIT.unreadable);
    throw err;
  } finally {
    await client.close();
  }
  if (!check.valid) return fail(`The API at ${apiUrl} refused the key: ${printable(check.message ?? 'authentication failed')} Nothing was stored.`, EXIT.unreadable);

  try {
    const saved = await saveKey(io.env, apiUrl, key, { noKeychain: !options.keychain, deps });
    const store = await openSettings(io.env);
    store.set('api_url', apiUrl);
    store.set('login', { api_url: apiUrl, key_store: saved.store });
    if (previous && previous !== apiUrl) await deleteKey(io.env, previous, deps);

    const out: string[] = [`Logged in to ${apiUrl}.`];
    if (saved.store === 'keychain') out.push(`The key is stored in ${saved.where}.`);
    else out.push(`The key is stored in ${saved.where} (mode 0600): ${saved.fallbackReason}.`);
    if (previous && previous !== apiUrl) out.push(`The key for ${previous} was removed.`);
    out.push(check.quota ? `Quota: ${describeQuota(check.quota)}.` : 'Quota: the API sent no quota headers.');
    if (check.rateLimited) out.push("The key's burst limit is reached at the moment: checks will wait until it frees up.");
    out.push('The check spent no API call. `provenance check` now runs with this API (--local: on this machine).');
    io.stdout.write(`${out.join('\n')}\n`);
  } catch (err) {
    if (err instanceof CredentialsError || err instanceof SettingsError) return fail(err.message, EXIT.unreadable);
    throw err;
  }
  if (io.env.PROVENANCE_API_KEY) io.stderr.write('provenance: note: PROVENANCE_API_KEY is set, and overrides the stored key while it is.\n');
  return EXIT.ok;
}
