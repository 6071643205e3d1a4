// `check` against a /v1 API: the same Checker as the local engine's (checker.ts), so the command
// writes the same lines in the same order. Loaded only when a run goes remote: it brings undici.
//
// Per input: a cache hit (SHA-256 + checks + API URL) spends nothing; a file up to 4 MB goes as
// multipart, a larger one (up to 25 MB) through POST /v1/uploads and then by upload id; an
// http(s) input is sent as `url`. XMP hints are read here, from the local bytes, as locally.
// When the API says the quota is used up, the key is refused, or it cannot be reached at all,
// nothing more is sent: every input not yet checked gets an error line, and check.ts lists them.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ResultCache } from '../client/cache.js';
import { ApiError, AuthenticationError, NetworkError, ProtocolError, QuotaExceededError } from '../client/errors.js';
import { describeQuota, type QuotaInfo } from '../client/quota.js';
import { detectFileBytes, exceedsApiLimit } from '../client/send-file.js';
import { describeKeySource, openSession, SessionError, type RemoteDeps, type Session } from '../client/session.js';
import { cacheDir } from '../config/paths.js';
import { LOCAL_INSTEAD } from '../config/remote.js';
import { resolveChecks } from '../engine/checks.js';
import type { FsPath } from '../engine/byte-paths.js';
import { expandInputs, readInput, type ExpandOptions, type InputItem } from '../engine/inputs.js';
import { readHints } from '../media/xmp-hints.js';
import type { DetectionResult, ErrorInfo } from '../types.js';
import type { Style } from '../ui/style.js';
import type { Checker, Outcome } from '../library/checker.js';
import { EXIT, type CommandIO } from './io.js';
import { printable } from '../ui/terminal-text.js';

/** An http(s) input: the API downloads it (counts as a call even when the download fails). */
export interface UrlItem {
  source: string;
  kind: 'url';
  url: string;
}

export type CheckItem = InputItem | UrlItem;

export function isHttpUrl(input: string): boolean {
  return /^https?:\/\/\S+$/i.test(input);
}

/** Why sending stopped, and the exit code the run ends with. */
export interface Stop {
  kind: 'quota_exceeded' | 'authentication_error' | 'network_error';
  message: string;
  exit: number;
  quota?: QuotaInfo;
}

export interface RemoteCheckOptions {
  checks?: string[];
  /** false: neither read nor write the cache; 'refresh' (--no-cache): write but do not read. */
  cache: boolean | 'refresh';
  /** Requests in flight at once (default 4). */
  maxInFlight?: number;
  deps?: RemoteDeps;
}

export interface RemoteChecker extends Checker {
  check(item: CheckItem): Promise<Outcome>;
  readonly apiUrl: string;
  readonly session: Session;
  /** Results a window of this size keeps the requests busy without holding many files. */
  readonly window: number;
  /** Set once nothing more is sent. */
  stop?: Stop;
  /** true for an outcome of an input that was not sent because of `stop`. */
  wasNotChecked(outcome: Outcome): boolean;
  /** Files, folders and `-` as locally; http(s) inputs pass through as UrlItems. */
  expand(inputs: AsyncIterable<FsPath>, options: ExpandOptions): AsyncGenerator<CheckItem>;
  formatError(source: string, error: ErrorInfo, s: Style): string;
  /** The closing lines on stderr once sending stopped: why, and the inputs not checked. */
  stopReport(notChecked: string[]): string;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The checker for a remote run, or the reason it cannot start (not logged in, ...: exit 2).
 * A reason, not a thrown SessionError: this module is its own bundle (scripts/build.mjs), so
 * the caller could not tell that class by instanceof.
 */
export async function openRemoteChecker(options: RemoteCheckOptions, io: CommandIO): Promise<RemoteChecker | { usageError: string }> {
  try {
    return await open(options, io);
  } catch (err) {
    if (err instanceof SessionError) return { usageError: err.message };
    throw err;
  }
}

async function open(options: RemoteCheckOptions, io: CommandIO): Promise<RemoteChecker> {
  const maxInFlight = options.maxInFlight ?? 4;
  const session = await openSession(io.env, {
    maxInFlight,
    instead: LOCAL_INSTEAD,
    deps: options.deps,
    onRateLimited: (seconds, error) => {
      // One line per wait; the client holds every request back while it waits.
      const limit = error.quota?.burst?.limit;
      io.stderr.write(
        `provenance: rate limited by the API${limit ? ` (${limit} requests a minute for this key)` : ''}; waiting ${seconds} s as its Retry-After says, then sending again.\n`,
      );
    },
  });
  if (session.warning) io.stderr.write(`provenance: warning: ${session.warning}\n`);
  const { client, apiUrl } = session;
  const cache = options.cache === false ? undefined : new ResultCache(cacheDir(io.env), apiUrl);
  const readCache = options.cache === true;
  // The cache key uses the canonical list (catalogue order, all when none are named), as the API
  // runs them: `--checks camera_reference,c2pa` and `--checks c2pa,camera_reference` share entries.
  const cacheChecks: string[] = resolveChecks(options.checks);
  const notChecked = new WeakSet<Outcome>();

  const halt = (stop: Stop, reason: Error) => {
    checker.stop ??= stop;
    client.stopSending(reason);
  };
  const skipped = (source: string): Outcome => {
    const stop = checker.stop!;
    const outcome: Outcome = { source, ok: false, error: { type: stop.kind, message: `Not checked: ${stop.message}` }, inputError: false };
    notChecked.add(outcome);
    return outcome;
  };
  const failed = (source: string, error: ErrorInfo, inputError = false): Outcome => ({ source, ok: false, error, inputError });

  /** An outcome for a request that failed; stops the run where nothing more can succeed. */
  const onError = (source: string, err: unknown): Outcome => {
    if (err instanceof QuotaExceededError) {
      const quota = err.quota ?? client.lastQuota;
      halt({
        kind: 'quota_exceeded',
        message: `the monthly quota of the API at ${apiUrl} is used up${quota ? ` (${describeQuota(quota)})` : ''}.`,
        exit: EXIT.quotaExceeded,
        quota,
      }, err);
      return skipped(source);
    }
    if (err instanceof AuthenticationError) {
      halt({
        kind: 'authentication_error',
        message: `the API at ${apiUrl} refused the key from ${describeKeySource(session.keyFrom)} (${err.message}) Log in again with \`provenance login\`.`,
        exit: EXIT.usage,
      }, err);
      return skipped(source);
    }
    if (err instanceof NetworkError && !err.maybeSent) {
      halt({ kind: 'network_error', message: err.message, exit: EXIT.unreadable }, err);
      return skipped(source);
    }
    if (err instanceof ApiError || err instanceof NetworkError || err instanceof ProtocolError) return failed(source, err.info());
    throw err;
  };

  const tooLarge = (source: string): Outcome =>
    failed(source, {
      type: 'media_too_large',
      message: `${source}: larger than the API's 25 MB limit (1 MB = 1,048,576 bytes); check it on this machine with --local.`,
    });

  // The API answers media of zero bytes with 400 (CONTRACT); said here without a request.
  const empty = (source: string): Outcome =>
    failed(source, {
      type: 'invalid_request',
      message: `${source}: empty (zero bytes); the API does not check empty media. Check it on this machine with --local.`,
    });

  // Requests leave in input order. The transport's slots are first come, first served, and a
  // check reaches them with no pause once it calls the client; but a check reads its file first,
  // and a file read sooner would otherwise overtake an earlier one: which inputs a used-up quota
  // leaves unchecked would depend on disk timing, even with --concurrency 1. So each check waits,
  // before it sends, until every earlier one has sent (taken its place in the transport's queue)
  // or finished.
  let lastTurn: Promise<void> = Promise.resolve();
  type Turn = { earlier: Promise<void>; pass: () => void };
  const takeTurn = (): Turn => {
    const earlier = lastTurn;
    let pass!: () => void;
    lastTurn = new Promise<void>((resolve) => (pass = resolve));
    return { earlier, pass };
  };

  /** One input's outcome; `turn` is waited for before anything is sent, passed once it is. */
  const checkInTurn = async (item: CheckItem, turn: Turn): Promise<Outcome> => {
    if (item.kind === 'error') return failed(item.source, item.error.toInfo(), true);
    if (item.kind === 'url') {
      await turn.earlier;
      if (checker.stop) return skipped(item.source);
      try {
        const sending = client.detectUrl(item.url, options.checks);
        turn.pass();
        return { source: item.source, ok: true, result: await sending };
      } catch (err) {
        return onError(item.source, err);
      }
    }
    if (item.kind === 'file') {
      try {
        // Refused before reading it, with this command's message (--local instead).
        if (exceedsApiLimit((await stat(item.path)).size)) return tooLarge(item.source);
      } catch {
        // readInput reports it
      }
    }
    let bytes: Uint8Array;
    try {
      bytes = await readInput(item, io.stdin);
    } catch (err) {
      const info = (err as { toInfo?: () => ErrorInfo }).toInfo?.();
      if (info) return failed(item.source, info, true);
      throw err;
    }
    if (exceedsApiLimit(bytes.byteLength)) return tooLarge(item.source);
    if (bytes.byteLength === 0) return empty(item.source);
    const sha256 = sha256Hex(bytes);
    if (cache && readCache) {
      const hit = await cache.get(sha256, cacheChecks);
      if (hit) return { source: item.source, ok: true, result: hit, hints: await readHints(bytes) };
    }
    await turn.earlier;
    if (checker.stop) return skipped(item.source);
    let result: DetectionResult;
    try {
      // Multipart up to 4 MB, else upload + detect: the function ProvenanceClient.detect uses.
      // The call reaches the transport's queue before it returns its promise.
      const sending = detectFileBytes(client, { bytes, name: item.kind === 'stdin' ? 'stdin' : basename(item.source) }, options.checks);
      turn.pass();
      result = await sending;
    } catch (err) {
      return onError(item.source, err);
    }
    if (cache && result.media?.sha256 === sha256) await cache.put(sha256, cacheChecks, result);
    return { source: item.source, ok: true, result, hints: await readHints(bytes) };
  };

  const checker: RemoteChecker = {
    apiUrl,
    session,
    window: maxInFlight * 2,
    async check(item) {
      const turn = takeTurn();
      try {
        return await checkInTurn(item, turn);
      } finally {
        turn.pass();
      }
    },
    close: () => client.close(),
    wasNotChecked: (outcome) => notChecked.has(outcome),
    async *expand(inputs, expandOptions) {
      for await (const input of inputs) {
        if (typeof input === 'string' && isHttpUrl(input)) yield { source: input, kind: 'url', url: input };
        else yield* expandInputs([input], expandOptions);
      }
    },
    formatError(source, error, s) {
      const what = error.type === 'quota_exceeded' || error.type === 'authentication_error' || error.type === 'network_error' ? 'not checked' : 'could not be checked';
      // The message and type may be the API's own words: printable(), as every string from it.
      return `${s.bold(printable(source))}\n  ${s.red(what)}: ${printable(error.message.replace(/^Not checked: /, ''))} (${printable(error.type)})\n\n`;
    },
    stopReport: (sources) => stopReport(checker.stop!, sources),
  };
  return checker;
}

function stopReport(stop: Stop, sources: string[]): string {
  const n = sources.length;
  const head = `provenance: stopped sending: ${printable(stop.message)}\n`;
  if (n === 0) return head;
  return `${head}provenance: ${n} input${n === 1 ? ' was' : 's were'} not checked:\n${sources.map((s) => `  ${printable(s)}\n`).join('')}`;
}
