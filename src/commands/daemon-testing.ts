// `provenance daemon clock|seed|export|import|reset|requests` and `daemon keys make`: the test
// mode commands (issue 15). Each runs against a running daemon through its admin endpoint, or on
// the store when none runs (clock and requests need a running daemon: they live in its memory).
import { writeFileSync } from 'node:fs';
import { readJsonFile } from './json-file.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AdminError } from '../daemon/accounts/accounts.js';
import { runAdmin, type AdminOp, type AdminResults } from '../daemon/admin/admin-client.js';
import { newKeyValue } from '../daemon/accounts/key-format.js';
import { resolveDataDir } from '../daemon/store/data-dir.js';
import { FixtureError } from '../daemon/testing/fixtures.js';
import type { ClockAction } from '../daemon/testing/test-clock.js';
import type { RequestLogEntry } from '../daemon/testing/request-log.js';
import type { CommandIO } from './io.js';
import { DAEMON_EXIT } from './daemon.js';

interface Common {
  dataDir?: string;
  json?: boolean;
}

/** A refused command: its message, and the exit code it means. */
function exitFor(err: unknown): number {
  if (err instanceof FixtureError) return DAEMON_EXIT.usage;
  if (err instanceof AdminError) return err.code === 'invalid' ? DAEMON_EXIT.usage : err.code === 'not_running' ? DAEMON_EXIT.notRunning : DAEMON_EXIT.failed;
  return DAEMON_EXIT.failed;
}

async function admin<T extends AdminOp>(op: T, o: Common, io: CommandIO): Promise<AdminResults[T['op']] | number> {
  try {
    return await runAdmin({ dataDir: resolveDataDir(o.dataDir, io.env) }, op);
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return exitFor(err);
  }
}

export async function runClock(o: Common & { action?: string; value?: string }, io: CommandIO): Promise<number> {
  let change: ClockAction | undefined;
  switch (o.action ?? 'show') {
    case 'show':
      break;
    case 'set':
      if (!o.value) return usage(io, 'daemon clock set needs a time, e.g. 2026-12-01T00:00:00Z');
      change = { action: 'set', at: o.value };
      break;
    case 'advance':
      if (!o.value) return usage(io, 'daemon clock advance needs a duration, e.g. 31d, 2h or 90s');
      change = { action: 'advance', by: o.value };
      break;
    case 'real':
      change = { action: 'real' };
      break;
    default:
      return usage(io, `unknown clock action "${o.action}"; use show, set ISO-8601, advance DURATION or real`);
  }
  const result = await admin({ op: 'clock', change }, o, io);
  if (typeof result === 'number') return result;
  io.stdout.write(o.json ? `${JSON.stringify(result)}\n` : `${result.now} (${result.mode === 'real' ? 'real time' : 'test clock, frozen'}${result.test_mode ? '' : '; no --test-mode'})\n`);
  return DAEMON_EXIT.ok;
}

export async function runSeed(o: Common & { file: string }, io: CommandIO): Promise<number> {
  const doc = readJsonFile(o.file, 'fixture file', io);
  if (!doc) return DAEMON_EXIT.usage;
  const result = await admin({ op: 'seed', fixtures: doc.value }, o, io);
  if (typeof result === 'number') return result;
  io.stdout.write(
    o.json
      ? `${JSON.stringify(result)}\n`
      : `seeded: ${result.accounts_created} account(s) created, ${result.accounts_updated} updated, ${result.keys_created} key(s) added${result.keys_restored ? `, ${result.keys_restored} restored (active, fixture name)` : ''}\n`,
  );
  return DAEMON_EXIT.ok;
}

export async function runKeysMake(_o: Common, io: CommandIO): Promise<number> {
  io.stdout.write(`${newKeyValue()}\n`);
  return DAEMON_EXIT.ok;
}

export async function runExport(o: Common & { out?: string }, io: CommandIO): Promise<number> {
  const result = await admin({ op: 'exportState' }, o, io);
  if (typeof result === 'number') return result;
  const text = `${JSON.stringify(result, null, 2)}\n`;
  if (!o.out) {
    io.stdout.write(text);
    return DAEMON_EXIT.ok;
  }
  try {
    writeFileSync(o.out, text, { mode: 0o600 });
  } catch (err) {
    io.stderr.write(`provenance: cannot write ${o.out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return DAEMON_EXIT.failed;
  }
  io.stderr.write(`exported ${result.accounts.length} account(s), ${result.keys.length} key(s) to ${o.out}\n`);
  return DAEMON_EXIT.ok;
}

export async function runImport(o: Common & { file: string }, io: CommandIO): Promise<number> {
  const doc = readJsonFile(o.file, 'state file', io);
  if (!doc) return DAEMON_EXIT.usage;
  const result = await admin({ op: 'importState', snapshot: doc.value }, o, io);
  if (typeof result === 'number') return result;
  const counts = Object.entries(result.imported).map(([k, n]) => `${n} ${k}`).join(', ');
  io.stdout.write(o.json ? `${JSON.stringify(result)}\n` : `imported: ${counts}\n`);
  return DAEMON_EXIT.ok;
}

export async function runReset(o: Common & { keepAccounts?: boolean }, io: CommandIO): Promise<number> {
  const result = await admin({ op: 'reset', keepAccounts: Boolean(o.keepAccounts) }, o, io);
  if (typeof result === 'number') return result;
  io.stdout.write(
    o.json ? `${JSON.stringify(result)}\n` : `reset: usage, uploads, sessions, sign-in links and the request log are gone${result.kept_accounts ? '; accounts and keys kept' : ', and so are accounts and keys'}\n`,
  );
  return DAEMON_EXIT.ok;
}

const requestLine = (e: RequestLogEntry) =>
  [
    e.time,
    e.request_id,
    e.method.padEnd(4),
    e.path,
    String(e.status),
    e.error_type ?? '-',
    e.account ?? '-',
    e.key_prefix ? `${e.key_prefix}...` : '-',
    e.quota_used === null ? '-' : `used ${e.quota_used}`,
    `${e.duration_ms} ms`,
    e.forced ? `FORCED ${e.forced}` : '',
  ]
    .join('  ')
    .trimEnd() + '\n';

/** How often --follow asks the daemon for new entries. */
const FOLLOW_POLL_MS = 300;

export async function runRequests(o: Common & { follow?: boolean; account?: string; limit?: string }, io: CommandIO, signal?: AbortSignal): Promise<number> {
  const limit = o.limit === undefined ? undefined : Number(o.limit);
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0 && limit <= 1000)) return usage(io, '--limit must be a whole number from 1 to 1000');
  let after: number | undefined;
  let first = true;
  // --follow polls until Ctrl-C / SIGTERM (the signal); without it, one read.
  while (!signal?.aborted) {
    const result = await admin({ op: 'requests', after, account: o.account, limit: first ? limit : undefined }, o, io);
    if (typeof result === 'number') return result;
    for (const entry of result.requests) io.stdout.write(o.json ? `${JSON.stringify(entry)}\n` : requestLine(entry));
    if (first && !o.json && !o.follow && result.requests.length === 0) io.stdout.write('no requests yet\n');
    after = result.requests.at(-1)?.seq ?? after ?? 0;
    first = false;
    if (!o.follow) break;
    await sleep(FOLLOW_POLL_MS, undefined, { signal }).catch(() => {});
  }
  return DAEMON_EXIT.ok;
}

function usage(io: CommandIO, message: string): number {
  io.stderr.write(`provenance: ${message}\n`);
  return DAEMON_EXIT.usage;
}
