// Registers `provenance daemon ...` on the commander program. Only flag definitions live here;
// each action imports its implementation lazily, so other commands never load the daemon.
import { Option, type Command } from 'commander';
import type { CommandIO } from './io.js';

const DATA_DIR_HELP = 'data directory (default: $PROVENANCE_DATA_DIR, else the user data dir, e.g. ~/.local/share/provenance)';

export function registerDaemonCommands(program: Command, io: CommandIO, setExit: (code: number) => void): void {
  const daemon = program.command('daemon').description('Run the local /v1 API daemon and administer its accounts and keys.');

  daemon
    .command('start')
    .description('Serve the /v1 API; prints "listening on http://HOST:PORT".')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free port)', '8787')
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--allow-private-urls', 'let `url` downloads reach loopback and private addresses (offline testing)', false)
    .option('--detach', 'run in the background; logs go to daemon.log in the data dir', false)
    .option('--smtp-url <url>', 'send sign-in mails through this SMTP server, smtp[s]://[user:pass@]host[:port] (or $PROVENANCE_SMTP_URL); default: write them to <data-dir>/outbox/ and print the link')
    .option('--mail-from <address>', 'From: address of sign-in mails')
    .option('--public-url <url>', 'base URL put in sign-in links (behind a reverse proxy: its public https URL)')
    .option('--trust-proxy', 'a reverse proxy is in front: take client address and protocol from X-Forwarded-For/-Proto', false)
    .option('--trust-anchors <file>', 'PEM file of C2PA trust anchors, instead of those kept with `provenance trust`')
    .action(async (opts) => {
      const { runDaemonStart } = await import('./daemon.js');
      setExit(await runDaemonStart(opts, io));
    });

  daemon
    .command('stop')
    .description('Stop the daemon of the data dir (SIGTERM; it finishes in-flight requests).')
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

  const withCommon = (cmd: Command) => cmd.option('--data-dir <dir>', DATA_DIR_HELP).option('--json', 'print JSON', false);
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
}
