// Command-line entry: parses flags with commander, then hands a plain options object to a
// command's run function. Commands are imported lazily so `--help` and each command load only
// what they use (cold start is measured in docs/PERFORMANCE.md).
import { Command, CommanderError, Help, InvalidArgumentError, Option } from 'commander';
import { registerDaemonCommands } from './commands/daemon-cli.js';
import { EXIT, processIO, type CommandIO } from './commands/io.js';
import { guardOutput } from './commands/output-guard.js';
import { registerRemoteCommands } from './commands/remote-cli.js';
import { registerScanCommands } from './commands/scan-cli.js';
// `check` is the command that has to start fast: it is part of dist/cli.js, not a lazy bundle.
import { runCheck, type InputSelection } from './commands/check.js';
import { splitCheckList } from './engine/checks.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  every input was checked (whatever was found)
  1  some input could not be read (each is reported on its own line; the rest were checked),
     or standard output could not be written (a full disk: one line on stderr)
  2  usage error (unknown flag, unknown or repeated check id, --fail-on for a check that does not run, not logged in with --remote, ...)
  3  remote checks: the API's monthly quota is used up (the inputs not checked are listed)
  4  --fail-on: some file's check had the named result, or its verdict the named one (every input was still checked), or no file was checked (unless --allow-empty)
  70  internal error: a defect in provenance (the error and its stack on stderr); please report it
  130  interrupted (Ctrl-C); every line written before is complete`;

interface CheckFlags {
  checks?: string;
  catalogue?: string;
  json: boolean;
  trustAnchors?: string;
  explain: boolean;
  filesFrom?: string;
  null: boolean;
  include: string[];
  exclude: string[];
  caseSensitive: boolean;
  allowEmpty: boolean;
  concurrency?: number;
  failOn: string[];
  summary: boolean;
  quiet: boolean;
  local: boolean;
  remote: boolean;
  cache: boolean;
  incremental?: boolean;
  cacheMax?: string;
  readTimeout?: number;
  html?: string;
  crjson: boolean;
  rubric?: string;
  trustList?: string;
  tsaTrustList?: string;
  validationTime?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function parseWhole(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 256) throw new InvalidArgumentError('A whole number from 1 to 256 is needed.');
  return n;
}

/** Whole seconds; the command checks the range (its message names the flag's bounds). */
function parseSeconds(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('Whole seconds are needed, e.g. 120.');
  return Number(value);
}

/**
 * The flags of `check` that go with --crjson and --rubric: their own; what to read (lists, filters);
 * the anchors; --read-timeout, the deadline of an https:// or s3:// read, as for check; and those
 * taken before this list was made though they do nothing there: --quiet and --local (no progress
 * is drawn; the read is always on this machine), the caches' switches, and --concurrency (one
 * file at a time in this thread). Every other flag of check is refused
 * beside them, a flag added to check later included until it is named here
 * (test/check-c2pa-flags.test.ts runs each flag both ways).
 */
export const C2PA_OUTPUT_FLAGS: ReadonlySet<string> = new Set([
  '--crjson',
  '--rubric',
  '--trust-list',
  '--tsa-trust-list',
  '--validation-time',
  '--files-from',
  '--null',
  '--include',
  '--exclude',
  '--case-sensitive',
  '--trust-anchors',
  '--quiet',
  '--local',
  '--concurrency',
  '--read-timeout',
  '--no-cache',
  '--no-incremental',
]);

/** The flags given on `command`'s command line, by their long names, in its help's order. */
function flagsGiven(command: Command): string[] {
  return command.options
    .filter((option) => {
      const key = option.attributeName();
      if (command.getOptionValueSource(key) !== 'cli') return false;
      // --incremental and --no-incremental set one value: the one given last is what counts.
      return option.negate ? command.getOptionValue(key) === false : command.getOptionValue(key) !== false;
    })
    .map((option) => option.long ?? option.flags);
}

function buildProgram(io: CommandIO, setExit: (code: number) => void): Command {
  const program = new Command('provenance')
    .description('Check image, audio and video files for provenance markers (C2PA, camera EXIF).')
    .version('0.1.0')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    // "(default: false)" on a flag and "(default: [])" on a repeatable option say nothing a user
    // needs, and doubled a default the description already gives; every command inherits this.
    .configureHelp({
      optionDescription(option) {
        return Help.prototype.optionDescription.call(this, option).replace(/ \(default: (false|\[\])\)$/, '');
      },
    })
    .exitOverride();

  program
    .command('check')
    .description('Check files, folders (recursively, in sorted order) or - (standard input): offline, or with the /v1 API once logged in.')
    .argument('[inputs...]', 'files, folders, - for standard input, s3://bucket/prefix (docs/CLI.md: S3 buckets), https:// URLs (docs/CLI.md: https:// URLs; remote checks: http(s) URLs, fetched by the API)')
    .addOption(new Option('--checks <ids>', 'comma-separated detector ids to run (default: all)'))
    .option('--catalogue <name>', 'full (every detector) or hosted (exactly the hosted service\'s five, for testing clients against the hosted contract); default: the catalogue setting, else full')
    .option('--json', 'one JSON line per input (NDJSON): the /v1 detection result plus "source"', false)
    .option('--html <file>', 'also write the scan report to FILE: one self-contained HTML page (thumbnails, chart, filters, each file\'s card), written as the scan goes')
    .option('--files-from <file>', 'also check the paths listed in FILE (- for standard input), one per line')
    .option('-0, --null', 'with --files-from: the list is NUL-separated (find -print0)', false)
    .option('--include <glob>', 'in folders, check only files matching GLOB (repeatable; *.jpg matches names, a/**/b paths; any letter case)', collect, [])
    .option('--exclude <glob>', 'in folders, skip files and folders matching GLOB (repeatable)', collect, [])
    .option('--case-sensitive', '--include/--exclude match letter case exactly (without it, *.jpg also matches IMG_1.JPG)', false)
    .option('--concurrency <n>', 'worker threads for folders and lists (default: the available cores; at most 4 per core); remote checks: requests in flight (default 4)', parseWhole)
    .option('--fail-on <check=result>', 'exit 4 when any file has this result, e.g. c2pa=not_found, or this verdict: verdict=generated|contains|may_contain|none_found (repeatable; the check must run); also when no file was checked', collect, [])
    .option('--allow-empty', 'with --fail-on: a run that checked no file exits 0, not 4', false)
    .option('--summary', 'at the end, write the counts as JSON on standard error', false)
    .option('-q, --quiet', 'no progress display and no closing table on stderr', false)
    .option('--trust-anchors <file>', 'PEM file of C2PA trust anchors, used alone instead of the C2PA lists and those added with `provenance trust add`')
    .option('--explain', 'spell out each C2PA validation code in a sentence', false)
    .option('--local', 'check on this machine even when logged in to an API', false)
    .option('--remote', 'check with the API (`provenance login` first, or PROVENANCE_API_KEY)', false)
    .option('--no-cache', 'remote checks: ask the API again instead of using cached results')
    .option('--incremental', 'keep a scan cache and answer files unchanged since an earlier scan from it (local checks; also the incremental setting)')
    .option('--no-incremental', 'no scan cache for this run, whatever the incremental setting says')
    .option('--cache-max <size>', 'with --incremental: the scan cache\'s size bound, oldest entries pruned first (default 1GB)')
    .option('--read-timeout <seconds>', 'the longest one https:// URL or S3 object may take to read, request to last byte (1 to 3600; default 120)', parseSeconds)
    .option('--crjson', 'print c2pa-rs\'s crJSON of each file with a C2PA manifest, one JSON document per line (docs/C2PA.md)', false)
    .option('--rubric <name>', 'print a C2PA Asset Rubric\'s output for each file with a C2PA manifest: signals, conformance-2.2 or conformance-2.4 (docs/C2PA.md)')
    .option('--trust-list <file>', 'with --crjson/--rubric: the trust list (PEM) to validate signers against, instead of the C2PA lists and your anchors (the conformance harness\'s test list)')
    .option('--tsa-trust-list <file>', 'with --crjson/--rubric: the time-stamping authorities\' trust list (PEM)')
    .option('--validation-time <time>', 'not supported: c2pa-rs cannot validate at a given time (refused with exit 2)')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (inputs: string[], opts: CheckFlags, command: Command) => {
      const selection: InputSelection = {
        inputs,
        filesFrom: opts.filesFrom,
        nul: opts.null,
        include: opts.include,
        exclude: opts.exclude,
        caseSensitive: opts.caseSensitive,
      };
      if (opts.crjson || opts.rubric !== undefined || opts.trustList !== undefined || opts.tsaTrustList !== undefined || opts.validationTime !== undefined) {
        const { runC2paOutput } = await import('./commands/c2pa-output.js');
        setExit(
          await runC2paOutput(
            {
              ...selection,
              crjson: opts.crjson,
              rubric: opts.rubric,
              trustAnchors: opts.trustAnchors,
              trustList: opts.trustList,
              tsaTrustList: opts.tsaTrustList,
              validationTime: opts.validationTime,
              readTimeout: opts.readTimeout,
              otherFlags: flagsGiven(command).filter((flag) => !C2PA_OUTPUT_FLAGS.has(flag)),
            },
            io,
          ),
        );
        return;
      }
      const checks = opts.checks === undefined ? undefined : splitCheckList(opts.checks);
      setExit(
        await runCheck(
          {
            ...selection,
            checks,
            catalogue: opts.catalogue,
            json: opts.json,
            trustAnchors: opts.trustAnchors,
            explain: opts.explain,
            allowEmpty: opts.allowEmpty,
            concurrency: opts.concurrency,
            failOn: opts.failOn,
            summary: opts.summary,
            quiet: opts.quiet,
            local: opts.local,
            remote: opts.remote,
            cache: opts.cache,
            incremental: opts.incremental,
            cacheMax: opts.cacheMax,
            readTimeout: opts.readTimeout,
            html: opts.html,
          },
          io,
        ),
      );
    });

  const trust = program
    .command('trust')
    .description('The C2PA trust anchors: the C2PA Trust List and TSA Trust List (bundled, or updated) and those you add (see docs/C2PA.md).');
  trust
    .command('add')
    .description('Add the certificates of a PEM file as trust anchors, beside the C2PA lists.')
    .argument('<file>', 'PEM file, e.g. your organisation\'s CA (the C2PA lists are already used: `provenance trust list`)')
    .action(async (file: string) => {
      const { runTrustAdd } = await import('./commands/trust.js');
      setExit(await runTrustAdd({ file }, io));
    });
  trust
    .command('update')
    .description('Fetch the current C2PA Trust List and TSA Trust List into your config folder (https only); they then take precedence over the bundled ones.')
    .option('--from <file>', 'take the C2PA Trust List from this PEM file instead (a machine without internet)')
    .option('--tsa-from <file>', 'take the C2PA TSA Trust List from this PEM file instead')
    .option('--url <url>', `the https:// folder that holds both lists (default ${'$'}PROVENANCE_TRUST_LIST_URL, else the C2PA's: https://raw.githubusercontent.com/c2pa-org/conformance-public/main/trust-list/)`)
    .action(async (opts: { from?: string; tsaFrom?: string; url?: string }) => {
      const { runTrustUpdate } = await import('./commands/trust-update.js');
      setExit(await runTrustUpdate({ from: opts.from, tsaFrom: opts.tsaFrom, url: opts.url }, io));
    });
  trust
    .command('list')
    .description('List the trust anchors in use and where each came from: the C2PA lists (bundled or updated) and those added by hand.')
    .option('--json', 'one JSON object', false)
    .action(async (opts: { json: boolean }) => {
      const { runTrustList } = await import('./commands/trust.js');
      setExit(await runTrustList({ json: opts.json }, io));
    });
  trust
    .command('remove')
    .description('Remove a trust anchor added by hand.')
    .argument('<fingerprint-or-index>', 'its number in `trust list`, or its SHA-256 fingerprint (8+ leading hex digits)')
    .action(async (target: string) => {
      const { runTrustRemove } = await import('./commands/trust.js');
      setExit(await runTrustRemove({ target }, io));
    });

  program
    .command('detectors')
    .description('List the detector catalogue.')
    .option('--json', 'print the body of GET /v1/detectors', false)
    .option('--remote', "list the configured API's detectors (GET /v1/detectors; no key needed)", false)
    .option('--catalogue <name>', "full or hosted (the hosted service's five); default: the catalogue setting, else full")
    .action(async (opts: { json: boolean; remote: boolean; catalogue?: string }) => {
      const { runDetectors } = await import('./commands/detectors.js');
      setExit(await runDetectors({ json: opts.json, remote: opts.remote, catalogue: opts.catalogue }, io));
    });

  registerRemoteCommands(program, io, setExit);
  registerDaemonCommands(program, io, setExit);
  registerScanCommands(program, io, setExit);

  program.addHelpText('after', EXIT_CODES_HELP);
  restyleParseErrors(program, io);
  return program;
}

/**
 * commander's own errors (`error: unknown option '--x'` and a help hint on the next line) in the
 * tool's style: one `provenance: ...` line that names the command's --help. Set on every command,
 * because each one keeps its own output settings and knows its own name.
 */
export function commanderErrorLine(message: string, commandPath: string): string {
  const [first = '', ...rest] = message.trim().split('\n');
  const text = first.replace(/^error: /, '');
  const suggestion = rest
    .map((line) => line.trim().replace(/^\((.*)\)$/, '$1'))
    .filter(Boolean)
    .join(' ');
  const hint = suggestion ? ` ${suggestion.charAt(0).toUpperCase()}${suggestion.slice(1)}` : '';
  return `provenance: ${text}.${hint} See \`${commandPath} --help\`.\n`.replace(/\.\./g, '.');
}

function restyleParseErrors(command: Command, io: CommandIO, parents: string[] = []): void {
  const path = [...parents, command.name()];
  command.configureOutput({ outputError: (message) => io.stderr.write(commanderErrorLine(message, path.join(' '))) });
  for (const sub of command.commands) restyleParseErrors(sub, io, path);
}

export async function main(argv: string[], io: CommandIO = processIO()): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  // A closed pipe (`| head -1`) ends the run quietly; a full disk is one line and exit 1.
  guardOutput(io, () => code);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help asked for (--help, `help CMD`) goes to stdout, exit 0. Help shown because something
      // was missing (`provenance daemon` without a subcommand, `help nope`) goes to stderr with
      // commander's exit code 1: a usage error here.
      const asked = ['commander.helpDisplayed', 'commander.version'].includes(err.code) || (err.code === 'commander.help' && err.exitCode === 0);
      return asked ? EXIT.ok : EXIT.usage;
    }
    throw err;
  }
  return code;
}
