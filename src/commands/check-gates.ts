// The checks `provenance check` makes around a scan so that a user (and a CI job) is never left
// guessing: a --fail-on that could never fire, a worker count past what helps, standard input
// read from a terminal, and a run that checked no file. Kept apart from check.ts, which runs
// the scan itself.
import { availableParallelism } from 'node:os';
import type { FailCondition } from '../engine/fail-on.js';
import { STDIN } from '../engine/inputs.js';
import { MAX_WORKERS_PER_CORE, scanWindow, scanWorkers } from '../library/scan-pool.js';
import type { CommandIO } from './io.js';

/** Why a --fail-on can never fire (its check does not run), as a usage error; else undefined. */
export function idleFailOn(failOn: readonly FailCondition[], checksRun: readonly string[]): string | undefined {
  // A verdict is made from whichever checks ran, so a verdict= condition is never idle.
  const idle = failOn.find((c) => c.check !== 'verdict' && !checksRun.includes(c.check));
  if (!idle) return undefined;
  return `--fail-on ${idle.check}=${idle.result}: the ${idle.check} check does not run (--checks ${checksRun.join(',')}), so it could never fire; add ${idle.check} to --checks.`;
}

/**
/**
 * How a local scan of many inputs runs for `--concurrency requested` on `cores` cores: its worker
 * threads (library/scan-pool.ts's cap, as the library's scan() has it; 1 checks in this thread)
 * and the files in flight at once. The second depends on the cores alone, never on the worker
 * count, so a large --concurrency cannot make a scan hold more files or results in memory.
 */
export function localScanBounds(requested: number, cores: number): { workers: number; inFlight: number } {
  const workers = scanWorkers(requested, cores);
  return { workers, inFlight: workers === 1 ? 1 : scanWindow(cores) };
}

/**
 * The worker count to start: --concurrency, capped at MAX_WORKERS_PER_CORE per core by the rule
 * the library's scan() follows too (library/scan-pool.ts), with a notice when it cuts.
 */
export function cappedWorkers(requested: number, io: CommandIO): number {
  const cores = availableParallelism();
  const { workers } = localScanBounds(requested, cores);
  if (workers < requested) io.stderr.write(`provenance: --concurrency ${requested} is more than ${MAX_WORKERS_PER_CORE} worker threads per core; using ${workers} (${cores} cores).\n`);
  return workers;
}

/** `check -` on a terminal would otherwise wait in silence for what the user types. */
export function announceTerminalStdin(inputs: readonly string[], filesFrom: string | undefined, io: CommandIO): void {
  if (!(inputs.includes(STDIN) || filesFrom === STDIN) || !(io.stdin as { isTTY?: boolean }).isTTY) return;
  const what = filesFrom === STDIN ? 'a list of paths' : 'the file';
  io.stderr.write(`provenance: reading ${what} from standard input (the terminal) until Ctrl-D.\n`);
}

/**
 * A run that checked no file (an empty folder, an --include that matches nothing) says so, and
 * with --fail-on it fails (unless --allow-empty) rather than passing unseen. true: exit 4.
 */
export function emptyRunFails(
  counts: { checked: number; unreadable: number },
  options: { failOn: number; allowEmpty?: boolean; filtered: boolean },
  io: CommandIO,
): boolean {
  if (counts.checked > 0) return false;
  const fails = options.failOn > 0 && !options.allowEmpty;
  const consequence = fails ? ' With --fail-on that is exit 4 (--allow-empty to accept it).' : '';
  if (counts.unreadable === 0) {
    const hint = options.filtered ? ' (do --include/--exclude match any file?)' : '';
    io.stderr.write(`provenance: no file was checked: the inputs held no files${hint}.${consequence}\n`);
  } else if (fails) {
    io.stderr.write('provenance: no file was checked: with --fail-on that is exit 4 (--allow-empty to accept it).\n');
  }
  return fails;
}
