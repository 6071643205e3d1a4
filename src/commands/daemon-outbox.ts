// `provenance daemon outbox [--last] [--json]`: the sign-in mails an offline daemon wrote to
// <data-dir>/outbox/. Reads the files, so it works whether or not the daemon runs.
// `--last` prints only the newest sign-in link, for scripts: open "$(provenance daemon outbox --last)".
import { resolveDataDir } from '../daemon/store/data-dir.js';
import { listOutbox, terminalSafe } from '../daemon/web/outbox.js';
import { DAEMON_EXIT } from './daemon.js';
import { missingDataDir } from './daemon-errors.js';
import type { CommandIO } from './io.js';

export interface OutboxCommandOptions {
  dataDir?: string;
  last: boolean;
  json: boolean;
}

export async function runDaemonOutbox(options: OutboxCommandOptions, io: CommandIO): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const missing = missingDataDir(dataDir);
  if (missing) {
    io.stderr.write(`provenance: ${missing}\n`);
    return DAEMON_EXIT.failed;
  }
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
    for (const m of messages) io.stdout.write(`${terminalSafe(m.date)}  ${terminalSafe(m.to)}  ${m.link ?? '(no link)'}\n`);
  }
  // As with --last (and grep): exit 1 when there is no sign-in mail, so a script can tell.
  return messages.some((m) => m.link) ? DAEMON_EXIT.ok : DAEMON_EXIT.failed;
}
