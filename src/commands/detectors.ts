// `provenance detectors [--json] [--remote]`: the catalogue; the JSON is the body of GET
// /v1/detectors, this build's own or (--remote) the configured API's.
import { detectorsBody } from '../detectors/catalogue.js';
import { makeStyle } from '../ui/style.js';
import { EXIT, wantsColor, type CommandIO } from './io.js';

export interface DetectorsOptions {
  json: boolean;
  /** Ask the API (GET /v1/detectors, public) instead of listing this build's catalogue. */
  remote?: boolean;
}

export async function runDetectors(options: DetectorsOptions, io: CommandIO): Promise<number> {
  let body = detectorsBody();
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
    io.stdout.write(`${s.bold(d.id)}  ${status}${d.inverse ? s.dim('  (inverse: a match points toward a camera capture)') : ''}\n`);
    io.stdout.write(`  ${d.name}: ${d.description}\n  ${s.dim(`reads: ${d.media_types.join(', ')}`)}\n\n`);
  }
  return EXIT.ok;
}
