// `--log-level` and `--log-format`'s values: a module of its own, without imports, so that the
// CLI's flag definitions (commands/daemon-cli.ts, in the start-up bundle) load nothing of the daemon.

/** pino's levels, `silent` for none. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON line each (the default); `pretty`: one human-readable line (log-pretty.ts). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
