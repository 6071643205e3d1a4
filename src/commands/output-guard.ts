// What happens when standard output stops taking bytes. A reader that closed the pipe
// (`provenance check --json dir | head -1`) chose to stop: the run ends at once, quietly, with
// the exit code so far (0 mid-run), as `head`'s usual producers do without a SIGPIPE death. A
// disk that is full or failing (`> /dev/full`, ENOSPC, EIO) is a real failure: one line on
// stderr, exit 1, never a stack trace. Writes to a file or terminal fail synchronously (Node's
// SyncWriteStream throws from write), writes to a pipe with an 'error' event: both land here.
import { EXIT, type CommandIO } from './io.js';

const WORDS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  EBADF: 'standard output is not open',
  EFBIG: 'file too large',
};

export function outputErrorLine(err: NodeJS.ErrnoException): string {
  const words = (err.code && WORDS[err.code]) ?? err.message.replace(/^[A-Z]+: /, '').replace(/, write$/, '');
  return `provenance: cannot write to standard output: ${words}${err.code ? ` (${err.code})` : ''}\n`;
}

const isErrno = (err: unknown): err is NodeJS.ErrnoException => err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';

/**
 * Installs the handling on `io.stdout`. `exitCode` is the run's code so far; `exit` ends the
 * process (process.exit; a parameter so the rule can be read in one place).
 */
export function guardOutput(io: CommandIO, exitCode: () => number, exit: (code: number) => never = process.exit): void {
  let failed = false;
  const fail = (err: NodeJS.ErrnoException): void => {
    if (failed) return;
    failed = true;
    if (err.code === 'EPIPE') exit(exitCode());
    io.stderr.write(outputErrorLine(err));
    exit(EXIT.outputFailed);
  };
  io.stdout.on('error', fail);
  const stream = io.stdout as NodeJS.WritableStream;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    try {
      return write(...args);
    } catch (err) {
      if (!isErrno(err)) throw err;
      fail(err);
      return false;
    }
  }) as typeof stream.write;
}
