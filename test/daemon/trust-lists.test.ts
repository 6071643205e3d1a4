// The daemon and the C2PA lists (issue 38; CONTRACT "Detection result"): with no flags it checks
// signers against the lists in use (here the lists `trust update --from` put in its config
// folder, holding the test CA), so signature_verified is true for a signer on them; with
// --catalogue hosted and in test mode it is always false, as the hosted service answers, and a
// --trust-anchors that could change nothing there is refused before the daemon starts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSignedSet, type SignedSet } from '../helpers/signed.js';
import { parseLines, runBin } from '../helpers/run-cli.js';
import { b64, http } from './helpers.js';
import { startDaemonProcess, type DaemonProcess } from './process.js';

let dir: string;
let signed: SignedSet;
let cfg: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-daemon-lists-'));
  signed = await makeSignedSet();
  cfg = join(dir, 'config');
  writeFileSync(join(dir, 'list.pem'), signed.pki.rootPem);
  writeFileSync(join(dir, 'photo.jpg'), signed.jpeg);
  const update = await runBin(['trust', 'update', '--from', join(dir, 'list.pem')], { env: { PROVENANCE_CONFIG_DIR: cfg } });
  expect(update.code, update.stderr).toBe(0);
}, 120_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

async function detectWith(args: string[]): Promise<any> {
  const data = join(dir, `data-${args.join('-').replace(/\W+/g, '')}`);
  const created = await runBin(['daemon', 'accounts', 'create', '--email', 'lists@example.test', '--data-dir', data, '--json'], { env: { PROVENANCE_CONFIG_DIR: cfg } });
  const key = JSON.parse(created.stdout).key.value;
  let daemon: DaemonProcess | undefined;
  try {
    daemon = await startDaemonProcess(['--data-dir', data, ...args], { PROVENANCE_CONFIG_DIR: cfg });
    const result = await http(daemon.url, 'POST', '/v1/detect', { key, json: { media: b64(signed.jpeg), checks: ['c2pa'] } });
    expect(result.status).toBe(200);
    return result.body.matches[0];
  } finally {
    daemon?.child.kill('SIGTERM');
    await daemon?.exited;
  }
}

describe('daemon start and the C2PA lists', () => {
  it('no flags: the lists in use (updated ones here) make signature_verified true, as check reads it', async () => {
    const c2pa = await detectWith([]);
    expect(c2pa.claims.validation).toEqual({ state: 'trusted', codes: [] });
    expect(c2pa.claims.signature_verified).toBe(true);
    const local = parseLines((await runBin(['check', '--json', '--checks', 'c2pa', join(dir, 'photo.jpg')], { env: { PROVENANCE_CONFIG_DIR: cfg } })).stdout)[0];
    expect(c2pa).toEqual(local.matches[0]);
  });

  it('--catalogue hosted: signature_verified false and no trust decided, as the hosted service answers', async () => {
    const c2pa = await detectWith(['--catalogue', 'hosted']);
    expect(c2pa.claims.signature_verified).toBe(false);
    expect(c2pa.claims.validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
  });

  it('--test-mode: signature_verified false', async () => {
    const c2pa = await detectWith(['--test-mode']);
    expect(c2pa.claims.signature_verified).toBe(false);
  });

  it.each([['--catalogue', 'hosted'], ['--test-mode']])('--trust-anchors with %s is refused before anything listens (exit 2)', async (...flags) => {
    const run = await runBin(['daemon', 'start', '--port', '0', '--data-dir', join(dir, 'data-refused'), ...flags, '--trust-anchors', join(dir, 'list.pem')], { env: { PROVENANCE_CONFIG_DIR: cfg } });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`provenance: --trust-anchors has no effect with ${flags.join(' ')}: signature_verified is always false there, as the hosted service answers.\n`);
    expect(run.stdout).not.toMatch(/listening on/);
  });
});
