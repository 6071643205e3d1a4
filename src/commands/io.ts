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
  usage: 2,
} as const;

export function processIO(): CommandIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in env && env.NO_COLOR !== '');
}
