// Command-line entry: parses flags with commander, then hands a plain options object to a
// command's run function. Commands are imported lazily so `--help` and each command load only
// what they use (cold start is measured in docs/PERFORMANCE.md).
import { Command, CommanderError, Option } from 'commander';
import { EXIT, processIO, type CommandIO } from './commands/io.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  every input was checked (whatever was found)
  1  some input could not be read (each is reported on its own line; the rest were checked)
  2  usage error (unknown flag, unknown or repeated check id, ...)`;

function buildProgram(io: CommandIO, setExit: (code: number) => void): Command {
  const program = new Command('provenance')
    .description('Check image, audio and video files for provenance markers (C2PA, camera EXIF).')
    .version('0.1.0')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('check')
    .description('Check files, folders (recursively, in sorted order) or - (standard input) offline.')
    .argument('<inputs...>', 'files, folders, or - for standard input')
    .addOption(new Option('--checks <ids>', 'comma-separated detector ids to run (default: all)'))
    .option('--json', 'one JSON line per input (NDJSON): the /v1 detection result plus "source"', false)
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (inputs: string[], opts: { checks?: string; json: boolean }) => {
      const { runCheck } = await import('./commands/check.js');
      const { splitCheckList } = await import('./engine/checks.js');
      const checks = opts.checks === undefined ? undefined : splitCheckList(opts.checks);
      setExit(await runCheck({ inputs, checks, json: opts.json }, io));
    });

  program
    .command('detectors')
    .description('List the detector catalogue.')
    .option('--json', 'print the body of GET /v1/detectors', false)
    .action(async (opts: { json: boolean }) => {
      const { runDetectors } = await import('./commands/detectors.js');
      setExit(await runDetectors({ json: opts.json }, io));
    });

  program.addHelpText('after', EXIT_CODES_HELP);
  return program;
}

export async function main(argv: string[], io: CommandIO = processIO()): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  // A closed pipe (e.g. `provenance check --json dir | head`) ends the run quietly.
  io.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(code);
    throw err;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const helpOrVersion = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code);
      return helpOrVersion ? EXIT.ok : EXIT.usage;
    }
    throw err;
  }
  return code;
}
