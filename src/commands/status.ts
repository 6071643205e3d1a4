// `provenance status [--json]`: where checks run (this machine or which API), where the key comes
// from, and the quota, read from the headers of the empty-body key check (no call spent).
import { NetworkError, ProtocolError } from '../client/errors.js';
import { describeQuota, type QuotaInfo } from '../client/quota.js';
import { describeKeySource, openSession, SessionError, type RemoteDeps } from '../client/session.js';
import { credentialsPath } from '../config/credentials.js';
import { cacheDir } from '../config/paths.js';
import { remoteBlocker, remoteTarget, wantsRemote, type KeySource } from '../config/remote.js';
import { settingsPath, SettingsError } from '../config/settings.js';
import { EXIT, type CommandIO } from './io.js';
import { printable } from '../ui/terminal-text.js';

export interface StatusOptions {
  json: boolean;
}

interface StatusReport {
  /** Where `provenance check` runs now (without --local/--remote); see `problem` when it cannot. */
  mode: 'local' | 'remote';
  api_url: string | null;
  api_url_from: 'PROVENANCE_API_URL' | 'config' | null;
  key_from: KeySource | null;
  /** true / false as the API said; null when not asked (no key) or no answer. */
  key_valid: boolean | null;
  quota: QuotaInfo | null;
  problem: string | null;
  config_file: string;
  credentials_file: string;
  cache_dir: string;
  cache: boolean;
}

export async function runStatus(options: StatusOptions, io: CommandIO, deps: RemoteDeps = {}): Promise<number> {
  let target;
  try {
    target = remoteTarget(io.env);
  } catch (err) {
    if (err instanceof SettingsError) {
      io.stderr.write(`provenance: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  const report: StatusReport = {
    mode: wantsRemote(target, {}) ? 'remote' : 'local',
    api_url: target.apiUrl ?? null,
    api_url_from: target.apiUrlFrom ?? null,
    key_from: target.keyFrom ?? null,
    key_valid: null,
    quota: null,
    problem: target.otherLogin ? (remoteBlocker(target) ?? null) : null,
    config_file: settingsPath(io.env),
    credentials_file: credentialsPath(io.env),
    cache_dir: cacheDir(io.env),
    cache: target.settings.cache !== false,
  };
  let code: number = EXIT.ok;
  if (target.keyFrom && target.apiUrl) {
    try {
      const session = await openSession(io.env, { deps, maxInFlight: 1 });
      try {
        const check = await session.client.checkKey();
        report.key_valid = check.valid;
        report.quota = check.quota ?? null;
        if (!check.valid) {
          report.problem = `The API refused the key (${check.message ?? 'authentication failed'}) Log in again with \`provenance login\`.`;
          code = EXIT.unreadable;
        }
      } finally {
        await session.client.close();
      }
    } catch (err) {
      if (err instanceof SessionError || err instanceof NetworkError || err instanceof ProtocolError) {
        report.problem = err.message;
        code = EXIT.unreadable;
      } else throw err;
    }
  }

  if (options.json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return code;
  }
  const lines: [string, string][] = [];
  lines.push(['checks run', report.mode === 'remote' ? `with the API at ${report.api_url}` : 'on this machine (local engine)']);
  if (report.api_url) lines.push(['API URL', `${report.api_url} (from ${report.api_url_from === 'config' ? report.config_file : 'PROVENANCE_API_URL'})`]);
  lines.push([
    'key',
    report.key_from === 'file' ? `from ${report.credentials_file}` : report.key_from ? `from ${describeKeySource(report.key_from)}` : 'none: not logged in (`provenance login`)',
  ]);
  if (report.key_valid !== null) lines.push(['key check', report.key_valid ? 'accepted by the API (no call spent)' : 'REFUSED by the API']);
  if (report.quota) {
    lines.push(['quota', describeQuota(report.quota)]);
    const b = report.quota.burst;
    if (b) lines.push(['burst', `${b.remaining} of ${b.limit} requests left this minute`]);
  }
  lines.push(['cache', report.cache ? report.cache_dir : `off (the cache setting), ${report.cache_dir}`]);
  lines.push(['config', report.config_file]);
  const width = Math.max(...lines.map(([k]) => k.length));
  io.stdout.write(lines.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join(''));
  if (report.problem) io.stderr.write(`provenance: ${printable(report.problem)}\n`);
  return code;
}
