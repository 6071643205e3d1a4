// The built CLI (bin/provenance.js -> dist/) as real subprocesses against a daemon on 127.0.0.1:
// the lazy bundles find undici, conf and @napi-rs/keyring, and a remote run ends at once (its
// kept-alive sockets are closed, not left to time out).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { comparable, remoteSetup, type RemoteSetup } from './helpers.js';

describe('bin/provenance.js in remote mode', () => {
  let r: RemoteSetup;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    r = await remoteSetup();
    // The subprocess gets the test's environment: no key or URL of the developer's may leak in.
    env = { ...r.env, PROVENANCE_API_KEY: '', PROVENANCE_API_URL: '' };
  });
  afterAll(() => r.close());

  it('login, status, check (remote = local), logout', async () => {
    const login = await runBin(['login', '--api-url', r.base, '--with-key'], { env, stdin: Buffer.from(r.key) });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/The key is stored in (the .*(Keychain|Manager|keyring)|.*credentials\.json \(mode 0600\))/);
    if (login.stdout.includes('credentials.json')) {
      expect(statSync(join(r.cfg, 'credentials.json')).mode & 0o777).toBe(0o600);
      // The keychain module itself loaded from the lazy bundle: the reason is the keychain's own.
      expect(login.stdout).not.toMatch(/Cannot find (package|module)|ERR_MODULE_NOT_FOUND/);
    }
    expect((await r.used())).toBe(0);

    const status = await runBin(['status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ mode: 'remote', key_valid: true, quota: { used: 0 } });

    const started = Date.now();
    const remote = await runBin(['check', '--json', 'examples/'], { env });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(remote.code, remote.stderr).toBe(0);
    const local = await runBin(['check', '--json', '--local', 'examples/'], { env });
    const lines = (s: string) => s.trim().split('\n').map((l) => comparable(JSON.parse(l)));
    expect(lines(remote.stdout)).toEqual(lines(local.stdout));
    expect((await r.used())).toBe(9);

    const logout = await runBin(['logout'], { env });
    expect(logout.code).toBe(0);
    const after = await runBin(['check', '--remote', 'examples/camera.jpg'], { env });
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/Not logged in/);
    for (const run of [login, status, remote, logout, after]) expect(run.stdout + run.stderr).not.toContain(r.key);
  });
});
