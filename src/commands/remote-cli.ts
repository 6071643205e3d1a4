// Registers the commands for working with a /v1 API: login, logout, status, config, cache and
// upload. Only flag definitions live here; each action imports its implementation lazily, so
// `provenance check` never loads undici, conf or the keychain module at start.
import type { Command } from 'commander';
import type { CommandIO } from './io.js';

export function registerRemoteCommands(program: Command, io: CommandIO, setExit: (code: number) => void): void {
  program
    .command('login')
    .description('Store an API key for a /v1 API (checked without spending a call); `check` then runs there.')
    .option('--api-url <url>', 'base URL of the API (default: PROVENANCE_API_URL, then the api_url setting, else asked)')
    .option('--with-key', 'read the key from standard input instead of a hidden prompt', false)
    .option('--no-keychain', 'keep the key in the credentials file (mode 0600) instead of the OS keychain')
    .action(async (opts: { apiUrl?: string; withKey: boolean; keychain: boolean }) => {
      const { runLogin } = await import('./login.js');
      setExit(await runLogin({ apiUrl: opts.apiUrl, withKey: opts.withKey, keychain: opts.keychain }, io));
    });

  program
    .command('logout')
    .description('Remove the stored API key; checks run on this machine again.')
    .action(async () => {
      const { runLogout } = await import('./logout.js');
      setExit(await runLogout({}, io));
    });

  program
    .command('status')
    .description('Where checks run, where the key comes from, and the quota (no call spent).')
    .option('--json', 'print JSON', false)
    .action(async (opts: { json: boolean }) => {
      const { runStatus } = await import('./status.js');
      setExit(await runStatus({ json: opts.json }, io));
    });

  const config = program.command('config').description('Show and change settings (config.json in the config folder; PROVENANCE_CONFIG_DIR moves it).');
  config
    .command('get')
    .description('Print a setting (exit 1 when it is not set).')
    .argument('<key>', 'api_url, trust_anchors, cache, incremental, login.api_url, login.key_store')
    .action(async (key: string) => {
      const { runConfigGet } = await import('./config.js');
      setExit(await runConfigGet({ key }, io));
    });
  config
    .command('set')
    .description('Change a setting.')
    .argument('<key>', 'api_url, trust_anchors, cache or incremental')
    .argument('<value>', 'the new value')
    .action(async (key: string, value: string) => {
      const { runConfigSet } = await import('./config.js');
      setExit(await runConfigSet({ key, value }, io));
    });
  config
    .command('unset')
    .description('Remove a setting (back to its default).')
    .argument('<key>', 'api_url, trust_anchors, cache or incremental')
    .action(async (key: string) => {
      const { runConfigUnset } = await import('./config.js');
      setExit(await runConfigUnset({ key }, io));
    });
  config
    .command('list')
    .description('Print every setting.')
    .option('--json', 'one JSON object', false)
    .action(async (opts: { json: boolean }) => {
      const { runConfigList } = await import('./config.js');
      setExit(await runConfigList({ json: opts.json }, io));
    });
  config
    .command('path')
    .description('Print the path of config.json.')
    .action(async () => {
      const { runConfigPath } = await import('./config.js');
      setExit(await runConfigPath({}, io));
    });

  const cache = program
    .command('cache')
    .description('The caches: remote results (by file SHA-256, checks and API URL) and, under `cache scan`, the scan cache of `check --incremental`.');
  cache
    .command('clear')
    .description('Remove every cached remote result (the scan cache: `cache scan clear`).')
    .action(async () => {
      const { runCacheClear } = await import('./cache.js');
      setExit(await runCacheClear({}, io));
    });
  cache
    .command('path')
    .description('Print the cache folder.')
    .action(async () => {
      const { runCachePath } = await import('./cache.js');
      setExit(await runCachePath({}, io));
    });
  const scan = cache.command('scan').description('The scan cache of `check --incremental` (local checks of unchanged files).');
  scan
    .command('clear')
    .description('Remove the scan cache; the next `check --incremental` checks every file again.')
    .action(async () => {
      const { runCacheScanClear } = await import('./cache.js');
      setExit(await runCacheScanClear({}, io));
    });
  scan
    .command('stats')
    .description('Where the scan cache is, how many entries and how much space it holds.')
    .option('--json', 'one JSON object', false)
    .action(async (opts: { json: boolean }) => {
      const { runCacheScanStats } = await import('./cache.js');
      setExit(await runCacheScanStats({ json: opts.json }, io));
    });

  program
    .command('upload')
    .description('Upload a file (up to 25 MB) to the API for later detection; prints the upload record. Free.')
    .argument('<file>', 'the file')
    .option('--json', 'print the upload record as JSON', false)
    .action(async (file: string, opts: { json: boolean }) => {
      const { runUpload } = await import('./upload.js');
      setExit(await runUpload({ file, json: opts.json }, io));
    });
}
