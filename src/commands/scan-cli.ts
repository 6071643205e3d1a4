// Registers `provenance scan ...` (a scan spread over any number of machines through a queue in
// PostgreSQL; docs/SCALE.md). Only flag definitions live here; each action loads commands/scan.ts,
// and that loads `pg` and pg-boss, only when run.
import type { Command } from 'commander';
import type { CommandIO } from './io.js';

const QUEUE_HELP = 'the queue: a PostgreSQL URL, postgres://USER@HOST:PORT/DATABASE (default: $PROVENANCE_QUEUE)';
const collect = (value: string, previous: string[]) => [...previous, value];
const whole = (value: string) => (/^\d+$/.test(value) ? Number(value) : NaN);

export function registerScanCommands(program: Command, io: CommandIO, setExit: (code: number) => void): void {
  const scan = program
    .command('scan')
    .description('Scan past one machine: queue inputs in PostgreSQL, check them with workers on any number of machines, read the results (docs/SCALE.md).');
  const load = () => import('./scan.js');

  scan
    .command('start')
    .description('List the sources (folders walked as `check` walks them, S3 prefixes), queue them in batches, and return (or --wait).')
    .argument('<name>', 'a name for the scan: letters, digits, ".", "_", "-"')
    .argument('[sources...]', 'files, folders (on a file system every worker mounts at the same path), s3://bucket/prefix, https:// URLs')
    .option('--queue <url>', QUEUE_HELP)
    .option('--checks <ids>', 'comma-separated detector ids to run (default: all)')
    .option('--catalogue <name>', "full (every detector, the default) or hosted (the hosted service's five)")
    .option('--trust-anchors <file>', 'PEM file of C2PA trust anchors, used alone instead of the C2PA lists and those added with `provenance trust add` (carried to every worker)')
    .option('--files-from <file>', 'also the paths and URLs listed in FILE, one per line')
    .option('-0, --null', 'with --files-from: the list is NUL-separated (find -print0)', false)
    .option('--include <glob>', 'in folders and prefixes, only names matching GLOB (repeatable)', collect, [])
    .option('--exclude <glob>', 'in folders and prefixes, skip names matching GLOB (repeatable)', collect, [])
    .option('--case-sensitive', '--include/--exclude match letter case exactly', false)
    .option('--incremental <scan>', 'inputs unchanged since that earlier scan (size and mtime, or S3 ETag) take its results instead of being checked')
    .option('--batch <n>', 'inputs per queued job (1 to 10000)', whole, 200)
    .option('--lease <seconds>', 'how long a worker holds a batch without a sign of life before another may take it (3 to 3600)', whole, 60)
    .option('--wait', 'show progress until every input is done, then exit as `check` would (1 when some input failed)', false)
    .option('--json', 'print what was queued as one JSON object', false)
    .option('-q, --quiet', 'no progress on stderr', false)
    .action(async (name: string, sources: string[], opts) => setExit(await (await load()).runScanStart({ name, sources, ...opts }, io)));

  scan
    .command('worker')
    .description('Take batches from the queue and check them until stopped: SIGTERM finishes the batches in hand and exits 0.')
    .option('--queue <url>', QUEUE_HELP)
    .option('--concurrency <n>', 'worker threads (default: the available cores; at most 4 per core)', whole)
    .option('--until-empty', 'exit once no batch is waiting, backing off or held by any worker (a batch job rather than a service)', false)
    .option('--read-timeout <seconds>', 'the longest one https:// URL or S3 object may take to read, request to last byte (1 to 3600; default 120)', whole)
    .option('-q, --quiet', 'log only failures (lost leases, written-off inputs, failed batches)', false)
    .action(async (opts) => setExit(await (await load()).runScanWorkerCommand(opts, io)));

  scan
    .command('status')
    .description('How far a scan is: queued, done, failed, per worker, rate, ETA.')
    .argument('<name>')
    .option('--queue <url>', QUEUE_HELP)
    .option('--json', 'one JSON object', false)
    .action(async (name: string, opts) => setExit(await (await load()).runScanStatus({ name, ...opts }, io)));

  scan
    .command('results')
    .description("A scan's results in source order: the lines of `check --json`, the text report, or the HTML report.")
    .argument('<name>')
    .option('--queue <url>', QUEUE_HELP)
    .option('--json', 'one JSON line per input, as `check --json` writes it', false)
    .option('--html <file>', 'write the HTML report of `check --html` to FILE')
    .option('--explain', 'spell out each C2PA validation code in a sentence', false)
    .action(async (name: string, opts) => setExit(await (await load()).runScanResults({ name, ...opts }, io)));

  scan
    .command('cancel')
    .description('Stop a scan: no batch of it is begun any more; batches in hand finish.')
    .argument('<name>')
    .option('--queue <url>', QUEUE_HELP)
    .action(async (name: string, opts) => setExit(await (await load()).runScanCancel({ name, ...opts }, io)));

  scan
    .command('retry')
    .description('Queue the failed inputs of a scan again (only those).')
    .argument('<name>')
    .option('--queue <url>', QUEUE_HELP)
    .action(async (name: string, opts) => setExit(await (await load()).runScanRetry({ name, ...opts }, io)));

  scan
    .command('list')
    .description('The scans in the queue, with their counts.')
    .option('--queue <url>', QUEUE_HELP)
    .option('--json', 'one JSON array', false)
    .action(async (opts) => setExit(await (await load()).runScanList(opts, io)));

  scan
    .command('delete')
    .description('Remove a scan, its inputs and its results from the queue (its waiting batches are cancelled).')
    .argument('<name>')
    .option('--queue <url>', QUEUE_HELP)
    .action(async (name: string, opts) => setExit(await (await load()).runScanDelete({ name, ...opts }, io)));
}
