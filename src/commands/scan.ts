// `provenance scan start|worker|status|results|cancel|retry|list|delete`: the distributed scan
// (fleet/) as commands. Messages go to stderr, data (`--json`, results) to stdout.
import { availableParallelism } from 'node:os';
import { loadTrustAnchors, TrustAnchorError } from '../config/trust-store.js';
import { readSettings, SettingsError } from '../config/settings.js';
import { attachDetails, type C2paDetails } from '../detectors/c2pa-manifest.js';
import type { FsPath } from '../engine/byte-paths.js';
import { openFileList, readFileList } from '../engine/file-list.js';
import * as fleet from '../fleet/fleet-api.js';
import { FleetError } from '../fleet/fleet-settings.js';
import type { ScanStatus } from '../fleet/fleet-types.js';
import type { Hints } from '../media/xmp-hints.js';
import type { DetectionResult, ErrorInfo } from '../types.js';
import { ScanStats } from '../ui/scan-stats.js';
import { makeStyle } from '../ui/style.js';
import { printable } from '../ui/terminal-text.js';
import { formatError, formatResult, formatSummary } from '../ui/text-report.js';
import { verdictOf } from '../verdict/verdict.js';
import { EXIT, isCi, usageErrorsReported, wantsColor, type CommandIO } from './io.js';
import { LineBatcher } from './line-batcher.js';

const isUsage = (err: unknown) => err instanceof FleetError || err instanceof TrustAnchorError || err instanceof SettingsError;
const run = (io: CommandIO, fn: () => Promise<number>) => usageErrorsReported(io, isUsage, fn);

interface QueueFlags {
  queue?: string;
}

export interface StartFlags extends QueueFlags {
  name: string;
  sources: string[];
  checks?: string;
  catalogue?: string;
  trustAnchors?: string;
  filesFrom?: string;
  null?: boolean;
  include?: string[];
  exclude?: string[];
  caseSensitive?: boolean;
  incremental?: string;
  batch?: number;
  lease?: number;
  wait?: boolean;
  json?: boolean;
  quiet?: boolean;
}

const count = (n: number) => n.toLocaleString('en-US');

export function runScanStart(flags: StartFlags, io: CommandIO): Promise<number> {
  return run(io, async () => {
    // The list's entries are inputs as check's --files-from makes them: one that cannot be read
    // is a failed input, where a bad source named on the command line is a usage error.
    const listed: FsPath[] = [];
    if (flags.filesFrom) {
      if (flags.filesFrom === '-') throw new FleetError('--files-from -: a scan lists its sources before it returns; give the list as a file.');
      for await (const entry of readFileList(openFileList(flags.filesFrom, io.stdin), Boolean(flags.null))) listed.push(entry);
    } else if (flags.null) throw new FleetError('-0/--null goes with --files-from.');
    const anchors = loadTrustAnchors({ file: flags.trustAnchors, env: io.env });
    const catalogue = flags.catalogue ?? readSettings(io.env).catalogue;
    const progress = !flags.quiet && !flags.json && Boolean(io.stderr.isTTY) && !isCi(io.env);
    // Ctrl-C while listing: the listing stops and the scan is cancelled (fleet/scan-start.ts).
    const interrupt = new AbortController();
    const onInterrupt = () => interrupt.abort();
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onInterrupt);
    const outcome = await fleet
      .startScan(
        {
          name: flags.name,
          queue: flags.queue,
          env: io.env,
          sources: flags.sources,
          checks: flags.checks === undefined ? undefined : flags.checks.split(',').map((s) => s.trim()),
          catalogue,
          trustAnchorsPem: anchors?.pem,
          // Without --trust-anchors the workers use the C2PA lists too (their own copies).
          c2paLists: !flags.trustAnchors,
          include: flags.include,
          exclude: flags.exclude,
          caseSensitive: flags.caseSensitive,
          batchSize: flags.batch,
          leaseSeconds: flags.lease,
          incremental: flags.incremental,
          onListed: progress ? (n) => io.stderr.write(`\rprovenance: scan ${flags.name}: ${count(n)} inputs listed`) : undefined,
          signal: interrupt.signal,
        },
        listed,
      )
      .finally(() => {
        process.removeListener('SIGINT', onInterrupt);
        process.removeListener('SIGTERM', onInterrupt);
      });
    if (progress) io.stderr.write('\r\x1b[K');
    if (flags.json) io.stdout.write(`${JSON.stringify(outcome)}\n`);
    if (!flags.quiet) {
      const reused = outcome.reused ? `, ${count(outcome.reused)} unchanged since ${flags.incremental}` : '';
      io.stderr.write(`provenance: scan ${outcome.name}: ${count(outcome.total)} inputs listed, ${count(outcome.queued)} queued in ${count(outcome.batches)} batches${reused}.\n`);
      if (outcome.notReused) io.stderr.write(`provenance: scan ${outcome.name}: nothing taken from scan ${flags.incremental}: ${printable(outcome.notReused)}; every input is checked.\n`);
      // A message names the file as it is named on disk: printable(), as check's do.
      for (const e of outcome.listErrors.slice(0, 20)) io.stderr.write(`provenance: ${printable(e.message)}\n`);
      if (outcome.listErrors.length > 20) io.stderr.write(`provenance: ... and ${count(outcome.listErrors.length - 20)} more that could not be listed (scan results ${outcome.name}).\n`);
      if (!flags.wait && outcome.queued) io.stderr.write(`provenance: start workers with \`provenance scan worker\` on any machine that reaches the queue; \`provenance scan status ${outcome.name}\` shows progress.\n`);
    }
    if (!flags.wait) return outcome.listErrors.length ? EXIT.unreadable : EXIT.ok;
    return waitForScan(flags, io);
  });
}

/** --wait: a status line every two seconds until nothing is queued, then the exit `check` would give. */
async function waitForScan(flags: StartFlags, io: CommandIO): Promise<number> {
  let interrupted = false;
  const stop = () => (interrupted = true);
  process.once('SIGINT', stop);
  try {
    for (;;) {
      const status = await fleet.scanStatus(flags.name, { queue: flags.queue, env: io.env });
      if (!flags.quiet) io.stderr.write(`provenance: ${statusLine(status)}\n`);
      if (status.state === 'finished' || status.state === 'cancelled') return status.failed || status.queued ? EXIT.unreadable : EXIT.ok;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      if (interrupted) {
        io.stderr.write(`provenance: stopped waiting; the scan goes on (provenance scan status ${flags.name}).\n`);
        return EXIT.interrupted;
      }
    }
  } finally {
    process.removeListener('SIGINT', stop);
  }
}

function duration(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

function statusLine(s: ScanStatus): string {
  const eta = s.etaSeconds !== null ? `, about ${duration(s.etaSeconds)} left` : '';
  return `scan ${s.name}: ${s.state}; ${count(s.done)} done, ${count(s.failed)} failed, ${count(s.queued)} queued of ${count(s.total)}; ${s.rate}/s over the last minute${eta}`;
}

export interface WorkerFlags extends QueueFlags {
  concurrency?: number;
  readTimeout?: number;
  untilEmpty?: boolean;
  quiet?: boolean;
}

export function runScanWorkerCommand(flags: WorkerFlags, io: CommandIO): Promise<number> {
  return run(io, async () => {
    const stopping = new AbortController();
    let stops = 0;
    // SIGTERM (and Ctrl-C): finish the batches in hand, write their results, exit 0. A second one
    // ends the process at once; its batch comes back to the queue when its lease runs out.
    const onStop = () => {
      if (stops++) process.exit(EXIT.interrupted);
      if (!flags.quiet) io.stderr.write('provenance: scan worker: stopping after the batches in hand (again to stop now).\n');
      stopping.abort();
    };
    process.on('SIGTERM', onStop);
    process.on('SIGINT', onStop);
    try {
      const threads = flags.concurrency ?? availableParallelism();
      if (!flags.quiet) io.stderr.write(`provenance: scan worker ${process.pid}: taking batches (${threads} thread${threads === 1 ? '' : 's'}).\n`);
      const summary = await fleet.runScanWorker({
        queue: flags.queue,
        env: io.env,
        concurrency: flags.concurrency,
        untilEmpty: flags.untilEmpty,
        readTimeoutSeconds: flags.readTimeout,
        signal: stopping.signal,
        // A line may name an input (a written-off file, a failed read): printable(), as check's messages.
        onLog: (line) => io.stderr.write(`provenance: scan worker: ${printable(line)}\n`),
      });
      if (!flags.quiet) io.stderr.write(`provenance: scan worker ${summary.id}: ${count(summary.batches)} batches, ${count(summary.inputs)} inputs written (${count(summary.failed)} failed).\n`);
      return EXIT.ok;
    } finally {
      process.removeListener('SIGTERM', onStop);
      process.removeListener('SIGINT', onStop);
    }
  });
}

export function runScanStatus(flags: QueueFlags & { name: string; json?: boolean }, io: CommandIO): Promise<number> {
  return run(io, async () => {
    const status = await fleet.scanStatus(flags.name, { queue: flags.queue, env: io.env });
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(status)}\n`);
      return EXIT.ok;
    }
    io.stdout.write(`${statusLine(status)}\n`);
    if (status.reused) io.stdout.write(`  ${count(status.reused)} of the done unchanged since scan ${status.basedOn}\n`);
    // A worker's name is whatever host name the machine that wrote it has: printable() too.
    for (const w of status.workers) io.stdout.write(`  worker ${printable(w.worker)}: ${count(w.done)} done, ${count(w.failed)} failed, last at ${w.lastAt}\n`);
    return EXIT.ok;
  });
}

interface ParsedLine {
  source: string;
  result?: DetectionResult;
  hints?: Hints;
  error?: ErrorInfo;
}

/** A stored `check --json` line back into the result (or error) the reports draw. */
function parseLine(line: string, details: unknown): ParsedLine {
  const { source, hints, verdict: _verdict, error, ...result } = JSON.parse(line) as Record<string, unknown> & { source: string; hints?: Hints; error?: ErrorInfo };
  if (error) return { source, error };
  const parsed = result as unknown as DetectionResult;
  if (details) attachDetails(parsed, details as C2paDetails);
  return { source, result: parsed, hints };
}

export function runScanResults(flags: QueueFlags & { name: string; json?: boolean; html?: string; explain?: boolean }, io: CommandIO): Promise<number> {
  return run(io, async () => {
    if (flags.json && flags.html) throw new FleetError('--json and --html: choose one.');
    const status = await fleet.scanStatus(flags.name, { queue: flags.queue, env: io.env });
    let html: import('./html-report.js').HtmlReportWriter | undefined;
    if (flags.html) {
      const { HtmlReportWriter } = await import('./html-report.js');
      try {
        html = new HtmlReportWriter({ path: flags.html, inputs: status.sources, inputCount: status.sourceCount, where: `the workers of scan ${flags.name}`, startedAt: Date.parse(status.createdAt), remote: false, trustAnchors: false });
      } catch (err) {
        throw new FleetError(`--html: cannot write ${flags.html}: ${(err as Error).message}`);
      }
    }
    const style = makeStyle(wantsColor(io.stdout, io.env));
    const stats = new ScanStats(false);
    const out = new LineBatcher(io.stdout);
    let queued = 0;
    let failed = 0;
    for await (const row of fleet.scanResults(flags.name, { queue: flags.queue, env: io.env })) {
      if (row.line === null) {
        queued++;
        continue;
      }
      if (row.state === 'failed') failed++;
      if (flags.json) {
        out.write(`${row.line}\n`);
        continue;
      }
      const parsed = parseLine(row.line, row.details);
      if (parsed.error) {
        stats.unreadable++;
        html?.addError(parsed.source, parsed.error);
        if (!html) out.write(formatError(parsed.source, parsed.error, style));
      } else {
        const result = parsed.result!;
        stats.add(result, false, verdictOf(result, undefined, parsed.hints));
        html?.add(parsed.source, result, parsed.hints);
        if (!html) out.write(formatResult(parsed.source, result, style, { explain: flags.explain, hints: parsed.hints }));
      }
    }
    out.flush();
    if (html) {
      await html.finish(queued > 0);
      io.stderr.write(`provenance: report written to ${flags.html}.\n`);
    } else if (!flags.json) io.stdout.write(formatSummary(stats, style));
    if (queued) io.stderr.write(`provenance: scan ${flags.name}: ${count(queued)} inputs not finished yet (${status.state}); their results are not above.\n`);
    // A scan still listing may have more inputs than these (or its start died while listing:
    // docs/SCALE.md): partial results, whatever the rows say.
    const listing = status.state === 'listing';
    if (listing) io.stderr.write(`provenance: scan ${flags.name} is incomplete: its sources are still being listed, or its scan start ended while listing (provenance scan cancel ${flags.name} ends it); these are the results of what was listed.\n`);
    return failed || queued || listing ? EXIT.unreadable : EXIT.ok;
  });
}

export function runScanCancel(flags: QueueFlags & { name: string }, io: CommandIO): Promise<number> {
  return run(io, async () => {
    const { cancelledJobs } = await fleet.cancelScan(flags.name, { queue: flags.queue, env: io.env });
    io.stderr.write(`provenance: scan ${flags.name} cancelled: ${count(cancelledJobs)} waiting batches will not run; batches in hand finish.\n`);
    return EXIT.ok;
  });
}

export function runScanRetry(flags: QueueFlags & { name: string }, io: CommandIO): Promise<number> {
  return run(io, async () => {
    const { requeued } = await fleet.retryScan(flags.name, { queue: flags.queue, env: io.env });
    io.stderr.write(`provenance: scan ${flags.name}: ${count(requeued)} failed inputs queued again.\n`);
    return EXIT.ok;
  });
}

export function runScanList(flags: QueueFlags & { json?: boolean }, io: CommandIO): Promise<number> {
  return run(io, async () => {
    const scans = await fleet.listScans({ queue: flags.queue, env: io.env });
    if (flags.json) io.stdout.write(`${JSON.stringify(scans)}\n`);
    else if (!scans.length) io.stderr.write('provenance: no scans in this queue (provenance scan start NAME SOURCE...).\n');
    else for (const s of scans) io.stdout.write(`${statusLine(s)}\n`);
    return EXIT.ok;
  });
}

export function runScanDelete(flags: QueueFlags & { name: string }, io: CommandIO): Promise<number> {
  return run(io, async () => {
    await fleet.deleteScan(flags.name, { queue: flags.queue, env: io.env });
    io.stderr.write(`provenance: scan ${flags.name} deleted with its inputs and results.\n`);
    return EXIT.ok;
  });
}
