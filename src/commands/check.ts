// `provenance check <inputs...>`: files, folders, `-` and --files-from, through the local engine.
// One file runs in this thread (fast start); more go through a worker pool, and results are
// written as they finish but in input order, with a bounded number in flight. Once logged in to
// an API (or with --remote), the checks go there instead (remote-checker.ts, loaded only then).
import { access, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { remoteBlocker, remoteTarget, wantsRemote } from '../config/remote.js';
import { scanCacheDir } from '../config/paths.js';
import { readSettings, SettingsError } from '../config/settings.js';
import { loadRunTrust, TrustAnchorError } from '../config/trust-store.js';
import { staleListWarning } from '../config/trust-lists.js';
import { packageDataFile } from '../media/package-data.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import { CheckSelectionError, parseCatalogue, resolveChecks } from '../engine/checks.js';
import { collectPixelsOnMainThread, type DetectOptions } from '../engine/detect.js';
import { engineVersion } from '../engine/engine-version.js';
import { failuresOf, FailOnError, parseFailOn, type FailCondition } from '../engine/fail-on.js';
import type { FsPath } from '../engine/byte-paths.js';
import { openFileList, readFileList } from '../engine/file-list.js';
import { expandInputs, STDIN, type InputItem } from '../engine/inputs.js';
import { readTimeoutProblem } from '../engine/read-deadline.js';
import { makePathFilter } from '../engine/path-filter.js';
import { ReadAhead } from '../engine/read-ahead.js';
import { isHttpsUrl, isPlainHttpUrl, parseHttpsUrl } from '../engine/https-source.js';
import { isS3Url, parseS3Url } from '../engine/s3-source.js';
import { LiveProgress } from '../ui/live-progress.js';
import { ScanStats } from '../ui/scan-stats.js';
import { makeStyle } from '../ui/style.js';
import { formatScanTable } from '../ui/scan-table.js';
import { formatError, formatResult, formatSummary } from '../ui/text-report.js';
import type { RemoteDeps } from '../client/session.js';
import { HOSTED_DETECTOR_IDS, type CatalogueName, type TrustOptions } from '../types.js';
import { verdictOf } from '../verdict/verdict.js';
import { announceTerminalStdin, cappedWorkers, emptyRunFails, idleFailOn, localScanBounds } from './check-gates.js';
import { cachedChecker, inProcessChecker, poolChecker, type Checker, type Outcome } from '../library/checker.js';
import { LineBatcher } from './line-batcher.js';
import { errorLine, resultLine, signalsOf, withVerdict } from '../library/json-line.js';
import type { CheckItem, RemoteChecker } from './remote-checker.js';
import { EXIT, isCi, wantsColor, type CommandIO } from './io.js';

/** What a run reads: the inputs named, a list of more, and the filters of folders' files. */
export interface InputSelection {
  inputs: string[];
  /** `--files-from FILE|-`: more inputs, one per line (NUL-separated with `nul`). */
  filesFrom?: string;
  nul?: boolean;
  include?: string[];
  exclude?: string[];
  /** `--case-sensitive`: --include/--exclude match letter case exactly (default: any case). */
  caseSensitive?: boolean;
}

export interface CheckOptions extends InputSelection {
  checks?: string[];
  /** `--catalogue full|hosted`; undefined: the `catalogue` setting, else full. */
  catalogue?: string;
  json: boolean;
  /** `--trust-anchors FILE.pem`: used instead of the anchors stored in the user's config. */
  trustAnchors?: string;
  /** `--explain`: spell out each C2PA validation code in the readable report. */
  explain?: boolean;
  /** Worker threads; default: the available cores. 1 checks in this thread. */
  concurrency?: number;
  /** `--allow-empty`: with --fail-on, a run that checked no file is not a failure. */
  allowEmpty?: boolean;
  /** `--fail-on CHECK=RESULT`, repeatable: exit 4 when any file matches. */
  failOn?: string[];
  /** `--summary`: the counts as JSON on stderr at the end. */
  summary?: boolean;
  /** `--quiet`: no progress display. */
  quiet?: boolean;
  /** `--local`: the engine on this machine, even when logged in to an API. */
  local?: boolean;
  /** `--remote`: the API (an error when not logged in). */
  remote?: boolean;
  /** `--no-cache` (false): remote results are not read from the cache (fresh ones are still stored). */
  cache?: boolean;
  /**
   * `--incremental` (true) / `--no-incremental` (false): keep and use the scan cache for local
   * checks. Undefined: the `incremental` setting decides.
   */
  incremental?: boolean;
  /** `--cache-max SIZE`: the scan cache's size bound, e.g. `1GB` (default), `500MB`. */
  cacheMax?: string;
  /** `--read-timeout SECONDS`: one S3 object's or https:// URL's whole read, at most (default 120). */
  readTimeout?: number;
  /** Tests: timers and keychain of remote runs. */
  remoteDeps?: RemoteDeps;
  /** `--html FILE`: also write the scan report as one self-contained HTML file (docs/REPORT.md). */
  html?: string;
}

/** Inputs the walk may run ahead of the checks (for the progress total), at most. */
const READ_AHEAD = 10_000;

class UsageError extends Error {}

interface Plan {
  checks?: string[];
  catalogue: CatalogueName;
  failOn: FailCondition[];
  /** The C2PA lists (paths) and the anchors added by hand, or --trust-anchors alone. */
  trust: TrustOptions;
  concurrency: number;
  /** Checks go to the API (settled from flags, environment and config.json; no keychain read). */
  remote: boolean;
  /** The `cache` setting (config.json): false turns the remote result cache off. */
  cacheSetting: boolean;
  /** Local checks with the scan cache (--incremental or the setting); its size bound in bytes. */
  incremental?: { maxBytes?: number };
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** `1GB`, `500MB`, `2GiB`, `1500000` (bytes): a size in bytes, or undefined when not one. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) return undefined;
  const bytes = Math.round(Number(m[1]) * unit);
  return bytes >= 1 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** `--catalogue`, else the `catalogue` setting, else full. */
function chosenCatalogue(options: CheckOptions, io: CommandIO): CatalogueName {
  try {
    if (options.catalogue !== undefined) return parseCatalogue(options.catalogue);
    const setting = readSettings(io.env).catalogue;
    return setting === undefined ? 'full' : parseCatalogue(setting);
  } catch (err) {
    if (err instanceof CheckSelectionError) throw new UsageError(`${options.catalogue !== undefined ? '--catalogue' : 'the catalogue setting'}: ${err.message}`);
    if (err instanceof SettingsError) throw new UsageError(err.message);
    throw err;
  }
}

async function plan(options: CheckOptions, io: CommandIO): Promise<Plan> {
  const catalogue = chosenCatalogue(options, io);
  let checksRun: string[];
  try {
    checksRun = resolveChecks(options.checks, catalogue);
  } catch (err) {
    if (err instanceof CheckSelectionError) throw new UsageError(`--checks: ${err.message}`);
    throw err;
  }
  let failOn: FailCondition[];
  try {
    failOn = parseFailOn(options.failOn ?? []);
  } catch (err) {
    if (err instanceof FailOnError) throw new UsageError(err.message);
    throw err;
  }
  const outside = catalogue === 'hosted' ? failOn.find((c) => c.check !== 'verdict' && !checksRun.includes(c.check) && !(HOSTED_DETECTOR_IDS as readonly string[]).includes(c.check)) : undefined;
  if (outside) throw new UsageError(`--fail-on ${outside.check}=${outside.result}: the ${outside.check} check is not in the hosted catalogue (--catalogue hosted), so it could never fire.`);
  const idle = idleFailOn(failOn, checksRun);
  if (idle) throw new UsageError(idle);
  const concurrency = options.concurrency ?? availableParallelism();
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new UsageError('--concurrency takes a whole number from 1 to 256.');
  }
  const stdinUses = options.inputs.filter((i) => i === STDIN).length + (options.filesFrom === STDIN ? 1 : 0);
  if (stdinUses > 1) throw new UsageError('standard input (-) can be used only once (as an input or as --files-from -).');
  if (options.inputs.length === 0 && !options.filesFrom) throw new UsageError('name at least one file, folder or -, or use --files-from.');
  if (options.nul && !options.filesFrom) throw new UsageError('-0/--null goes with --files-from.');
  // A malformed s3:// URL on the command line is a typing error, said before anything runs (one
  // in a --files-from list is that input's error line).
  for (const input of options.inputs) {
    if (!isS3Url(input)) continue;
    try {
      parseS3Url(input);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  if (options.filesFrom && options.filesFrom !== STDIN) {
    try {
      await access(options.filesFrom);
      if (!(await stat(options.filesFrom)).isFile()) throw new Error('not a file');
    } catch {
      throw new UsageError(`--files-from: cannot read ${options.filesFrom}.`);
    }
  }
  // Local or remote: flags, then PROVENANCE_API_KEY / a stored login (config.json, plain fs).
  if (options.local && options.remote) throw new UsageError('--local and --remote cannot be used together.');
  let remote = false;
  let cacheSetting = true;
  let incrementalSetting = false;
  if (!options.local) {
    try {
      const target = remoteTarget(io.env);
      remote = wantsRemote(target, options);
      cacheSetting = target.settings.cache !== false;
      incrementalSetting = target.settings.incremental === true;
      const blocker = remote ? remoteBlocker(target) : undefined;
      if (blocker) throw new UsageError(blocker);
    } catch (err) {
      if (err instanceof SettingsError) throw new UsageError(err.message);
      throw err;
    }
  }
  if (remote) {
    if (options.trustAnchors) throw new UsageError('--trust-anchors is for checks on this machine: add --local (the API validates signers with its own anchors).');
    // The setting alone is no error: the API's results are cached by SHA-256 already.
    if (options.incremental) throw new UsageError('--incremental is for checks on this machine: add --local (results from the API are cached by SHA-256 already).');
    if (options.cacheMax !== undefined) throw new UsageError('--cache-max goes with --incremental, which is for checks on this machine.');
    if (options.readTimeout !== undefined) throw new UsageError('--read-timeout is for reads on this machine: add --local (the API downloads URLs itself, within its own limits).');
    // The API runs every detector it has when no checks are named: name the hosted five, so that
    // a daemon with the full catalogue runs exactly those too.
    const checks = options.checks ?? (catalogue === 'hosted' ? [...HOSTED_DETECTOR_IDS] : undefined);
    return { checks, catalogue, failOn, trust: {}, concurrency, remote, cacheSetting };
  }
  const timeoutProblem = readTimeoutProblem(options.readTimeout);
  if (timeoutProblem) throw new UsageError(timeoutProblem);
  // On this machine, an http:// or malformed https:// argument is a typing error too, said
  // before any request (the API, above, is sent URLs as they are and judges them itself).
  for (const input of options.inputs) {
    if (!isHttpsUrl(input) && !isPlainHttpUrl(input)) continue;
    try {
      parseHttpsUrl(input);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  if (options.local) {
    try {
      incrementalSetting = readSettings(io.env).incremental === true;
    } catch (err) {
      if (err instanceof SettingsError) throw new UsageError(err.message);
      throw err;
    }
  }
  let incremental: Plan['incremental'];
  if (options.incremental ?? incrementalSetting) {
    const maxBytes = options.cacheMax === undefined ? undefined : parseSize(options.cacheMax);
    if (options.cacheMax !== undefined && maxBytes === undefined) throw new UsageError(`--cache-max: "${options.cacheMax}" is not a size; give bytes or a size such as 500MB or 2GB.`);
    incremental = { maxBytes };
  } else if (options.cacheMax !== undefined) {
    throw new UsageError('--cache-max goes with --incremental (or the incremental setting).');
  }
  // Trust anchors: --trust-anchors alone, else the C2PA lists (paths only: read where a manifest
  // is found) and those added by hand.
  let trust: TrustOptions;
  try {
    trust = loadRunTrust({ file: options.trustAnchors, env: io.env, bundledDir: packageDataFile('c2pa') });
  } catch (err) {
    if (err instanceof TrustAnchorError) throw new UsageError(`${options.trustAnchors ? '--trust-anchors: ' : ''}${err.message}`);
    throw err;
  }
  const stale = trust.trustLists && staleListWarning(trust.trustLists, new Date());
  if (stale) io.stderr.write(`provenance: ${stale}\n`);
  return { checks: options.checks, catalogue, failOn, trust, concurrency, remote, cacheSetting, incremental };
}

/** One plain file (or stdin) named alone: check it in this thread and skip the pool's start-up. */
async function isSingleFile(options: CheckOptions): Promise<boolean> {
  if (options.filesFrom || options.inputs.length !== 1) return false;
  const [only] = options.inputs as [string];
  if (only === STDIN) return true;
  // An s3:// input may be a prefix of many objects: the pool, as for a folder. An https:// URL is
  // one input, read here.
  if (isS3Url(only)) return false;
  if (isHttpsUrl(only)) return true;
  try {
    return (await stat(only)).isFile();
  } catch {
    return true; // a missing file is one error line either way
  }
}

async function* allInputs(options: CheckOptions, stdin: NodeJS.ReadableStream): AsyncGenerator<FsPath> {
  yield* options.inputs;
  if (options.filesFrom) yield* readFileList(openFileList(options.filesFrom, stdin), Boolean(options.nul));
}

/** A terminal on stderr, not CI, not --quiet: the live display (for a while) and the table. */
function showsProgress(options: CheckOptions, io: CommandIO): boolean {
  return Boolean(io.stderr.isTTY) && !options.quiet && !isCi(io.env);
}

export async function runCheck(options: CheckOptions, io: CommandIO): Promise<number> {
  /** For the scan cache's racy-timestamp rule: files modified since (or just before) are not stored. */
  const scanStartedAt = Date.now();
  let p: Plan;
  try {
    p = await plan(options, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`provenance: ${err.message}\n`);
    return EXIT.usage;
  }

  const detectOptions: DetectOptions = {
    checks: p.checks,
    ...(p.catalogue === 'hosted' ? { catalogue: p.catalogue } : {}),
    ...p.trust,
  };
  let remote: RemoteChecker | undefined;
  let checker: Checker;
  let inProcess = false;
  /** One input named alone: its report is the whole answer, with nothing to watch. */
  const single = await isSingleFile(options);
  if (p.remote) {
    const { openRemoteChecker } = await import('./remote-checker.js');
    const cache = !p.cacheSetting ? false : options.cache === false ? 'refresh' : true;
    const opened = await openRemoteChecker({ checks: p.checks, cache, maxInFlight: options.concurrency, deps: options.remoteDeps }, io);
    if ('usageError' in opened) {
      io.stderr.write(`provenance: ${opened.usageError}\n`);
      return EXIT.usage;
    }
    checker = remote = opened;
    // Said with --json too: each file sent spends a call, and the NDJSON on stdout would not show it.
    if (!options.quiet) io.stderr.write(`provenance: checking with the API at ${remote.apiUrl} (--local checks on this machine).\n`);
  } else {
    inProcess = p.concurrency === 1 || single;
    // Many files in this thread: it collects each one's pixels once checked (engine/detect.ts).
    if (inProcess && !single) collectPixelsOnMainThread();
    checker = inProcess ? inProcessChecker(detectOptions, io.stdin) : await poolChecker(cappedWorkers(p.concurrency, io), detectOptions, io.stdin);
    if (p.incremental) {
      // Loaded only now: plain `check` never loads the cache or its native package.
      const { ScanCache, scanScope, ndjsonLine, objectIdentity } = await import('../engine/scan-cache.js');
      const scope = scanScope({ engine: engineVersion(), checks: resolveChecks(p.checks, p.catalogue), trustAnchorsPem: trustAnchorText(p.trust) });
      const cache = await ScanCache.open({
        dir: scanCacheDir(io.env),
        scope,
        maxBytes: p.incremental.maxBytes,
        startedAt: scanStartedAt,
        warn: (message) => io.stderr.write(`provenance: ${message}\n`),
      });
      checker = cachedChecker(checker, cache, ndjsonLine, objectIdentity);
    }
  }
  // --html: the report file is opened (and its head written) before any check runs, so a path
  // that cannot be written is a usage error, not a lost scan. Loaded only then.
  let html: import('./html-report.js').HtmlReportWriter | undefined;
  if (options.html) {
    const { HtmlReportWriter } = await import('./html-report.js');
    try {
      html = new HtmlReportWriter({
        path: options.html,
        inputs: [...options.inputs, ...(options.filesFrom ? [`--files-from ${options.filesFrom}`] : [])],
        where: remote ? `the API at ${remote.apiUrl}` : 'this machine',
        startedAt: scanStartedAt,
        trust: p.trust,
        remote: p.remote,
        trustAnchors: p.remote ? undefined : Boolean(p.trust.trustLists || p.trust.trustAnchorsPem),
      });
    } catch (err) {
      await checker.close();
      io.stderr.write(`provenance: --html: cannot write ${options.html}: ${(err as Error).message}\n`);
      return EXIT.usage;
    }
  }

  /** Inputs not sent once a remote run stopped sending (quota used up, ...), in input order. */
  const notChecked: string[] = [];

  const style = makeStyle(wantsColor(io.stdout, io.env));
  const stats = new ScanStats(Boolean(p.incremental));
  const terminal = showsProgress(options, io) && !single;
  const stderrColor = wantsColor(io.stderr, io.env);
  let progress = terminal ? new LiveProgress(stats, io.stderr as NodeJS.WriteStream, stderrColor) : undefined;

  const expandOptions = {
    filter: makePathFilter(options.include, options.exclude, { caseSensitive: options.caseSensitive }),
    ...(options.readTimeout === undefined ? {} : { readTimeoutMs: options.readTimeout * 1000 }),
  };
  const usesStdin = options.inputs.includes(STDIN) || options.filesFrom === STDIN;
  const walk: AsyncIterable<CheckItem> = remote ? remote.expand(allInputs(options, io.stdin), expandOptions) : expandInputs(allInputs(options, io.stdin), expandOptions);
  const items = new ReadAhead(walk, READ_AHEAD);
  let interrupted = false;
  // Ctrl-C stops the scan and the run ends normally (lines flushed, the note below, exit 130); a
  // second Ctrl-C ends the process at once. The handler stays registered for the whole scan, also
  // because ink's exit hook (signal-exit) kills the process itself on a SIGINT that nobody else
  // listens for, which would skip all of that.
  const onInterrupt = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    html?.stopPictures();
    items.stop();
    progress?.end();
    progress = undefined;
    void checker.close();
    // A check waiting for standard input (`check -` on a terminal, or a pipe that stays open)
    // would hold the run until a second Ctrl-C: its read ends here (its outcome is not written).
    if (usesStdin) (io.stdin as { destroy?: () => void }).destroy?.();
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  // Told once Ctrl-C is handled: a Ctrl-C typed the moment the line shows ends the run as above.
  announceTerminalStdin(options.inputs, options.filesFrom, io);

  // Each line goes out whole (a few lines per write to a pipe or file), so whatever was written
  // before an interrupt is whole; lines still waiting are written before the run ends.
  const out = new LineBatcher(io.stdout);
  const emit = (outcome: Outcome) => {
    if (interrupted) return;
    // Only a stdout on the same terminal can tear the frame; a pipe or file cannot.
    if (io.stdout.isTTY) progress?.clear();
    if (outcome.ok) {
      const { result, hints } = outcome;
      // One verdict per file (src/verdict): on the JSON line after the result (and its hints),
      // counted by --summary, gated by --fail-on verdict=...; the card draws its own from the same.
      const verdict = verdictOf(result, undefined, hints);
      stats.add(result, outcome.fromCache, verdict);
      html?.add(outcome.source, result, hints);
      if (failuresOf(result, p.failOn, verdict.ai).length) stats.failedOn++;
      out.write(
        options.json
          ? `${outcome.json !== undefined ? withVerdict(outcome.json, verdict, signalsOf(result)) : resultLine(outcome.source, result, hints, verdict)}\n`
          : formatResult(outcome.source, result, style, { explain: options.explain, trustAnchors: Boolean(p.trust.trustLists || p.trust.trustAnchorsPem), remote: Boolean(remote), hints }),
      );
    } else {
      stats.unreadable++;
      html?.addError(outcome.source, outcome.error);
      if (remote?.wasNotChecked(outcome)) notChecked.push(outcome.source);
      const text = remote && !outcome.inputError ? remote.formatError(outcome.source, outcome.error, style) : formatError(outcome.source, outcome.error, style);
      out.write(options.json ? `${errorLine(outcome.source, outcome.error)}\n` : text);
    }
    stats.discovered = items.discovered;
    stats.walking = items.walking;
    progress?.update();
  };

  // Local: bounded by the cores, not by --concurrency (localScanBounds), so memory stays flat.
  const limit = remote ? remote.window : inProcess ? 1 : localScanBounds(p.concurrency, availableParallelism()).inFlight;
  const inFlight: Promise<Outcome>[] = [];
  try {
    for await (const item of items) {
      if (interrupted) break;
      // Only the remote checker's walk yields http(s) inputs (kind 'url').
      inFlight.push(remote ? remote.check(item) : checker.check(item as InputItem));
      if (inFlight.length >= limit) emit(await inFlight.shift()!);
    }
    while (inFlight.length && !interrupted) emit(await inFlight.shift()!);
  } catch (err) {
    // The walk itself failed (e.g. --files-from could not be read mid-way).
    progress?.end();
    await checker.close();
    await html?.finish(true);
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return EXIT.usage;
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
    out.flush();
  }
  await checker.close();
  await html?.finish(interrupted);
  if (html && !options.quiet) io.stderr.write(`provenance: report written to ${options.html}${interrupted ? ' (up to the interruption)' : ''}.\n`);
  if (interrupted) {
    io.stderr.write(`provenance: interrupted after ${stats.done} input${stats.done === 1 ? '' : 's'}; every line written is complete.\n`);
    return EXIT.interrupted;
  }

  stats.walking = false;
  stats.discovered = items.discovered;
  // One empty line above the table: the erased display leaves one, else it is written here.
  const erased = progress?.end() ?? false;
  if (terminal) io.stderr.write(`${erased ? '' : '\n'}${formatScanTable(stats, makeStyle(stderrColor))}`);
  if (!options.json) io.stdout.write(formatSummary(stats, style));
  if (options.summary) io.stderr.write(`${JSON.stringify(stats.summary())}\n`);
  if (remote?.stop) {
    io.stderr.write(remote.stopReport(notChecked));
    return remote.stop.exit;
  }
  const filtered = Boolean(options.include?.length || options.exclude?.length);
  if (emptyRunFails(stats, { failOn: p.failOn.length, allowEmpty: options.allowEmpty, filtered }, io)) return EXIT.failOn;
  if (stats.failedOn) return EXIT.failOn;
  return stats.unreadable ? EXIT.unreadable : EXIT.ok;
}

