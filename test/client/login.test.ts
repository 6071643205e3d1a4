// login, status, logout and config against a real daemon on 127.0.0.1 (issue 5, "Done when").
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLogin } from '../../src/commands/login.js';
import type { CommandIO } from '../../src/commands/io.js';
import { filesBelow, login, remoteSetup, type RemoteSetup } from './helpers.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'camera.jpg');


/** When the quota resets: the first of next month (UTC), as the daemon on the real clock says. */
function nextMonth(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().replace('.000Z', 'Z');
}
describe('login', () => {
  let r: RemoteSetup;
  beforeAll(async () => {
    r = await remoteSetup({ plan: 'free' });
  });
  afterAll(() => r.close());

  it('refuses a revoked key, stores nothing, and spends no call', async () => {
    // Well-formed, with a valid checksum, but revoked: the API answers 401 as for an unknown key.
    const other = await r.t.account('revoked', 'free');
    await r.t.app.services.accounts.revokeKey(other.keyId);
    const run = await login(r, other.key);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused the key.*unknown or has been revoked.*Nothing was stored/);
    expect(existsSync(join(r.cfg, 'credentials.json'))).toBe(false);
    expect(existsSync(join(r.cfg, 'config.json'))).toBe(false);
    expect((await r.used())).toBe(0);
  });

  it('refuses a malformed key before sending it: exit 2, as CLIENT.md says', async () => {
    for (const bad of ['not-a-key', 'prv_bad', `${r.key.slice(0, -1)}${r.key.endsWith('A') ? 'B' : 'A'}`]) {
      const run = await login(r, bad);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toMatch(/^provenance: The key is malformed: .*Nothing was sent or stored\.\n$/);
    }
    expect(existsSync(join(r.cfg, 'credentials.json'))).toBe(false);
  });

  it('refuses a key with spaces or control characters before sending it', async () => {
    const run = await login(r, 'prv_abc def');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not printable ASCII|spaces/);
  });

  it('accepts a valid key without spending a call, shows the quota, stores it 0600', async () => {
    const run = await login(r);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Logged in to ${r.base}.`);
    expect(run.stdout).toContain(`stored in ${join(r.cfg, 'credentials.json')} (mode 0600)`);
    expect(run.stdout).toContain(`Quota: 0 of 500 calls used this month, 500 left; resets ${nextMonth()}.`);
    expect((await r.used())).toBe(0);
    expect(statSync(join(r.cfg, 'credentials.json')).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(join(r.cfg, 'config.json'), 'utf8'));
    expect(config).toEqual({ api_url: r.base, login: { api_url: r.base, key_store: 'file' } });
  });

  it('status: remote, key from the credentials file, quota from headers, no call spent', async () => {
    const run = await r.cli(['status', '--json']);
    expect(run.code).toBe(0);
    const s = JSON.parse(run.stdout);
    expect(s).toMatchObject({ mode: 'remote', api_url: r.base, api_url_from: 'config', key_from: 'file', key_valid: true, problem: null });
    expect(s.quota).toMatchObject({ limit: 500, used: 0, remaining: 500, reset: nextMonth(), burst: { limit: 10 } });
    const text = await r.cli(['status']);
    expect(text.stdout).toMatch(/checks run\s+with the API at http:\/\/127\.0\.0\.1:\d+/);
    expect(text.stdout).toMatch(/quota\s+0 of 500 calls used this month, 500 left/);
    expect((await r.used())).toBe(0);
  });

  it('a check then runs remotely and spends one call', async () => {
    const run = await r.cli(['check', '--json', EXAMPLE]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).media.type).toBe('image/jpeg');
    expect((await r.used())).toBe(1);
    const local = await r.cli(['check', '--json', '--local', EXAMPLE]);
    expect(local.code).toBe(0);
    expect((await r.used())).toBe(1);
  });

  it('after logout a plain check is local again, and a remote check asks for login', async () => {
    const out = await r.cli(['logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/Logged out of .*removed from the credentials file/);
    expect(existsSync(join(r.cfg, 'credentials.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(r.cfg, 'config.json'), 'utf8')).login).toBeUndefined();

    const remote = await r.cli(['check', '--json', '--remote', EXAMPLE]);
    expect(remote.code).toBe(2);
    expect(remote.stdout).toBe('');
    expect(remote.stderr).toMatch(/Not logged in to http:\/\/127\.0\.0\.1:\d+: run `provenance login`/);

    const local = await r.cli(['check', '--json', EXAMPLE]);
    expect(local.code).toBe(0);
    expect((await r.used())).toBe(1);
    const status = JSON.parse((await r.cli(['status', '--json'])).stdout);
    expect(status).toMatchObject({ mode: 'local', key_from: null });
    expect((await r.cli(['logout'])).stdout).toMatch(/Not logged in/);
  });

  it('PROVENANCE_API_KEY and PROVENANCE_API_URL override the stored values', async () => {
    const env = { PROVENANCE_API_KEY: r.key, PROVENANCE_API_URL: r.base };
    const status = JSON.parse((await r.cli(['status', '--json'], '', env)).stdout);
    expect(status).toMatchObject({ mode: 'remote', key_from: 'env', api_url_from: 'PROVENANCE_API_URL', key_valid: true });
    const before = (await r.used());
    const run = await r.cli(['check', '--json', '--no-cache', EXAMPLE], '', env);
    expect(run.code).toBe(0);
    expect((await r.used())).toBe(before + 1);
    // A key without any URL is a usage error, not a silent local run.
    const noUrl = await r.cli(['check', '--json', EXAMPLE], '', { PROVENANCE_API_KEY: r.key, PROVENANCE_CONFIG_DIR: join(r.cfg, 'elsewhere') });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/PROVENANCE_API_KEY is set but no API URL/);
    // A pasted key with a line break inside is refused before it reaches a header.
    const broken = await r.cli(['check', '--json', EXAMPLE], '', { PROVENANCE_API_KEY: `${r.key}\nX-Injected: 1`, PROVENANCE_API_URL: r.base });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/PROVENANCE_API_KEY: The key contains spaces or characters that are not printable ASCII/);
  });

  it('a stored key is sent only to the API it was stored for', async () => {
    expect((await login(r)).code).toBe(0);
    const run = await r.cli(['check', '--json', EXAMPLE], '', { PROVENANCE_API_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/logged in to http:\/\/127\.0\.0\.1:\d+, but PROVENANCE_API_URL names http:\/\/127\.0\.0\.1:9/);
    await r.cli(['logout']);
  });

  it('the key appears in no output and in no file but credentials.json', async () => {
    expect((await login(r)).code).toBe(0);
    await r.cli(['status']);
    await r.cli(['config', 'list']);
    await r.cli(['check', EXAMPLE]);
    for (const text of r.transcript) expect(text).not.toContain(r.key);
    for (const f of filesBelow(r.cfg)) {
      if (f.path.endsWith('credentials.json')) expect(f.mode).toBe(0o600);
      else expect(f.text, f.path).not.toContain(r.key);
    }
    await r.cli(['logout']);
  });
});

describe('login on a terminal', () => {
  let r: RemoteSetup;
  beforeAll(async () => {
    r = await remoteSetup();
  });
  afterAll(() => r.close());

  function tty(): { io: CommandIO; stdin: PassThrough & { isTTY: boolean; isRaw: boolean; setRawMode(raw: boolean): void }; modes: boolean[]; out(): string } {
    const modes: boolean[] = [];
    const stdin = Object.assign(new PassThrough(), {
      isTTY: true,
      isRaw: false,
      setRawMode(raw: boolean) {
        modes.push(raw);
        this.isRaw = raw;
      },
    });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => chunks.push(c));
    stderr.on('data', (c: Buffer) => chunks.push(c));
    return { io: { stdin, stdout, stderr, env: r.env }, stdin, modes, out: () => Buffer.concat(chunks).toString() };
  }

  it('reads the key with hidden input (raw mode, nothing echoed), with line editing', async () => {
    const t = tty();
    const done = runLogin({ apiUrl: r.base, withKey: false, keychain: false }, t.io);
    // A typo, erased with backspace, then the key in two pieces (as a paste may arrive), then Enter.
    setTimeout(() => {
      t.stdin.write('x\u007f');
      t.stdin.write(r.key.slice(0, 10));
      t.stdin.write(`${r.key.slice(10)}\r`);
    }, 20);
    expect(await done).toBe(0);
    expect(t.modes).toEqual([true, false]);
    expect(t.out()).toContain('(input hidden)');
    expect(t.out()).toContain('Logged in to');
    expect(t.out()).not.toContain(r.key);
    expect(t.out()).not.toContain(r.key.slice(0, 10));
  });

  it('Ctrl-C cancels without storing anything', async () => {
    await r.cli(['logout']);
    const t = tty();
    const done = runLogin({ apiUrl: r.base, withKey: false, keychain: false }, t.io);
    setTimeout(() => t.stdin.write('prv_abc\u0003'), 20);
    expect(await done).toBe(130);
    expect(t.modes).toEqual([true, false]);
    expect(existsSync(join(r.cfg, 'credentials.json'))).toBe(false);
  });

  it('without a terminal and without --with-key it says how to pipe the key', async () => {
    const run = await r.cli(['login', '--api-url', r.base], r.key);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--with-key/);
  });

  it('without any API URL it asks for --api-url', async () => {
    const run = await r.cli(['login', '--with-key'], r.key, { PROVENANCE_CONFIG_DIR: join(r.cfg, 'fresh') });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No API URL is set: give it with --api-url/);
  });
});

describe('config', () => {
  let r: RemoteSetup;
  beforeAll(async () => {
    r = await remoteSetup();
  });
  afterAll(() => r.close());

  it('set, get, list, unset and path, in PROVENANCE_CONFIG_DIR', async () => {
    expect((await r.cli(['config', 'path'])).stdout.trim()).toBe(join(r.cfg, 'config.json'));
    expect((await r.cli(['config', 'get', 'api_url'])).code).toBe(1);
    expect((await r.cli(['config', 'set', 'api_url', `${r.base}/v1/`])).code).toBe(0);
    expect((await r.cli(['config', 'get', 'api_url'])).stdout).toBe(`${r.base}\n`);
    expect((await r.cli(['config', 'set', 'cache', 'off'])).code).toBe(0);
    expect((await r.cli(['config', 'list'])).stdout).toBe(`api_url=${r.base}\ncache=false\nincremental=false  (default)\ncatalogue=full  (default)\n`);
    expect(JSON.parse((await r.cli(['config', 'list', '--json'])).stdout)).toEqual({ api_url: r.base, cache: false, incremental: false, catalogue: 'full' });
    expect((await r.cli(['config', 'unset', 'cache'])).code).toBe(0);
    expect((await r.cli(['config', 'list'])).stdout).toBe(`api_url=${r.base}\ncache=true  (default)\nincremental=false  (default)\ncatalogue=full  (default)\n`);
    // login then finds the URL in the settings.
    const run = await r.cli(['login', '--with-key', '--no-keychain'], r.key);
    expect(run.code).toBe(0);
    expect((await r.cli(['config', 'get', 'login.key_store'])).stdout).toBe('file\n');
    await r.cli(['logout']);
  });

  it('refuses unknown settings, bad values, and the key as a setting', async () => {
    expect((await r.cli(['config', 'set', 'colour', 'red'])).stderr).toMatch(/Unknown setting "colour"/);
    expect((await r.cli(['config', 'set', 'api_url', 'ftp://x'])).code).toBe(2);
    expect((await r.cli(['config', 'set', 'cache', 'maybe'])).stderr).toMatch(/true or false/);
    const key = await r.cli(['config', 'set', 'api_key', r.key]);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/not a setting: run `provenance login`/);
    expect((await r.cli(['config', 'set', 'login.key_store', 'file'])).code).toBe(2);
    expect(readFileSync(join(r.cfg, 'config.json'), 'utf8')).not.toContain(r.key);
  });
});
