// Where the key is kept: the OS keychain (@napi-rs/keyring) when one is reachable, else a 0600
// file; plus the runs that must stop sending (revoked key, unreachable API).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKey, keychainService, loadKey, saveKey } from '../../src/config/credentials.js';
import { KeychainUnavailable, osKeychain, type Keychain } from '../../src/config/keychain.js';
import { runLogin } from '../../src/commands/login.js';
import { tinyJpeg } from '../fixtures/make.js';
import { parseLines } from '../helpers/run-cli.js';
import { filesIn, login, remoteSetup, runCheckWith, type RemoteSetup } from './helpers.js';
import { PassThrough, Readable } from 'node:stream';

/** An in-memory keychain, or one that is never reachable. */
function fakeKeychain(reachable = true): { keychain: () => Promise<Keychain>; entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const fail = () => {
    if (!reachable) throw new KeychainUnavailable('no Secret Service on this bus');
  };
  const keychain: Keychain = {
    label: 'the test keychain',
    async get(service, account) {
      fail();
      return entries.get(`${service}|${account}`) ?? null;
    },
    async set(service, account, secret) {
      fail();
      entries.set(`${service}|${account}`, secret);
    },
    async delete(service, account) {
      fail();
      return entries.delete(`${service}|${account}`);
    },
  };
  return { keychain: async () => keychain, entries };
}

describe('credential store', () => {
  let cfg: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    cfg = mkdtempSync(join(tmpdir(), 'prov-cred-'));
    env = { PROVENANCE_CONFIG_DIR: cfg };
  });
  afterAll(() => rmSync(cfg, { recursive: true, force: true }));

  it('@napi-rs/keyring loads here; on this machine it stores a secret or says why it cannot', async () => {
    const keychain = await osKeychain();
    expect(keychain.label).toMatch(/Keychain|Credential Manager|Secret Service/);
    const service = keychainService(env);
    try {
      await keychain.set(service, 'probe', 'secret');
      expect(await keychain.get(service, 'probe')).toBe('secret');
      expect(await keychain.delete(service, 'probe')).toBe(true);
    } catch (err) {
      expect(err).toBeInstanceOf(KeychainUnavailable);
      expect((err as Error).message.length).toBeGreaterThan(0);
    }
  });

  it('a relocated config folder has keychain entries of its own', () => {
    expect(keychainService({})).toBe('provenance');
    expect(keychainService(env)).toBe(`provenance (${cfg})`);
  });

  it('keychain reachable: the key goes there and nowhere else', async () => {
    const fake = fakeKeychain();
    const saved = await saveKey(env, 'https://api.test', 'prv_secret1', { deps: fake });
    expect(saved).toEqual({ store: 'keychain', where: 'the test keychain' });
    expect(existsSync(join(cfg, 'credentials.json'))).toBe(false);
    expect(await loadKey(env, 'https://api.test', 'keychain', fake)).toEqual({ key: 'prv_secret1' });
    expect((await deleteKey(env, 'https://api.test', fake)).removed).toEqual(['keychain']);
    expect(fake.entries.size).toBe(0);
  });

  it('no keychain: a 0600 file, with the reason; keys are kept per API URL', async () => {
    const fake = fakeKeychain(false);
    const saved = await saveKey(env, 'https://api.test', 'prv_secret2', { deps: fake });
    expect(saved.store).toBe('file');
    expect(saved.fallbackReason).toBe('no OS keychain is reachable (no Secret Service on this bus)');
    await saveKey(env, 'https://other.test', 'prv_secret3', { deps: fake });
    const file = join(cfg, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).keys).toEqual({ 'https://api.test': 'prv_secret2', 'https://other.test': 'prv_secret3' });
    expect(await loadKey(env, 'https://other.test', 'file')).toEqual({ key: 'prv_secret3' });
    expect(await loadKey(env, 'https://third.test', 'file')).toBeUndefined();
    // A file someone made readable by others still works, with a warning saying how to fix it.
    chmodSync(file, 0o644);
    expect((await loadKey(env, 'https://api.test', 'file'))?.warning).toMatch(/can be read by other users \(mode 0644\); run: chmod 600/);
    // Saving rewrites it 0600 again.
    await saveKey(env, 'https://api.test', 'prv_secret4', { deps: fake });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await deleteKey(env, 'https://api.test', fake);
    await deleteKey(env, 'https://other.test', fake);
    expect(existsSync(file)).toBe(false);
  });
});

describe('login and check with the key in a keychain', () => {
  let r: RemoteSetup;
  const fake = fakeKeychain();
  beforeAll(async () => {
    r = await remoteSetup();
  });
  afterAll(() => r.close());

  it('login says where the key went; a check reads it from there', async () => {
    const stdout = new PassThrough();
    const out: Buffer[] = [];
    stdout.on('data', (c: Buffer) => out.push(c));
    const io = { stdin: Readable.from([Buffer.from(`${r.key}\n`)]), stdout, stderr: new PassThrough(), env: r.env };
    expect(await runLogin({ apiUrl: r.base, withKey: true, keychain: true }, io, fake)).toBe(0);
    expect(Buffer.concat(out).toString()).toContain('The key is stored in the test keychain.');
    expect(existsSync(join(r.cfg, 'credentials.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(r.cfg, 'config.json'), 'utf8')).login.key_store).toBe('keychain');
    expect([...fake.entries.values()]).toEqual([r.key]);

    const files = filesIn({ 'a.jpg': tinyJpeg({ seed: 31 }) });
    try {
      const run = await runCheckWith({ inputs: files.paths }, r.env, fake);
      expect(run.code).toBe(0);
      expect((await r.used())).toBe(1);
      // Without the keychain's entry, the run says to log in again instead of going local.
      fake.entries.clear();
      const gone = await runCheckWith({ inputs: files.paths, cache: false }, r.env, fake);
      expect(gone.code).toBe(2);
      expect(gone.stderr).toMatch(/missing from the OS keychain: log in again/);
    } finally {
      files.cleanup();
    }
  });

  it('the default login on this machine uses the keychain or the 0600 file, and says which', async () => {
    await r.cli(['logout']);
    const run = await login(r, r.key, []);
    expect(run.code).toBe(0);
    const store = JSON.parse(readFileSync(join(r.cfg, 'config.json'), 'utf8')).login.key_store;
    if (store === 'file') {
      expect(run.stdout).toMatch(/stored in .*credentials\.json \(mode 0600\): no OS keychain is reachable \(.+\)\./);
      expect(statSync(join(r.cfg, 'credentials.json')).mode & 0o777).toBe(0o600);
    } else {
      expect(run.stdout).toMatch(/stored in the (macOS Keychain|Windows Credential Manager|Secret Service keyring)\./);
    }
    expect((await r.cli(['logout'])).code).toBe(0);
    expect(existsSync(join(r.cfg, 'credentials.json'))).toBe(false);
  });
});

describe('runs that stop sending', () => {
  let r: RemoteSetup;
  let files: ReturnType<typeof filesIn>;
  beforeAll(async () => {
    r = await remoteSetup();
    files = filesIn({ 'a.jpg': tinyJpeg({ seed: 41 }), 'b.jpg': tinyJpeg({ seed: 42 }), 'c.jpg': tinyJpeg({ seed: 43 }) });
  });
  afterAll(async () => {
    await r.close();
    files.cleanup();
  });

  it('a key revoked after login: nothing more is sent, every input is listed, exit 2', async () => {
    const other = await r.t.account('revoked-later', 'custom', 100);
    expect((await login(r, other.key)).code).toBe(0);
    await r.t.app.services.accounts.revokeKey(other.keyId);
    const run = await r.cli(['check', '--json', '--concurrency', '1', files.dir]);
    expect(run.code).toBe(2);
    expect(parseLines(run.stdout).map((l) => l.error?.type)).toEqual(['authentication_error', 'authentication_error', 'authentication_error']);
    expect(run.stderr).toMatch(/stopped sending: the API at .* refused the key from the credentials file .*Log in again/);
    expect(run.stderr).toContain(`3 inputs were not checked:\n${files.paths.map((p) => `  ${p}\n`).join('')}`);
    await r.cli(['logout']);
  });

  it('an API that cannot be reached: bounded retries, then nothing more is sent', async () => {
    const waits: number[] = [];
    const env = { ...r.env, PROVENANCE_API_URL: 'http://127.0.0.1:9', PROVENANCE_API_KEY: r.key };
    const run = await runCheckWith({ inputs: [files.dir], concurrency: 1 }, env, { sleep: async (ms) => void waits.push(ms) });
    expect(run.code).toBe(1);
    expect(parseLines(run.stdout).every((l) => l.error?.type === 'network_error')).toBe(true);
    expect(run.stderr).toMatch(/stopped sending: Cannot reach the API at http:\/\/127\.0\.0\.1:9: the connection was refused/);
    expect(waits.length).toBe(3); // the first file's retries; the others were not sent at all
  });
});
