// `provenance check --crjson` and `check --rubric NAME` (issue 38): for each input with a C2PA
// manifest, one line of JSON on stdout: c2pa-rs's crJSON, or the official output of a C2PA Asset
// Rubric evaluated over it. Always on this machine (c2pa-rs reads the file), with the trust
// settings `check` uses (--trust-anchors, else the C2PA lists and the anchors of `provenance trust`), or the
// conformance harness's inputs: --trust-list and --tsa-trust-list. Loaded only for these flags.
import { loadRunTrust, loadTrustAnchors, readAnchorFile, TrustAnchorError } from '../config/trust-store.js';
import { packageDataFile } from '../media/package-data.js';
import { trustAnchorText } from '../media/trust-anchor-text.js';
import { readFileList, openFileList } from '../engine/file-list.js';
import type { FsPath } from '../engine/byte-paths.js';
import { expandInputs, readInput, STDIN } from '../engine/inputs.js';
import { makePathFilter } from '../engine/path-filter.js';
import { readTimeoutProblem } from '../engine/read-deadline.js';
import { crJsonText, isRubricName, RUBRIC_NAMES, rubricOutput, type RubricName } from '../library/c2pa-output.js';
import { printable } from '../ui/terminal-text.js';
import type { InputSelection } from './check.js';
import { EXIT, type CommandIO } from './io.js';
import { LineBatcher } from './line-batcher.js';

export interface C2paOutputOptions extends InputSelection {
  /** `--crjson`: print c2pa-rs's crJSON. */
  crjson?: boolean;
  /** `--rubric NAME`: print the rubric's output (signals, conformance-2.2, conformance-2.4). */
  rubric?: string;
  /** `--trust-anchors FILE`: as for `check`, instead of the stored anchors. */
  trustAnchors?: string;
  /** `--trust-list FILE`: the conformance harness's test trust list (PEM), instead of the stored anchors. */
  trustList?: string;
  /** `--tsa-trust-list FILE`: the harness's test TSA trust list (PEM). */
  tsaTrustList?: string;
  /** `--validation-time TIME`: refused (c2pa-rs cannot validate at a given time). */
  validationTime?: string;
  /** `--read-timeout SECONDS`: as for `check`, the deadline of a whole https:// or s3:// read. */
  readTimeout?: number;
  /** Flags of `check` that do not go with --crjson / --rubric, by name, when given. */
  otherFlags?: string[];
}

class UsageError extends Error {}

/** The anchors c2pa-rs gets: the harness's lists, else --trust-anchors, else `check`'s (the C2PA lists and the stored anchors). */
function anchorsPem(options: C2paOutputOptions, io: CommandIO): string | undefined {
  if (options.trustList && options.trustAnchors) throw new UsageError('--trust-list and --trust-anchors cannot be used together: both name the anchors for this run.');
  let pem: string | undefined;
  try {
    const flag = options.trustList ? '--trust-list' : '--trust-anchors';
    try {
      const file = options.trustList ?? options.trustAnchors;
      // As `check`: a named file replaces the C2PA lists; else the lists and the anchors added by hand.
      pem = file ? loadTrustAnchors({ file, env: io.env })?.pem : trustAnchorText(loadRunTrust({ env: io.env, bundledDir: packageDataFile('c2pa') }));
    } catch (err) {
      if (err instanceof TrustAnchorError && (options.trustList || options.trustAnchors)) throw new UsageError(`${flag}: ${err.message}`);
      throw err;
    }
    if (options.tsaTrustList) {
      // c2pa-rs has one set of anchors, against which it checks claim signers and time stamps
      // alike (its trust_config's EKUs tell the two apart): the TSA list joins it.
      let tsa: string;
      try {
        tsa = readAnchorFile(options.tsaTrustList).map((a) => a.pem).join('');
      } catch (err) {
        if (err instanceof TrustAnchorError) throw new UsageError(`--tsa-trust-list: ${err.message}`);
        throw err;
      }
      pem = (pem ?? '') + tsa;
    }
  } catch (err) {
    if (err instanceof TrustAnchorError) throw new UsageError(err.message);
    throw err;
  }
  return pem;
}

function checkFlags(options: C2paOutputOptions): RubricName | undefined {
  if (options.crjson && options.rubric !== undefined) throw new UsageError('--crjson and --rubric cannot be used together: each prints its own JSON per file.');
  if (!options.crjson && options.rubric === undefined) {
    const given = ['--trust-list', '--tsa-trust-list', '--validation-time'].filter((_, i) => [options.trustList, options.tsaTrustList, options.validationTime][i] !== undefined);
    throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'goes' : 'go'} with --crjson or --rubric (for the readable check, --trust-anchors names the anchors).`);
  }
  if (options.otherFlags?.length) {
    throw new UsageError(`${options.otherFlags.join(', ')} ${options.otherFlags.length === 1 ? 'does' : 'do'} not go with ${options.crjson ? '--crjson' : '--rubric'}, which prints one JSON document per file with a manifest, read on this machine.`);
  }
  if (options.validationTime !== undefined) {
    throw new UsageError(
      '--validation-time: not supported. c2pa-rs, which validates the credentials, has no setting for a validation time: it judges a certificate at its trusted time stamp\'s time, else at the present time (docs/C2PA.md "crJSON").',
    );
  }
  const timeoutProblem = readTimeoutProblem(options.readTimeout);
  if (timeoutProblem) throw new UsageError(timeoutProblem);
  if (options.rubric !== undefined && !isRubricName(options.rubric)) {
    throw new UsageError(`--rubric: unknown rubric "${printable(options.rubric)}". The rubrics: ${RUBRIC_NAMES.join(', ')}.`);
  }
  const stdinUses = options.inputs.filter((i) => i === STDIN).length + (options.filesFrom === STDIN ? 1 : 0);
  if (stdinUses > 1) throw new UsageError('standard input (-) can be used only once (as an input or as --files-from -).');
  if (options.inputs.length === 0 && !options.filesFrom) throw new UsageError('name at least one file, folder or -, or use --files-from.');
  return options.rubric as RubricName | undefined;
}

async function* allInputs(options: C2paOutputOptions, stdin: NodeJS.ReadableStream): AsyncGenerator<FsPath> {
  yield* options.inputs;
  if (options.filesFrom) yield* readFileList(openFileList(options.filesFrom, stdin), Boolean(options.nul));
}

export async function runC2paOutput(options: C2paOutputOptions, io: CommandIO): Promise<number> {
  let rubric: RubricName | undefined;
  let pem: string | undefined;
  try {
    rubric = checkFlags(options);
    pem = anchorsPem(options, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`provenance: ${err.message}\n`);
    return EXIT.usage;
  }
  const out = new LineBatcher(io.stdout);
  let problems = 0;
  const say = (source: string, message: string) => {
    problems += 1;
    io.stderr.write(`provenance: ${printable(source)}: ${message}\n`);
  };
  const filter = makePathFilter(options.include, options.exclude, { caseSensitive: options.caseSensitive });
  try {
    for await (const item of expandInputs(allInputs(options, io.stdin), {
      filter,
      ...(options.readTimeout === undefined ? {} : { readTimeoutMs: options.readTimeout * 1000 }),
    })) {
      let text: string | undefined;
      try {
        text = await crJsonText(await readInput(item, io.stdin), { trustAnchorsPem: pem });
      } catch (err) {
        say(item.source, (err as Error).message);
        continue;
      }
      if (text === undefined) {
        say(item.source, 'no C2PA manifest, so no crJSON.');
        continue;
      }
      const crJson: unknown = JSON.parse(text);
      const doc = rubric ? await rubricOutput(crJson, rubric) : crJson;
      out.write(`${JSON.stringify(doc)}\n`);
    }
  } catch (err) {
    out.flush();
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return EXIT.usage;
  } finally {
    out.flush();
  }
  return problems ? EXIT.unreadable : EXIT.ok;
}
