// `provenance daemon start` configured from the environment (issue 27), on the built CLI: every
// flag has its PROVENANCE_* variable, the same settings by flags or by variables give the same
// effective configuration and the same daemon, a flag wins over its variable, a flag without a
// value takes only 1/0/true/false, and no password reaches the output.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, spawnDaemon } from './process.js';
import { tempDir } from './helpers.js';
import { envNameOf, effectiveConfiguration, maskPassword } from '../../src/commands/daemon-env.js';
import { Option } from 'commander';

interface Started {
  child: ChildProcess;
  url: string;
  config: Record<string, unknown>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Runs `daemon start` with exactly these arguments and variables; resolves once it listens and has logged its configuration. */
async function start(args: string[], env: Record<string, string>): Promise<Started> {
  // Only whole lines (those followed by a newline): a line still being written is not JSON yet.
  const configLine = (err: string) => err.split('\n').slice(0, -1).find((l) => l.includes('"msg":"configuration"'));
  const daemon = await spawnDaemon(args, env, (_out, err) => configLine(err) !== undefined);
  return {
    child: daemon.child,
    url: daemon.url,
    config: JSON.parse(configLine(daemon.stderr())!).config,
    stderr: daemon.stderr,
    async stop() {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    },
  };
}

/** `daemon start` expected to refuse at once: its exit code and output. */
function refused(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [BIN, 'daemon', 'start', ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function detectorIds(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/v1/detectors`)).json()) as { detectors: { id: string }[] };
  return body.detectors.map((d) => d.id).sort();
}

describe('names', () => {
  it('PROVENANCE_ + the long flag in upper snake case; none for a --no- flag', () => {
    expect(envNameOf(new Option('--max-upload-bytes-per-account <size>'))).toBe('PROVENANCE_MAX_UPLOAD_BYTES_PER_ACCOUNT');
    expect(envNameOf(new Option('--trust-proxy [proxies]'))).toBe('PROVENANCE_TRUST_PROXY');
    expect(envNameOf(new Option('--no-cache'))).toBeUndefined();
    expect(maskPassword('postgres://app:pg-secret@db:5432/prov')).toBe('postgres://app:***@db:5432/prov');
    expect(maskPassword('smtp://mail.example.com:25')).toBe('smtp://mail.example.com:25');
    expect(effectiveConfiguration({ smtpUrl: 'smtps://u:p@h', mediaWait: '10', mailFrom: undefined })).toEqual({ mail_from: null, media_wait: '10', smtp_url: 'smtps://u:***@h' });
  });
});

describe('daemon start from the environment (built CLI)', () => {
  let dirs: ReturnType<typeof tempDir>[] = [];
  const dir = () => {
    const d = tempDir();
    dirs.push(d);
    return d.dir;
  };
  beforeAll(() => {
    dirs = [];
  });
  afterAll(() => dirs.forEach((d) => d.cleanup()));

  it('the same settings as variables give the configuration and the daemon the flags give', { timeout: 60_000 }, async () => {
    const byFlags = await start(
      ['--host', '127.0.0.1', '--port', '0', '--data-dir', dir(), '--catalogue', 'hosted', '--media-wait', '7', '--max-uploads-per-account', '5', '--test-mode', '--trust-proxy', '1', '--public-url', 'https://prov.example.com', '--log-level', 'info'],
      {},
    );
    const byEnv = await start([], {
      PROVENANCE_HOST: '127.0.0.1',
      PROVENANCE_PORT: '0',
      PROVENANCE_DATA_DIR: dir(),
      PROVENANCE_CATALOGUE: 'hosted',
      PROVENANCE_MEDIA_WAIT: '7',
      PROVENANCE_MAX_UPLOADS_PER_ACCOUNT: '5',
      PROVENANCE_TEST_MODE: 'true',
      PROVENANCE_TRUST_PROXY: '1',
      PROVENANCE_PUBLIC_URL: 'https://prov.example.com',
      PROVENANCE_LOG_LEVEL: 'info',
    });
    try {
      const { data_dir: flagDir, ...flagConfig } = byFlags.config;
      const { data_dir: envDir, ...envConfig } = byEnv.config;
      expect(envConfig).toEqual(flagConfig);
      expect(flagDir).not.toBe(envDir);
      expect(flagConfig).toMatchObject({ host: '127.0.0.1', port: 0, catalogue: 'hosted', media_wait: '7', max_uploads_per_account: '5', test_mode: true, trust_proxy: '1', detach: false });
      // And they behave alike: the hosted five detectors, test mode on, on 127.0.0.1.
      expect(byEnv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const hosted = await detectorIds(byFlags.url);
      expect(hosted).toHaveLength(5);
      expect(await detectorIds(byEnv.url)).toEqual(hosted);
      for (const daemon of [byFlags, byEnv]) {
        const health = (await (await fetch(`${daemon.url}/healthz`)).json()) as { test_mode?: boolean };
        expect(health.test_mode).toBe(true);
      }
    } finally {
      await Promise.all([byFlags.stop(), byEnv.stop()]);
    }
  });

  it('a flag wins over its variable; 0 and false turn a flag off', { timeout: 60_000 }, async () => {
    const daemon = await start(['--port', '0', '--catalogue', 'full', '--data-dir', dir()], {
      PROVENANCE_CATALOGUE: 'hosted',
      PROVENANCE_PORT: '1',
      PROVENANCE_TEST_MODE: '0',
      PROVENANCE_ALLOW_PRIVATE_URLS: 'false',
      PROVENANCE_MEDIA_WAIT: '3',
    });
    try {
      expect(daemon.config).toMatchObject({ catalogue: 'full', port: 0, test_mode: false, allow_private_urls: false, media_wait: '3' });
      expect((await detectorIds(daemon.url)).length).toBeGreaterThan(5);
    } finally {
      await daemon.stop();
    }
  });

  it('a flag without a value takes only 1, 0, true or false: anything else is exit 2 and one line', () => {
    const r = refused(['--port', '0', '--data-dir', dir()], { PROVENANCE_TEST_MODE: 'yes' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('provenance: PROVENANCE_TEST_MODE (for --test-mode): must be 1, 0, true or false, not "yes"\n');
    expect(r.stdout).toBe('');
    // A value outside a flag's choices is refused the same way.
    const level = refused(['--port', '0', '--data-dir', dir()], { PROVENANCE_LOG_LEVEL: 'loud' });
    expect(level.status).toBe(2);
    expect(level.stderr).toMatch(/^provenance: PROVENANCE_LOG_LEVEL \(for --log-level\): Allowed choices are fatal, error, warn, info, debug, trace, silent\n$/);
  });

  it('prints no password: the SMTP URL is shown masked', { timeout: 60_000 }, async () => {
    const daemon = await start(['--port', '0', '--data-dir', dir()], {
      PROVENANCE_SMTP_URL: 'smtp://mailer:s3cret-pass@127.0.0.1:2525',
      PROVENANCE_MAIL_FROM: 'noreply@example.com',
    });
    try {
      expect(daemon.config).toMatchObject({ smtp_url: 'smtp://mailer:***@127.0.0.1:2525', mail_from: 'noreply@example.com', store: null });
      expect(daemon.stderr()).not.toContain('s3cret-pass');
    } finally {
      await daemon.stop();
    }
  });

  it('--log-format pretty (from its variable) writes readable lines; --log-level warn drops the info ones', { timeout: 60_000 }, async () => {
    const pretty = spawn(process.execPath, [BIN, 'daemon', 'start', '--port', '0', '--data-dir', dir()], {
      env: { ...process.env, PROVENANCE_LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    pretty.stdout!.on('data', (d) => (out += d));
    pretty.stderr!.on('data', (d) => (err += d));
    const exited = new Promise((r) => pretty.on('exit', r));
    try {
      for (let waited = 0; waited < 20_000 && !/listening on (\S+)\n/.test(out); waited += 20) await new Promise((r) => setTimeout(r, 20));
      const url = /listening on (\S+)\n/.exec(out)![1]!;
      const r = await fetch(`${url}/v1/detectors`);
      await r.arrayBuffer();
      for (let waited = 0; waited < 5_000 && !err.includes('/v1/detectors'); waited += 20) await new Promise((r) => setTimeout(r, 20));
      const lines = err.split('\n').filter(Boolean);
      expect(lines.some((l) => /^\S+Z INFO  configuration .*catalogue=full/.test(l))).toBe(true);
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\S+Z INFO  ${r.headers.get('request-id')} GET /v1/detectors 200 [\\d.]+ ms in 0 B out [\\d.]+ (B|KiB)$`)));
      expect(lines.every((l) => !l.startsWith('{'))).toBe(true);
    } finally {
      pretty.kill('SIGTERM');
      await exited;
    }
    const quiet = await start(['--port', '0', '--data-dir', dir(), '--log-level', 'info'], { PROVENANCE_LOG_LEVEL: 'warn' });
    try {
      // The flag (info) won over the variable (warn): the configuration line was written.
      expect(quiet.config.log_level).toBe('info');
    } finally {
      await quiet.stop();
    }
    // At warn, neither the configuration nor the request lines (info) are written.
    const warned = await quietLog(['--port', '0', '--data-dir', dir()], { PROVENANCE_LOG_LEVEL: 'warn' });
    expect(warned).not.toContain('"level":30');
    expect(warned).not.toContain('request completed');
  });

  it('PROVENANCE_DETACH=1 detaches once (the child does not detach again), and --help names the variables', { timeout: 60_000 }, async () => {
    const data = dir();
    const r = spawnSync(process.execPath, [BIN, 'daemon', 'start', '--port', '0'], { env: { ...process.env, PROVENANCE_DETACH: '1', PROVENANCE_DATA_DIR: data }, encoding: 'utf8', timeout: 30_000 });
    try {
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      const status = spawnSync(process.execPath, [BIN, 'daemon', 'status', '--json', '--data-dir', data], { encoding: 'utf8' });
      expect(JSON.parse(status.stdout).running).toBe(true);
    } finally {
      const stop = spawnSync(process.execPath, [BIN, 'daemon', 'stop', '--data-dir', data], { encoding: 'utf8', timeout: 30_000 });
      expect(stop.status).toBe(0);
    }
    const help = spawnSync(process.execPath, [BIN, 'daemon', 'start', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain('(env: PROVENANCE_PORT)');
    expect(help.stdout).toContain('(env: PROVENANCE_MAX_UPLOAD_BYTES_PER_ACCOUNT)');
    expect(help.stdout).toMatch(/A flag given on the command line wins over its variable/);
  });
});

/** Starts a daemon that logs at warn, asks it one request, stops it: what it logged (info lines dropped). */
async function quietLog(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'daemon', 'start', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise((r) => child.on('exit', r));
  for (let waited = 0; waited < 20_000 && !/listening on (\S+)\n/.test(out); waited += 20) await new Promise((r) => setTimeout(r, 20));
  const url = /listening on (\S+)\n/.exec(out)![1]!;
  await (await fetch(`${url}/v1/detectors`)).arrayBuffer();
  await new Promise((r) => setTimeout(r, 200));
  child.kill('SIGTERM');
  await exited;
  return err;
}
