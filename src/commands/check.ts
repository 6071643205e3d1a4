// `provenance check <inputs...>`: files, folders and `-`, through the local engine.
import { CheckSelectionError, resolveChecks } from '../engine/checks.js';
import { detect } from '../engine/detect.js';
import { InputError } from '../engine/input-error.js';
import { expandInputs, readInput, STDIN } from '../engine/inputs.js';
import { makeStyle } from '../ui/style.js';
import { formatError, formatResult, RunTally } from '../ui/text-report.js';
import { EXIT, wantsColor, type CommandIO } from './io.js';

export interface CheckOptions {
  inputs: string[];
  checks?: string[];
  json: boolean;
}

function write(io: CommandIO, text: string): void {
  io.stdout.write(text);
}

export async function runCheck(options: CheckOptions, io: CommandIO): Promise<number> {
  try {
    resolveChecks(options.checks);
  } catch (err) {
    if (err instanceof CheckSelectionError) {
      io.stderr.write(`provenance: --checks: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  if (options.inputs.filter((i) => i === STDIN).length > 1) {
    io.stderr.write('provenance: standard input (-) can be named only once.\n');
    return EXIT.usage;
  }

  const style = makeStyle(wantsColor(io.stdout, io.env));
  const tally = new RunTally();
  for await (const item of expandInputs(options.inputs)) {
    let bytes: Uint8Array;
    try {
      bytes = await readInput(item, io.stdin);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      tally.unreadable++;
      const error = err.toInfo();
      write(io, options.json ? `${JSON.stringify({ source: item.source, error })}\n` : formatError(item.source, error, style));
      continue;
    }
    const result = await detect(bytes, { checks: options.checks });
    tally.add(result);
    write(io, options.json ? `${JSON.stringify({ source: item.source, ...result })}\n` : formatResult(item.source, result, style));
  }
  if (!options.json) write(io, tally.summary(style));
  return tally.unreadable ? EXIT.unreadable : EXIT.ok;
}
