// How long one whole read of an object in this thread (an https:// URL, an S3 object) may take,
// from its first request to its last byte. The idle timeouts end a server that goes quiet; a
// server that sends a byte a second is never quiet, and held `check` (and a scan worker's batch)
// for as long as it liked. The deadline is a timer that aborts the requests and the body.
import { InputError } from './input-error.js';

/** The default: two minutes, as the pool's per-file limit on a file's checks. */
export const READ_DEADLINE_MS = 120_000;

/** `--read-timeout`: whole seconds, at least 1, at most an hour. */
export const READ_TIMEOUT_MAX_SECONDS = 3600;

/** Why `seconds` is no --read-timeout (whole seconds from 1 to an hour), or undefined when it is one or not given. */
export function readTimeoutProblem(seconds: number | undefined): string | undefined {
  return seconds === undefined || Number.isInteger(seconds) && seconds >= 1 && seconds <= READ_TIMEOUT_MAX_SECONDS ? undefined : `--read-timeout takes whole seconds from 1 to ${READ_TIMEOUT_MAX_SECONDS}.`;
}

/** "120 seconds", "1 second", "0.5 seconds": a deadline in the words of the messages. */
export function deadlineWords(ms: number): string {
  const seconds = ms / 1000;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

export interface ReadDeadline {
  /** Aborted when the deadline passes: give it to the requests, listen on it for the body. */
  signal: AbortSignal;
  /** Throws the deadline's error if it has passed. */
  check(used?: number, length?: number): void;
  /** The read_error for a read cut at the deadline, saying how far it came. */
  error(used?: number, length?: number): InputError;
  /** Stops the timer (the read ended). */
  done(): void;
}

/** A deadline starting now, for the read `source` names. The timer does not keep the process alive. */
export function startReadDeadline(source: string, ms: number = READ_DEADLINE_MS): ReadDeadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  timer.unref();
  const error = (used?: number, length?: number) => {
    const came =
      used === undefined ? '' : ` (${used.toLocaleString('en-US')}${length === undefined ? '' : ` of ${length.toLocaleString('en-US')}`} bytes read)`;
    return new InputError('read_error', `${source}: the read did not finish within ${deadlineWords(ms)}${came}; a whole read has that long (--read-timeout).`);
  };
  return {
    signal: controller.signal,
    check(used, length) {
      if (controller.signal.aborted) throw error(used, length);
    },
    error,
    done: () => clearTimeout(timer),
  };
}
