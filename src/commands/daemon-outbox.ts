// `provenance daemon outbox [--last] [--json]`: the sign-in mails an offline daemon wrote to
// <data-dir>/outbox/. Reads the files, so it works whether or not the daemon runs.
// `--last` prints only the newest sign-in link, for scripts: open "$(provenance daemon outbox --last)".
import { resolveDataDir } from '../daemon/data-dir.js';
import { listOutbox } from '../daemon/outbox.js';
import { DAEMON_EXIT } from './daemon.js';
import type { CommandIO } from './io.js';

export interface OutboxCommandOptions {
  dataDir?: string;
  last: boolean;
  json: boolean;
}

export async function runDaemonOutbox(options: OutboxCommandOptions, io: CommandIO): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  let messages;
  try {
    messages = listOutbox(dataDir);
  } catch (err) {
    io.stderr.write(`provenance: cannot read the outbox of ${dataDir}: ${(err as Error).message}\n`);
    return DAEMON_EXIT.failed;
  }
  if (options.last) {
    const last = [...messages].reverse().find((m) => m.link);
    if (!last) {
      io.stderr.write(`provenance: no sign-in mail in ${dataDir}/outbox (sign in at the daemon's /signin first; with --smtp-url mails are sent, not kept)\n`);
      return DAEMON_EXIT.failed;
    }
    io.stdout.write(options.json ? `${JSON.stringify(last)}\n` : `${last.link}\n`);
    return DAEMON_EXIT.ok;
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ messages })}\n`);
  } else if (messages.length === 0) {
    io.stdout.write(`no mail in ${dataDir}/outbox\n`);
  } else {
    for (const m of messages) io.stdout.write(`${m.date}  ${m.to}  ${m.link ?? '(no link)'}\n`);
  }
  return DAEMON_EXIT.ok;
}
