// Commands take their streams, so tests can run them without a subprocess (DESIGN "commands").
export interface CommandIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export const EXIT = {
  ok: 0,
  /** Some input could not be read; every other input was checked. */
  unreadable: 1,
  /** Standard output could not be written (a full or failing disk; output-guard.ts). */
  outputFailed: 1,
  usage: 2,
  /** Remote checks: the API's monthly quota is used up; the inputs not checked are listed. */
  quotaExceeded: 3,
  /** --fail-on: some file's check came out as the named result. */
  failOn: 4,
  /** Ctrl-C or SIGTERM: stopped early (128 + SIGINT, as shells report it). */
  interrupted: 130,
  /** A defect: an error no command handles (bin/provenance.js sets it; EX_SOFTWARE of sysexits.h). */
  internalError: 70,
} as const;

export function processIO(): CommandIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/**
 * Runs a command body; an error `isUsage` recognises (bad input, a bad setting) becomes one
 * `provenance: message` line and exit code 2 (or the error's own `exitCode`), and anything else propagates as the defect it is.
 */
export async function usageErrorsReported(io: CommandIO, isUsage: (err: unknown) => boolean, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (!isUsage(err)) throw err;
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    // An error may say it is not the user's input at fault (a folder that cannot be written: 1).
    return (err as { exitCode?: number }).exitCode ?? EXIT.usage;
  }
}

/**
 * A CI run: CI (or CONTINUOUS_INTEGRATION) set to anything but `0` or `false`, even empty. The
 * same rule as ink's (the is-in-ci package), which draws only a last frame in CI: a display we
 * started under a CI that ink saw, or the other way round, would be drawn wrong.
 */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const set = (key: string) => key in env && env[key] !== '0' && env[key] !== 'false';
  return set('CI') || set('CONTINUOUS_INTEGRATION');
}

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in env && env.NO_COLOR !== '');
}
