// `provenance daemon start` settings from the environment (issue 27): every flag of the command
// has a variable, PROVENANCE_ + its long name in upper snake case (--max-uploads-per-account:
// PROVENANCE_MAX_UPLOADS_PER_ACCOUNT), derived from the command's options when it runs, so a
// flag added later has its variable without a line here. A flag on the command line wins; an
// empty variable counts as unset. Flags without a value (--detach, --test-mode...) take 1, 0,
// true or false and refuse anything else (exit 2), where commander's own `.env()` would take
// any value, "0" and "false" included, as "on". Older variables keep working behind these:
// PROVENANCE_DATABASE_URL after PROVENANCE_STORE (store/open-store.ts), and PROVENANCE_SMTP_URL
// and PROVENANCE_DATA_DIR are already the names this derives.
import { CommanderError, Help, InvalidArgumentError, type Command, type Option } from 'commander';
import type { CommandIO } from './io.js';
import { maskUrlSecrets } from '../engine/masked-url.js';

export const ENV_PREFIX = 'PROVENANCE_';

/** The option's variable: PROVENANCE_ + the long flag in upper snake case; none for --no-x. */
export function envNameOf(option: Option): string | undefined {
  if (!option.long || option.negate) return undefined;
  return `${ENV_PREFIX}${option.long.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`;
}

const TRUE = new Set(['1', 'true']);
const FALSE = new Set(['0', 'false']);

/** A value from the variable, as the option takes it; throws InvalidArgumentError. */
function valueFromEnv(option: Option, text: string, previous: unknown): unknown {
  const word = text.trim().toLowerCase();
  if (!option.required && !option.optional) {
    // A flag without a value: on or off, nothing else (a typo must not turn test mode on).
    if (TRUE.has(word)) return true;
    if (FALSE.has(word)) return false;
    throw new InvalidArgumentError(`must be 1, 0, true or false, not "${text}"`);
  }
  // A flag whose value may be left out (--trust-proxy [proxies]): true is the bare flag, false
  // leaves it out; anything else is its value.
  if (option.optional && TRUE.has(word) && word !== '1') return true;
  if (option.optional && word === 'false') return option.defaultValue;
  return option.parseArg ? option.parseArg(text, previous) : text;
}

/**
 * Fills the command's options from the environment where the command line left them at their
 * default, before its action runs. A bad value is one `provenance: ...` line and exit 2.
 */
export function applyEnvironment(command: Command, io: CommandIO): void {
  for (const option of command.options) {
    const name = envNameOf(option);
    if (!name) continue;
    const text = io.env[name];
    if (text === undefined || text === '') continue;
    const key = option.attributeName();
    const source = command.getOptionValueSource(key);
    if (source !== undefined && source !== 'default') continue; // the flag wins
    let value: unknown;
    try {
      value = valueFromEnv(option, text, command.getOptionValue(key));
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      const message = `${name} (for ${option.long}): ${err.message.replace(/\.$/, '')}`;
      io.stderr.write(`provenance: ${message}\n`);
      throw new CommanderError(2, 'provenance.invalidEnvironment', message);
    }
    command.setOptionValueWithSource(key, value, 'env');
  }
}

/**
 * Makes `command` read its variables before its action, and says so in its --help: each
 * option's line ends with its variable, and a paragraph gives the rules.
 */
export function withEnvironment(command: Command, io: CommandIO): Command {
  command.hook('preAction', (_self, action) => applyEnvironment(action, io));
  const inherited = command.configureHelp();
  command.configureHelp({
    ...inherited,
    optionDescription(option) {
      const base = inherited.optionDescription ? inherited.optionDescription.call(this, option) : Help.prototype.optionDescription.call(this, option);
      const name = envNameOf(option);
      return name && option.long !== '--help' ? `${base} (env: ${name})` : base;
    },
  });
  command.addHelpText(
    'after',
    `
Environment:
  Every flag can be set as PROVENANCE_ + its name in upper snake case (--max-uploads-per-account:
  PROVENANCE_MAX_UPLOADS_PER_ACCOUNT). A flag given on the command line wins over its variable; an
  empty variable is unset. Flags without a value take 1, 0, true or false (anything else: exit 2).
  --store: PROVENANCE_STORE, else PROVENANCE_DATABASE_URL. The effective settings are logged at start.`,
  );
  return command;
}

/** A URL's secrets as ***, as the store's messages show a database URL; other text unchanged. */
export const maskPassword = maskUrlSecrets;

/**
 * The settings a start runs with, for its log: every option of the command by its snake_case
 * name (sorted), with the values `resolved` overrides (the data dir found, the store from
 * PROVENANCE_DATABASE_URL...) and every URL's password masked.
 */
export function effectiveConfiguration(options: object, resolved: Record<string, unknown> = {}): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...options, ...resolved };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(merged).sort((a, b) => snake(a).localeCompare(snake(b)))) {
    const value = merged[key];
    out[snake(key)] = typeof value === 'string' ? maskPassword(value) : (value ?? null);
  }
  return out;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
