// `daemon start --trust-anchors FILE.pem` (issue 7): with the anchors, the daemon reports a
// credential that chains to them as trusted, exactly like `provenance check --trust-anchors`;
// a file that is not PEM stops the start with a usage error before anything listens.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSignedSet, type SignedSet } from '../helpers/signed.js';
import { parseLines, runBin, runCli } from '../helpers/run-cli.js';
import { b64, http } from './helpers.js';
import { startDaemonProcess, type DaemonProcess } from './process.js';

let dir: string;
let signed: SignedSet;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-daemon-trust-'));
  signed = await makeSignedSet();
  writeFileSync(join(dir, 'root.pem'), signed.pki.rootPem);
  writeFileSync(join(dir, 'photo.jpg'), signed.jpeg);
  writeFileSync(join(dir, 'not.pem'), 'hello, not a certificate\n');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

describe('daemon start --trust-anchors', () => {
  it('refuses a file that is not PEM, naming it, before it starts', async () => {
    const run = await runCli(['daemon', 'start', '--port', '0', '--data-dir', join(dir, 'data-bad'), '--trust-anchors', join(dir, 'not.pem')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--trust-anchors: .*not\.pem is not a PEM certificate file/);
    expect(run.stdout).not.toMatch(/listening on/);
  });

  describe('with the test CA as anchor', () => {
    let daemon: DaemonProcess;
    let key: string;
    beforeAll(async () => {
      const data = join(dir, 'data');
      const created = await runBin(['daemon', 'accounts', 'create', '--email', 'trust@example.test', '--data-dir', data, '--json']);
      key = JSON.parse(created.stdout).key.value;
      daemon = await startDaemonProcess(['--data-dir', data, '--trust-anchors', join(dir, 'root.pem')]);
    });
    afterAll(async () => {
      daemon?.child.kill('SIGTERM');
      await daemon?.exited;
    });

    it('reports the credential trusted and signature_verified, as check --trust-anchors does', async () => {
      const result = await http(daemon.url, 'POST', '/v1/detect', { key, json: { media: b64(signed.jpeg), checks: ['c2pa'] } });
      expect(result.status).toBe(200);
      const c2pa = result.body.matches[0];
      expect(c2pa.claims.validation).toEqual({ state: 'trusted', codes: [] });
      expect(c2pa.claims.signature_verified).toBe(true);

      const local = parseLines((await runCli(['check', '--json', '--checks', 'c2pa', '--trust-anchors', join(dir, 'root.pem'), join(dir, 'photo.jpg')])).stdout)[0];
      expect(c2pa).toEqual(local.matches[0]);
    });
  });
});
