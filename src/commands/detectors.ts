// `provenance detectors [--json] [--remote]`: the catalogue; the JSON is the body of GET
// /v1/detectors, this build's own or (--remote) the configured API's.
import { readSettings, SettingsError } from '../config/settings.js';
import { detectorsBody } from '../detectors/catalogue.js';
import { CheckSelectionError, parseCatalogue } from '../engine/checks.js';
import type { CatalogueName } from '../types.js';
import { makeStyle } from '../ui/style.js';
import { EXIT, wantsColor, type CommandIO } from './io.js';
import { printable } from '../ui/terminal-text.js';

export interface DetectorsOptions {
  json: boolean;
  /** Ask the API (GET /v1/detectors, public) instead of listing this build's catalogue. */
  remote?: boolean;
  /** `--catalogue full|hosted`; undefined: the `catalogue` setting, else full. */
  catalogue?: string;
}

function catalogueOf(options: DetectorsOptions, io: CommandIO): CatalogueName | string {
  try {
    if (options.catalogue !== undefined) return parseCatalogue(options.catalogue);
    const setting = readSettings(io.env).catalogue;
    return setting === undefined ? 'full' : parseCatalogue(setting);
  } catch (err) {
    if (err instanceof CheckSelectionError) return `${options.catalogue !== undefined ? '--catalogue' : 'the catalogue setting'}: ${err.message}`;
    if (err instanceof SettingsError) return err.message;
    throw err;
  }
}

export async function runDetectors(options: DetectorsOptions, io: CommandIO): Promise<number> {
  if (options.remote && options.catalogue !== undefined) {
    io.stderr.write("provenance: --catalogue picks this build's catalogue; with --remote the API's own is listed.\n");
    return EXIT.usage;
  }
  const catalogue = options.remote ? 'full' : catalogueOf(options, io);
  if (catalogue !== 'full' && catalogue !== 'hosted') {
    io.stderr.write(`provenance: ${catalogue}\n`);
    return EXIT.usage;
  }
  let body = detectorsBody(catalogue);
  if (options.remote) {
    const { remoteDetectors } = await import('../client/remote-detectors.js');
    const answer = await remoteDetectors(io.env);
    if ('error' in answer) {
      io.stderr.write(`provenance: ${answer.error}\n`);
      return answer.usage ? EXIT.usage : EXIT.unreadable;
    }
    body = answer.body;
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify(body)}\n`);
    return EXIT.ok;
  }
  const s = makeStyle(wantsColor(io.stdout, io.env));
  for (const d of body.detectors) {
    const status = d.status === 'available' ? s.green(d.status) : s.yellow(d.status);
    // The list may be an API's (--remote): its words reach the terminal only through printable().
    io.stdout.write(`${s.bold(printable(d.id))}  ${status}${d.inverse ? s.dim('  (inverse: a match points toward a camera capture)') : ''}\n`);
    io.stdout.write(`  ${printable(d.name)}: ${printable(d.description)}\n  ${s.dim(`reads: ${printable(d.media_types.join(', '))}`)}\n\n`);
  }
  return EXIT.ok;
}
