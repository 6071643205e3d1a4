// Test mode (`provenance daemon start --test-mode`): the test clock, forced answers and the
// state-wide operations a client's test suite scripts. The request log is kept in either mode
// (operators want to see what a client sent too); the clock moves and forced answers work only
// in test mode, so a real deployment can be neither time-travelled nor made to fail on request.
import { join } from 'node:path';
import { readdirSync, rmSync } from 'node:fs';
import type { Clock } from '../contract/time.js';
import type { Store, StoreSnapshot } from '../store/store.js';
import { latestEventMs } from './latest-event.js';
import { RequestLog } from './request-log.js';
import { checkSnapshot } from './snapshot-check.js';
import { ClockError, TestClock, type ClockAction, type ClockView } from './test-clock.js';
import { TEST_MODE_FLAG } from './forced-answers.js';
import { readClockFile, writeClockFile } from './clock-file.js';

/** What a --test-mode start found saved: the frozen time, and where it was resumed (later if the state records later events). */
export interface RestoredClock {
  saved: string;
  now: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An action that needs --test-mode on a daemon without it. */
export class TestModeRequiredError extends Error {
  constructor(what: string) {
    super(`${what} works only on a daemon started with ${TEST_MODE_FLAG}; this daemon runs without it.`);
  }
}

export class TestMode {
  readonly clock: TestClock;
  readonly log = new RequestLog();
  /** Set by restoreClock when a --test-mode start resumed a saved clock (the start prints it). */
  restored: RestoredClock | undefined;
  private readonly resetHooks: Array<() => void> = [];

  /**
   * @param clockFile where a frozen test clock is saved and restored from (test-clock.json in
   *   the data dir); without one the clock lives in memory only.
   */
  constructor(
    readonly enabled: boolean,
    private readonly realNow: Clock,
    private readonly clockFile?: string,
  ) {
    this.clock = new TestClock(realNow);
  }

  /**
   * At a --test-mode start: freezes the clock where the last --test-mode run left it. Never
   * before an event the state records (one an offline seed or import added since): then the
   * clock resumes at that event, and the file says so. Without test mode the file is ignored.
   */
  async restoreClock(store: Store): Promise<RestoredClock | undefined> {
    if (!this.enabled || !this.clockFile) return undefined;
    const saved = readClockFile(this.clockFile);
    if (saved === undefined) return undefined;
    const at = Math.max(saved, latestEventMs(await store.exportState()));
    if (at !== saved) writeClockFile(this.clockFile, at);
    this.clock.freeze(at);
    this.restored = { saved: iso(saved), now: iso(at) };
    return this.restored;
  }

  /** The daemon's clock: the test clock in test mode, else the real (or injected) one. */
  get now(): Clock {
    return this.enabled ? this.clock.now : this.realNow;
  }

  clockView(): ClockView & { test_mode: boolean } {
    return { ...(this.enabled ? this.clock.view() : { now: this.realNow().toISOString(), mode: 'real' as const }), test_mode: this.enabled };
  }

  /**
   * How long a detect of `bytes` holds its worker before its checks (AppOptions.testDetectHold),
   * undefined when not at all. Only a test-mode app has a hold: buildApp refuses one otherwise,
   * and a daemon started from the command line never has one.
   */
  detectHold(bytes: Uint8Array): number | undefined {
    return this.enabled ? this.holds?.(bytes) : undefined;
  }

  /** Sets the hold detectHold reads; refused without test mode. */
  holdDetects(holds: (bytes: Uint8Array) => number | undefined): void {
    if (!this.enabled) throw new TestModeRequiredError('Holding detects on their workers');
    this.holds = holds;
  }

  private holds?: (bytes: Uint8Array) => number | undefined;

  /** Registers in-memory state that `daemon reset` must forget too (e.g. sign-in limits). */
  onReset(hook: () => void): void {
    this.resetHooks.push(hook);
  }

  /** Forgets what lives only in memory: the request log and the registered state. */
  forgetMemory(): void {
    this.log.clear();
    for (const hook of this.resetHooks) hook();
  }

  async moveClock(store: Store, change: ClockAction): Promise<ClockView & { test_mode: boolean }> {
    if (!this.enabled) throw new TestModeRequiredError('The test clock');
    const latest = latestEventMs(await store.exportState(), [this.log.latestTime()]);
    const target = this.clock.target(change, latest);
    // Saved before it moves: a clock the next start could not restore must not move at all.
    if (this.clockFile) {
      try {
        writeClockFile(this.clockFile, target);
      } catch (err) {
        throw new ClockError(`The test clock could not be saved in ${this.clockFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); it did not move.`);
      }
    }
    this.clock.freeze(target);
    return this.clockView();
  }

  /**
   * Refuses, in test mode, a state that records an event after the daemon's clock: the clock
   * would then stand before its own state's events, which no move of it may cause. (Outside test
   * mode the clock is real time, whatever a state records.)
   */
  checkImport(snapshot: StoreSnapshot): void {
    if (!this.enabled) return;
    const latest = latestEventMs(snapshot);
    const now = this.clock.now().getTime();
    if (latest > now) {
      throw new ClockError(
        `The state records an event at ${iso(latest)}, after this daemon's test clock (${iso(now)}); nothing was imported. Move the clock first (provenance daemon clock set ${iso(latest)}), then import.`,
      );
    }
  }
}

/** Deletes upload files no record points to, except uploads still streaming (.part). */
function removeUnrecordedUploads(uploadsDir: string, recorded: Set<string>): void {
  let names: string[];
  try {
    names = readdirSync(uploadsDir);
  } catch {
    return;
  }
  for (const name of names) if (!recorded.has(name) && !name.endsWith('.part')) rmSync(join(uploadsDir, name), { force: true });
}

/** `daemon reset`: the store's reset, the removed uploads' files, and a running daemon's memory. */
export async function resetState(store: Store, uploadsDir: string | undefined, keepAccounts: boolean, testing?: TestMode): Promise<{ reset: true; kept_accounts: boolean }> {
  await store.reset({ keepAccounts });
  if (uploadsDir) removeUnrecordedUploads(uploadsDir, await store.uploadFiles());
  testing?.forgetMemory();
  await store.commit();
  return { reset: true, kept_accounts: keepAccounts };
}

/**
 * `daemon import`: a checked snapshot replaces the state (FixtureError lists what is wrong; on a
 * running --test-mode daemon, ClockError when the state is ahead of its clock).
 */
export async function importState(store: Store, uploadsDir: string | undefined, doc: unknown, testing?: TestMode): Promise<{ imported: Record<string, number> }> {
  const snapshot = checkSnapshot(doc);
  testing?.checkImport(snapshot);
  await store.importState(snapshot);
  if (uploadsDir) removeUnrecordedUploads(uploadsDir, await store.uploadFiles());
  await store.commit();
  return {
    imported: {
      accounts: snapshot.accounts.length,
      keys: snapshot.keys.length,
      usage: snapshot.usage.length,
      uploads: snapshot.uploads.length,
      sessions: snapshot.sessions.length,
      signin_tokens: snapshot.signin_tokens.length,
    },
  };
}
