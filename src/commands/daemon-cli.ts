// Registers `provenance daemon ...` on the commander program. Only flag definitions live here;
// each action imports its implementation lazily, so other commands never load the daemon.
import { Option, type Command } from 'commander';
import type { CommandIO } from './io.js';
import { withEnvironment } from './daemon-env.js';
import { LOG_FORMATS, LOG_LEVELS } from '../daemon/http/log-levels.js';

const STORE_HELP =
  'keep accounts, keys, usage, uploads and sessions in PostgreSQL, shared by every daemon on it: postgres://USER@HOST:PORT/DATABASE (default: $PROVENANCE_DATABASE_URL, else the embedded store in the data dir)';
const DATA_DIR_HELP = 'data directory (default: $PROVENANCE_DATA_DIR, else the user data dir, e.g. ~/.local/share/provenance)';

export function registerDaemonCommands(program: Command, io: CommandIO, setExit: (code: number) => void): void {
  const daemon = program.command('daemon').description('Run the local /v1 API daemon and administer its accounts and keys.');

  daemon
    .command('start')
    .description('Serve the /v1 API; prints "listening on http://HOST:PORT".')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8787')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--store <url>', STORE_HELP)
    .option('--allow-private-urls', 'let `url` downloads reach loopback and private addresses (offline testing)', false)
    .option('--detach', 'run in the background; logs go to daemon.log in the data dir', false)
    .option('--smtp-url <url>', 'send sign-in mails through this SMTP server, smtp[s]://[user:pass@]host[:port] (or $PROVENANCE_SMTP_URL); default: write them to <data-dir>/outbox/ and print the link')
    .option('--mail-from <address>', 'From: address of sign-in mails')
    .option('--public-url <url>', 'base URL put in sign-in links (behind a reverse proxy: its public https URL)')
    .option(
      '--trust-proxy [proxies]',
      'a reverse proxy is in front: take client address and protocol from X-Forwarded-For/-Proto, believing only the proxies named: a hop count (1: one proxy; the default of a bare --trust-proxy) or their addresses/CIDRs, comma-separated (10.0.0.0/8,127.0.0.1)',
      false,
    )
    .option('--trust-anchors <file>', 'PEM file of C2PA trust anchors, used alone instead of the C2PA lists and those added with `provenance trust add`')
    .option('--test-mode', 'for testing API clients: enable the test clock (`daemon clock`) and the Provenance-Test-Response header', false)
    .option('--fixtures <file>', 'seed accounts and keys from this JSON file at start (see `daemon seed`)')
    .option('--catalogue <name>', "full (every detector, the default) or hosted (serve and run exactly the hosted service's five, for testing clients against the hosted contract)", 'full')
    .option('--media-memory <size>', 'media bytes held in memory at once over every request (downloads, inline and multipart bodies, uploads read back): bytes or e.g. 512MiB', '256MiB')
    .option('--media-wait <seconds>', 'how long a request waits for room in --media-memory before it is refused with 503 server_busy (its API call given back)', '10')
    .option('--detect-timeout <seconds>', "how long one file's checks may run on a worker (1 to 600); past it the worker is stopped and the request answered 413 media_too_large, its API call counted", '60')
    .option('--max-uploads-per-account <n>', 'live uploads one account may keep (each lives 24 h); past it POST /v1/uploads answers 429 upload_limit_exceeded', '100')
    .option('--max-upload-bytes-per-account <size>', 'bytes of live uploads one account may keep: bytes or e.g. 1GiB, 500MB (units are binary: 1 MB = 1,048,576 bytes); past it 429 upload_limit_exceeded', '1GiB')
    .option('--storage-floor <size>', "free space every upload must leave on the data dir's disk (uploads are streamed there, whichever the store), e.g. 1GiB; under it 503 storage_full; 0: no floor", '1GiB')
    // Defaults as DEFAULT_DRAIN_DELAY_MS and DEFAULT_SHUTDOWN_GRACE_MS in daemon/http/server.ts
    // (not imported: this file stays light for every other command).
    .option('--drain-delay <seconds>', 'on SIGTERM/SIGINT/`daemon stop`: /readyz answers 503 at once, and new connections are still accepted this long so a load balancer notices (waited only if /readyz was asked since the start); 0: none', '5')
    .option('--shutdown-grace <seconds>', 'then, with no new connections, how long in-flight requests may take to finish before their connections are cut', '10')
    .option(
      '--metrics-listen <host:port>',
      'also serve GET /metrics (Prometheus) here, without a token: a loopback or private address only, e.g. 127.0.0.1:9464 (on the main address /metrics needs the admin token)',
    )
    .addOption(new Option('--log-level <level>', 'the least severe log lines written (one JSON line per request at info)').choices(LOG_LEVELS).default('info'))
    .addOption(
      new Option('--log-format <format>', 'json: one JSON line each (for log collectors); pretty: one readable line each (for a terminal)').choices(LOG_FORMATS).default('json'),
    )
    .action(async (opts) => {
      const { runDaemonStart } = await import('./daemon.js');
      setExit(await runDaemonStart(opts, io));
    });
  // Every option of `daemon start`, whoever adds it, can come from a PROVENANCE_* variable.
  withEnvironment(daemon.commands.find((command) => command.name() === 'start')!, io);

  daemon
    .command('stop')
    .description('Stop the daemon of the data dir (SIGTERM: /readyz turns 503, it drains and finishes in-flight requests; see start --drain-delay, --shutdown-grace).')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(async (opts) => {
      const { runDaemonStop } = await import('./daemon.js');
      setExit(await runDaemonStop(opts, io));
    });

  daemon
    .command('status')
    .description('Say whether a daemon runs on the data dir (exit 0) or not (exit 3).')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--json', 'print JSON', false)
    .action(async (opts) => {
      const { runDaemonStatus } = await import('./daemon.js');
      setExit(await runDaemonStatus(opts, io));
    });

  daemon
    .command('outbox')
    .description('Print the sign-in mails an offline daemon wrote to <data-dir>/outbox/ (works without a running daemon).')
    .option('--last', 'print only the latest sign-in link', false)
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--json', 'print JSON', false)
    .action(async (opts) => {
      const { runDaemonOutbox } = await import('./daemon-outbox.js');
      setExit(await runDaemonOutbox(opts, io));
    });

  daemon
    .command('migrate')
    .description('Create or upgrade the PostgreSQL schema (daemons also do this at start).')
    .option('--store <url>', 'postgres://USER@HOST:PORT/DATABASE (default: $PROVENANCE_STORE, then $PROVENANCE_DATABASE_URL)')
    .action(async (opts) => {
      const { runDaemonMigrate } = await import('./daemon-store.js');
      setExit(await runDaemonMigrate(opts, io));
    });

  const store = daemon.command('store').description('Move a daemon\'s state between stores.');
  store
    .command('copy')
    .description('Copy an embedded store (accounts, keys, usage, live uploads) into an empty PostgreSQL database; keys keep working.')
    .requiredOption('--from <dir>', 'the data dir of the embedded store (its daemon stopped)')
    .requiredOption('--to <url>', 'postgres://USER@HOST:PORT/DATABASE')
    .action(async (opts) => {
      const { runStoreCopy } = await import('./daemon-store.js');
      setExit(await runStoreCopy(opts, io));
    });

  const withCommon = (cmd: Command) =>
    cmd
      .option('--data-dir <dir>', DATA_DIR_HELP)
      .option('--store <url>', 'work on this PostgreSQL database directly, no daemon needed (default: $PROVENANCE_STORE, then $PROVENANCE_DATABASE_URL)')
      .option('--json', 'print JSON', false);
  // clock and requests live in a running daemon's memory: a data dir finds it, a database cannot.
  const withRunning = (cmd: Command) =>
    cmd.option('--data-dir <dir>', `the running daemon's ${DATA_DIR_HELP}`).option('--json', 'print JSON', false);
  const plan = () => new Option('--plan <plan>', 'plan').choices(['free', 'starter', 'growth', 'custom']);

  const accounts = daemon.command('accounts').description('Create and list accounts (offline; no e-mail is sent).');
  withCommon(accounts.command('create').description('Create an account and print its first key (once).'))
    .requiredOption('--email <email>', 'e-mail address of the account')
    .addOption(plan().default('free'))
    .option('--quota <n>', 'monthly API calls (custom plan only)')
    .action(async (opts) => {
      const { runAccountsCreate } = await import('./daemon-admin.js');
      setExit(await runAccountsCreate(opts, io));
    });
  withCommon(accounts.command('list').description('List accounts with their limits and this month\'s usage.')).action(async (opts) => {
    const { runAccountsList } = await import('./daemon-admin.js');
    setExit(await runAccountsList(opts, io));
  });
  withCommon(accounts.command('set-plan').description('Change the plan of an account.'))
    .requiredOption('--email <email>', 'e-mail address of the account')
    .addOption(plan().makeOptionMandatory())
    .option('--quota <n>', 'monthly API calls (custom plan only)')
    .action(async (opts) => {
      const { runAccountsSetPlan } = await import('./daemon-admin.js');
      setExit(await runAccountsSetPlan(opts, io));
    });

  const keys = daemon.command('keys').description('Create, list and revoke API keys.');
  withCommon(keys.command('create').description('Create a key for an account and print it (once).'))
    .requiredOption('--email <email>', 'e-mail address of the account')
    .option('--name <name>', 'a name to tell the key apart')
    .action(async (opts) => {
      const { runKeysCreate } = await import('./daemon-admin.js');
      setExit(await runKeysCreate(opts, io));
    });
  withCommon(keys.command('list').description('List keys (never the keys themselves).'))
    .option('--email <email>', 'only the keys of this account')
    .action(async (opts) => {
      const { runKeysList } = await import('./daemon-admin.js');
      setExit(await runKeysList(opts, io));
    });
  withCommon(keys.command('revoke').description('Revoke a key; requests with it get 401 from then on.'))
    .argument('<key-id>', 'the key id (key_...)')
    .action(async (id: string, opts) => {
      const { runKeysRevoke } = await import('./daemon-admin.js');
      setExit(await runKeysRevoke({ ...opts, id }, io));
    });

  withCommon(keys.command('make').description('Print a new valid key (format and checksum) to put in a fixture file; nothing is stored.')).action(async (opts) => {
    const { runKeysMake } = await import('./daemon-testing.js');
    setExit(await runKeysMake(opts, io));
  });

  // Test mode and state (issue 15).
  withRunning(daemon.command('clock').description('Show or move the test clock of a daemon started with --test-mode.'))
    .argument('[action]', 'show (default), set ISO-8601, advance DURATION (31d, 2h, 90s), or real')
    .argument('[value]', 'the time for set, the duration for advance')
    .action(async (action: string | undefined, value: string | undefined, opts) => {
      const { runClock } = await import('./daemon-testing.js');
      setExit(await runClock({ ...opts, action, value }, io));
    });
  withCommon(daemon.command('seed').description('Add or update accounts and keys from a fixture file (idempotent; nothing applied if any entry is wrong).'))
    .argument('<file>', 'fixture JSON: {"accounts": [{"email", "plan"?, "quota"?, "used"?, "keys"?: [{"key", "name"?}]}]}')
    .action(async (file: string, opts) => {
      const { runSeed } = await import('./daemon-testing.js');
      setExit(await runSeed({ ...opts, file }, io));
    });
  withCommon(daemon.command('export').description('Write the whole state (key hashes, never keys) as one versioned JSON document.'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (opts) => {
      const { runExport } = await import('./daemon-testing.js');
      setExit(await runExport(opts, io));
    });
  withCommon(daemon.command('import').description('Replace the whole state with a document written by `daemon export`.'))
    .argument('<file>', 'the exported JSON')
    .action(async (file: string, opts) => {
      const { runImport } = await import('./daemon-testing.js');
      setExit(await runImport({ ...opts, file }, io));
    });
  withCommon(daemon.command('reset').description('Remove usage, uploads, sessions, sign-in links and the request log; accounts and keys too unless --keep-accounts.'))
    .option('--keep-accounts', 'keep accounts and keys', false)
    .action(async (opts) => {
      const { runReset } = await import('./daemon-testing.js');
      setExit(await runReset(opts, io));
    });
  withRunning(daemon.command('requests').description('Print the last /v1 requests of a running daemon (never bodies or keys).'))
    .option('--follow', 'keep printing new requests until Ctrl-C', false)
    .option('--account <email>', 'only this account\'s requests')
    .option('--limit <n>', 'only the last N (1-1000)')
    .action(async (opts) => {
      const { runRequests } = await import('./daemon-testing.js');
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        setExit(await runRequests(opts, io, stop.signal));
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
