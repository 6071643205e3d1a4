// `provenance config get|set|unset|list|path`: the settings in config.json (conf). The API key
// is not a setting: `provenance login` keeps it in the OS keychain or the 0600 credentials file.
import { isAbsolute, resolve } from 'node:path';
import { configDir } from '../config/paths.js';
import { readAnchorFile, TrustAnchorError } from '../config/trust-store.js';
import { openSettings, readSettings, SETTABLE, settingsPath, SettingsError, type Settings } from '../config/settings.js';
import { EXIT, usageErrorsReported, type CommandIO } from './io.js';

const DEFAULTS: Record<string, string | boolean> = { cache: true, incremental: false, catalogue: 'full' };

class ConfigUsage extends Error {}

function knownKey(key: string): void {
  if (/^(api_)?key$|secret|token|password/i.test(key)) {
    throw new ConfigUsage('The API key is not a setting: run `provenance login` (it goes to the OS keychain, or a 0600 credentials file).');
  }
  if (key === 'login' || key.startsWith('login.')) throw new ConfigUsage('login is written by `provenance login` and `provenance logout` only.');
  if (!(key in SETTABLE)) throw new ConfigUsage(`Unknown setting "${key}". Settings: ${Object.keys(SETTABLE).join(', ')}.`);
}

/** Every setting as key/value rows, the login record flattened, defaults filled in. */
function rows(settings: Settings): { key: string; value: unknown; default?: boolean }[] {
  const out: { key: string; value: unknown; default?: boolean }[] = [];
  for (const key of Object.keys(SETTABLE)) {
    const value = (settings as Record<string, unknown>)[key];
    if (value !== undefined) out.push({ key, value });
    else if (key in DEFAULTS) out.push({ key, value: DEFAULTS[key], default: true });
  }
  if (settings.login) {
    out.push({ key: 'login.api_url', value: settings.login.api_url }, { key: 'login.key_store', value: settings.login.key_store });
  }
  return out;
}

function guarded(io: CommandIO, fn: () => Promise<number>): Promise<number> {
  return usageErrorsReported(io, (err) => err instanceof ConfigUsage || err instanceof SettingsError, fn);
}

export function runConfigGet(options: { key: string }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const settings = readSettings(io.env);
    const row = rows(settings).find((r) => r.key === options.key);
    if (!row) {
      if (!options.key.startsWith('login')) knownKey(options.key);
      return EXIT.unreadable; // known but unset, as `git config` says it: exit 1, nothing printed
    }
    io.stdout.write(`${String(row.value)}\n`);
    return EXIT.ok;
  });
}

export function runConfigSet(options: { key: string; value: string }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    knownKey(options.key);
    let value = SETTABLE[options.key]!.parse(options.value);
    // A trust_anchors file that cannot be read would make every later local check fail: refuse
    // it now, where the mistake is made. A relative path is taken from the working directory, as
    // a shell user means it, and stored absolute, so it names the same file from anywhere.
    if (options.key === 'trust_anchors' && typeof value === 'string') {
      const given = value;
      const file = resolve(given);
      value = file;
      try {
        readAnchorFile(file, isAbsolute(given) ? given : `${given} (${file})`);
      } catch (err) {
        if (err instanceof TrustAnchorError) throw new ConfigUsage(`trust_anchors: ${err.message} Nothing was changed.`);
        throw err;
      }
    }
    const store = await openSettings(io.env);
    store.set(options.key, value);
    return EXIT.ok;
  });
}

export function runConfigUnset(options: { key: string }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    knownKey(options.key);
    const store = await openSettings(io.env);
    store.delete(options.key);
    return EXIT.ok;
  });
}

export function runConfigList(options: { json: boolean }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const settings = readSettings(io.env);
    if (options.json) {
      const filled: Record<string, unknown> = { ...DEFAULTS, ...settings };
      io.stdout.write(`${JSON.stringify(filled)}\n`);
      return EXIT.ok;
    }
    for (const r of rows(settings)) io.stdout.write(`${r.key}=${String(r.value)}${r.default ? '  (default)' : ''}\n`);
    return EXIT.ok;
  });
}

export function runConfigPath(_options: Record<string, never>, io: CommandIO): Promise<number> {
  io.stdout.write(`${settingsPath(io.env)}\n`);
  return Promise.resolve(EXIT.ok);
}
