// `provenance daemon ...` through the built binary: start/stop/status, the data-dir lock,
// graceful SIGTERM, --detach, logs without keys, and account/key administration both offline
// and through a running daemon's admin endpoint.
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { runBin, runCli } from '../helpers/run-cli.js';
import { b64, expectError, http, tempDir } from './helpers.js';
import { startDaemonProcess } from './process.js';

const media = b64(tinyJpeg());
const dirs: { cleanup(): void }[] = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));
function dataDir(): string {
  const d = tempDir('prov-cli-');
  dirs.push(d);
  return d.dir;
}

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = await runCli(args, undefined, env);
  return { ...r, json: r.stdout.trim().startsWith('{') ? JSON.parse(r.stdout) : undefined };
}

describe('daemon accounts / keys offline (no daemon running)', () => {
  it('creates, lists, changes plans, creates and revokes keys; keys print once and are stored hashed', async () => {
    const dir = dataDir();
    const created = await cli(['daemon', 'accounts', 'create', '--email', 'Ops@Example.TEST', '--plan', 'custom', '--quota', '5', '--data-dir', dir, '--json']);
    expect(created.code).toBe(0);
    expect(created.json.account).toMatchObject({ id: expect.stringMatching(/^acct_/), email: 'ops@example.test', plan: 'custom', quota: 5 });
    const key = created.json.key;
    expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), account: created.json.account.id, prefix: key.value.slice(0, 8), revoked_at: null, last_used_at: null });
    expect(readFileSync(join(dir, 'provenance.json'), 'utf8')).not.toContain(key.value);

    const human = await cli(['daemon', 'accounts', 'create', '--email', 'b@example.test', '--data-dir', dir]);
    expect(human.stdout).toMatch(/plan free: 500 calls\/month, 10 requests\/minute/);
    expect(human.stdout).toMatch(/prv_[0-9A-Za-z]{38}/);
    expect(human.stdout).toMatch(/shown once/);

    const dup = await cli(['daemon', 'accounts', 'create', '--email', 'ops@example.test', '--data-dir', dir]);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toMatch(/exists already/);
    const noQuota = await cli(['daemon', 'accounts', 'create', '--email', 'c@example.test', '--plan', 'custom', '--data-dir', dir]);
    expect(noQuota.code).toBe(2);
    expect(noQuota.stderr).toMatch(/--quota/);

    const list = await cli(['daemon', 'accounts', 'list', '--data-dir', dir, '--json']);
    expect(list.json.accounts.map((a: any) => a.email).sort()).toEqual(['b@example.test', 'ops@example.test']);
    expect(list.json.accounts.find((a: any) => a.plan === 'custom')).toMatchObject({ limits: { calls_per_month: 5, requests_per_minute: 300 }, usage: { used: 0 } });

    const plan = await cli(['daemon', 'accounts', 'set-plan', '--email', 'b@example.test', '--plan', 'growth', '--data-dir', dir, '--json']);
    expect(plan.json.account.plan).toBe('growth');

    const newKey = await cli(['daemon', 'keys', 'create', '--email', 'b@example.test', '--name', 'ci', '--data-dir', dir, '--json']);
    expect(newKey.json.key).toMatchObject({ name: 'ci', value: expect.stringMatching(/^prv_/) });
    const keys = await cli(['daemon', 'keys', 'list', '--email', 'b@example.test', '--data-dir', dir, '--json']);
    expect(keys.json.keys).toHaveLength(2);
    for (const k of keys.json.keys) expect(k.value).toBeUndefined();
    const revoked = await cli(['daemon', 'keys', 'revoke', newKey.json.key.id, '--data-dir', dir, '--json']);
    expect(revoked.json.key.revoked_at).toEqual(expect.any(String));
    const missing = await cli(['daemon', 'keys', 'revoke', 'key_nope', '--data-dir', dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No key key_nope/);
  });

  it('PROVENANCE_DATA_DIR chooses the data dir', async () => {
    const dir = dataDir();
    await cli(['daemon', 'accounts', 'create', '--email', 'env@example.test'], { PROVENANCE_DATA_DIR: dir });
    const list = await cli(['daemon', 'accounts', 'list', '--json', '--data-dir', dir]);
    expect(list.json.accounts[0].email).toBe('env@example.test');
  });
});

describe('a running daemon', () => {
  let dir: string;
  let daemon: Awaited<ReturnType<typeof startDaemonProcess>>;
  let key: string;

  beforeAll(async () => {
    dir = dataDir();
    key = (await cli(['daemon', 'accounts', 'create', '--email', 'run@example.test', '--data-dir', dir, '--json'])).json.key.value;
    daemon = await startDaemonProcess(['--data-dir', dir]);
  });
  afterAll(async () => {
    if (daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('prints `listening on http://127.0.0.1:PORT` with the port it got, and serves /v1 and /healthz', async () => {
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await http(daemon.url, 'GET', '/healthz')).body).toEqual({ status: 'ok', test_mode: false });
    expect((await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } })).status).toBe(200);
  });

  it('status says running; a second daemon on the same data dir exits with a clear message', async () => {
    const status = await cli(['daemon', 'status', '--data-dir', dir]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(daemon.url);
    const second = await runBin(['daemon', 'start', '--port', '0', '--data-dir', dir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already uses this data dir/);
    expect(second.stderr).toContain(String(daemon.child.pid));
  });

  it('admin commands go through the admin endpoint; the token file is 0600', async () => {
    expect(statSync(join(dir, 'admin.token')).mode & 0o777).toBe(0o600);
    const created = await cli(['daemon', 'keys', 'create', '--email', 'run@example.test', '--data-dir', dir, '--json']);
    expect(created.code).toBe(0);
    const fresh = created.json.key.value;
    expect((await http(daemon.url, 'POST', '/v1/detect', { key: fresh, json: { media } })).status).toBe(200);
    const list = await cli(['daemon', 'accounts', 'list', '--data-dir', dir, '--json']);
    expect(list.json.accounts[0].usage.used).toBe(2);
    // Revoking through the daemon takes effect at once (an offline write would be lost).
    const revoked = await cli(['daemon', 'keys', 'revoke', created.json.key.id, '--data-dir', dir]);
    expect(revoked.code).toBe(0);
    expectError(await http(daemon.url, 'POST', '/v1/detect', { key: fresh, json: { media } }), 401, 'authentication_error');
    // A plan change too.
    await cli(['daemon', 'accounts', 'set-plan', '--email', 'run@example.test', '--plan', 'custom', '--quota', '2', '--data-dir', dir]);
    expectError(await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } }), 429, 'quota_exceeded');
    // The admin endpoint wants the token.
    const noToken = await http(daemon.url, 'GET', '/admin/v1/accounts');
    expectError(noToken, 401, 'authentication_error');
    const wrong = await http(daemon.url, 'GET', '/admin/v1/accounts', { headers: { 'x-provenance-admin-token': 'guess' } });
    expectError(wrong, 401, 'authentication_error');
  });

  it('SIGTERM: finishes the in-flight request, exits 0, removes its pid/state/token files; logs never hold a key', async () => {
    // A slow file server: the download is still running when SIGTERM arrives.
    const slow = createServer((_req, res) => {
      setTimeout(() => res.writeHead(200).end(Buffer.from(tinyJpeg())), 700);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = `http://127.0.0.1:${(slow.address() as { port: number }).port}/a.jpg`;
    const d2dir = dataDir();
    const k2 = (await cli(['daemon', 'accounts', 'create', '--email', 'slow@example.test', '--data-dir', d2dir, '--json'])).json.key.value;
    const d2 = await startDaemonProcess(['--data-dir', d2dir, '--allow-private-urls']);
    try {
      const inFlight = http(d2.url, 'POST', '/v1/detect', { key: k2, json: { url: slowUrl } });
      await new Promise((r) => setTimeout(r, 250));
      d2.child.kill('SIGTERM');
      const r = await inFlight;
      expect(r.status).toBe(200);
      expect(await d2.exited).toBe(0);
      for (const f of ['daemon.pid', 'daemon.json', 'admin.token', 'daemon.lock']) expect(() => statSync(join(d2dir, f)), f).toThrow();
      const logs = d2.stderr();
      expect(logs).toMatch(/"route":"\/v1\/detect","method":"POST"/); // its one request line (request-log.ts)
      expect(logs).not.toContain(k2);
      expect(logs).not.toContain(k2.slice(4, 20));
      const status = await cli(['daemon', 'status', '--data-dir', d2dir]);
      expect(status.code).toBe(3);
    } finally {
      slow.close();
    }
  });

  it('daemon stop sends SIGTERM and waits', async () => {
    const stop = await cli(['daemon', 'stop', '--data-dir', dir]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(/stopped/);
    expect(await daemon.exited).toBe(0);
    expect((await cli(['daemon', 'stop', '--data-dir', dir])).stdout).toMatch(/no daemon is running/);
    // With no daemon, admin commands work on the store directly again.
    expect((await cli(['daemon', 'accounts', 'list', '--data-dir', dir, '--json'])).json.accounts[0].usage.used).toBe(2);
  });
});

describe('--detach', () => {
  it('starts in the background, prints the address, and stops with daemon stop', async () => {
    const dir = dataDir();
    const started = await runBin(['daemon', 'start', '--detach', '--port', '0', '--data-dir', dir]);
    expect(started.code).toBe(0);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.stdout)?.[1];
    expect(url).toBeDefined();
    expect((await http(url!, 'GET', '/healthz')).status).toBe(200);
    const status = await runBin(['daemon', 'status', '--json', '--data-dir', dir]);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, url });
    const stop = await runBin(['daemon', 'stop', '--data-dir', dir]);
    expect(stop.code).toBe(0);
    expect(readFileSync(join(dir, 'daemon.log'), 'utf8')).toMatch(/Server listening/);
  });
});
