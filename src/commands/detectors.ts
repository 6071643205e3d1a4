// `provenance detectors [--json]`: the catalogue; the JSON is the body of GET /v1/detectors.
import { detectorsBody } from '../detectors/catalogue.js';
import { makeStyle } from '../ui/style.js';
import { EXIT, wantsColor, type CommandIO } from './io.js';

export interface DetectorsOptions {
  json: boolean;
}

export async function runDetectors(options: DetectorsOptions, io: CommandIO): Promise<number> {
  const body = detectorsBody();
  if (options.json) {
    io.stdout.write(`${JSON.stringify(body)}\n`);
    return EXIT.ok;
  }
  const s = makeStyle(wantsColor(io.stdout, io.env));
  for (const d of body.detectors) {
    const status = d.status === 'available' ? s.green(d.status) : s.yellow(d.status);
    io.stdout.write(`${s.bold(d.id)}  ${status}${d.inverse ? s.dim('  (inverse: a match points toward a camera capture)') : ''}\n`);
    io.stdout.write(`  ${d.name}: ${d.description}\n  ${s.dim(`reads: ${d.media_types.join(', ')}`)}\n\n`);
  }
  return EXIT.ok;
}
