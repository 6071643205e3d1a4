// What the remote commands say (issue 17): one name for an answer that is not /v1, no --local
// suggested to commands that have none, snake_case JSON, and trust decided by the API said so.
// A real daemon (or a plain HTTP server) on 127.0.0.1 only.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/corpus.js';
import { parseLines, runCli } from '../helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from '../helpers/signed.js';
import { login, remoteSetup, type RemoteSetup } from './helpers.js';

let dir: string;
let signed: SignedSet;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-client-messages-'));
  signed = await makeSignedSet();
  writeFileSync(join(dir, 'signed.jpg'), signed.jpeg);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed.cleanup();
});

describe('an answer that is not /v1 (point 2)', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // A proxy's error page: HTTP 502 with HTML, as a misconfigured API URL gives.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>'));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it('is an error line of type bad_response, the name CLIENT.md documents', async () => {
    const cfg = mkdtempSync(join(tmpdir(), 'prov-client-messages-cfg-'));
    const run = await runCli(['check', '--json', '--remote', '--no-cache', join(dir, 'signed.jpg')], undefined, {
      PROVENANCE_CONFIG_DIR: cfg,
      PROVENANCE_API_URL: base,
      PROVENANCE_API_KEY: 'prv_anykeythestubdoesnotcheck',
    });
    expect(run.code).toBe(1);
    expect(parseLines(run.stdout)[0].error).toEqual({ type: 'bad_response', message: 'The API answered HTTP 502 without a /v1 error body.' });
    rmSync(cfg, { recursive: true, force: true });
    const doc = readFileSync(join(ROOT, 'docs', 'CLIENT.md'), 'utf8');
    expect(doc).toContain('`bad_response`');
    expect(doc).not.toContain('http_error');
  });
});

describe('not logged in (point 20)', () => {
  it('`detectors --remote` and `upload` do not suggest --local, which they do not have', async () => {
    const cfg = mkdtempSync(join(tmpdir(), 'prov-client-messages-cfg-'));
    const env = { PROVENANCE_CONFIG_DIR: cfg };
    const detectors = await runCli(['detectors', '--remote'], undefined, env);
    expect(detectors.code).toBe(2);
    expect(detectors.stderr).not.toContain('--local');
    expect(detectors.stderr).toBe(
      "provenance: Not logged in to an API: run `provenance login --api-url URL` (or set PROVENANCE_API_KEY and PROVENANCE_API_URL), or drop --remote to list this build's own detectors.\n",
    );
    const upload = await runCli(['upload', join(dir, 'signed.jpg')], undefined, env);
    expect(upload.code).toBe(2);
    expect(upload.stderr).toBe('provenance: Not logged in to an API: run `provenance login --api-url URL` (or set PROVENANCE_API_KEY and PROVENANCE_API_URL).\n');
    // check does have --local, and still says so.
    const check = await runCli(['check', '--remote', join(dir, 'signed.jpg')], undefined, env);
    expect(check.stderr).toMatch(/or check on this machine with --local\.\n$/);
    rmSync(cfg, { recursive: true, force: true });
  });
});

describe('logged in to a daemon', () => {
  let r: RemoteSetup;
  beforeAll(async () => {
    r = await remoteSetup({ plan: 'free' });
    expect((await login(r)).code).toBe(0);
  });
  afterAll(() => r.close());

  it('`status --json` has snake_case field names only (point 21)', async () => {
    const run = await r.cli(['status', '--json']);
    expect(run.code).toBe(0);
    const status = JSON.parse(run.stdout);
    expect(status.quota.burst).toEqual({ limit: 10, remaining: expect.any(Number), reset_seconds: expect.any(Number) });
    const keys = (value: unknown): string[] =>
      value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...keys(v)]) : [];
    for (const key of keys(status)) expect(key).toMatch(/^[a-z0-9]+(_[a-z0-9]+)*$/);
  });

  it('a remote card says the API decided the trust, not "no trust anchors configured" (point 23)', async () => {
    const remote = await r.cli(['check', join(dir, 'signed.jpg')]);
    expect(remote.code).toBe(0);
    expect(remote.stdout).not.toContain('no trust anchors configured');
    expect(remote.stdout).toContain("validation     credential intact (hashes and signature match); signer not trusted by the API (it decides trust with its operator's anchors, if any)");
    // A local check speaks of the trust list in use on this machine (the C2PA lists by default).
    const local = await r.cli(['check', '--local', join(dir, 'signed.jpg')]);
    expect(local.stdout).toMatch(/^ {23}trust {10}NOT trusted: the certificate is not on the trust list/m);
  });
});
