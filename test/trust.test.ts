// `provenance trust add|list|remove`, the stored anchors that `check` then uses, the
// `trust_anchors` setting, and loadTrustAnchors() as the daemon will call it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configDir } from '../src/config/paths.js';
import { parseAnchors } from '../src/config/pem.js';
import { findAnchor, loadTrustAnchors, storedAnchors, TrustAnchorError, type StoredAnchor } from '../src/config/trust-store.js';
import { makePki, signC2pa, simpleManifest, tinyJpeg, type Pki } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines, runBin, runCli } from './helpers/run-cli.js';

let dir: string;
let pki: Pki;
let other: Pki;
let signed: string;
let cfg: string;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-trust-'));
  pki = makePki(join(dir, 'pki'));
  other = makePki(join(dir, 'other'));
  writeFileSync(join(dir, 'root.pem'), pki.rootPem);
  writeFileSync(join(dir, 'other.pem'), other.rootPem);
  // A bundle as the C2PA trust list ships it: comment lines between the blocks.
  writeFileSync(join(dir, 'bundle.pem'), `Subject\tCN=provenance test root\n${pki.rootPem}\nSubject\tother\n${other.rootPem}`);
  writeFileSync(join(dir, 'notes.txt'), 'not a certificate\n');
  signed = join(dir, 'signed.jpg');
  writeFileSync(signed, await signC2pa(tinyJpeg({ seed: 91 }), 'image/jpeg', simpleManifest('signed.jpg', 'image/jpeg'), pki));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  cfg = join(dir, `config-${++n}`);
});

const env = () => ({ PROVENANCE_CONFIG_DIR: cfg });
const trust = (...args: string[]) => runCli(['trust', ...args], undefined, env());
const checkState = async () => {
  const run = await runCli(['check', '--json', '--checks', 'c2pa', signed], undefined, env());
  expect(run.code, run.stderr).toBe(0);
  return parseLines(run.stdout)[0].matches[0].claims;
};
const fingerprintOf = (pem: string) => parseAnchors(pem, 'x')[0]!.fingerprint;

describe('provenance trust', () => {
  it('list on an empty store shows the bundled C2PA lists, their source and date', async () => {
    const run = await trust('list');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('C2PA Trust List: 30 anchors, bundled with provenance: c2pa-org/conformance-public at 7dbff51, trust-list/C2PA-TRUST-LIST.pem, last changed 2026-08-13');
    expect(run.stdout).toContain('C2PA TSA Trust List: 22 anchors, bundled with provenance: c2pa-org/conformance-public at 7dbff51, trust-list/C2PA-TSA-TRUST-LIST.pem, last changed 2026-08-13');
    expect(run.stdout).toContain(`Added by hand: none (${join(cfg, 'trust-anchors.json')}).`);
  });

  it('add stores the anchors in the config folder; check then reports trusted', async () => {
    expect((await checkState()).validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
    const run = await trust('add', join(dir, 'root.pem'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('added    C=US, O=Provenance Test CA, CN=provenance test root');
    expect(run.stdout).toContain(`1 trust anchor added to ${join(cfg, 'trust-anchors.json')}.`);
    expect(existsSync(join(cfg, 'trust-anchors.json'))).toBe(true);
    const claims = await checkState();
    expect(claims.validation).toEqual({ state: 'trusted', codes: [] });
    expect(claims.signature_verified).toBe(true);
  });

  it('adding twice keeps one copy; a bundle adds each certificate', async () => {
    await trust('add', join(dir, 'root.pem'));
    const again = await trust('add', join(dir, 'bundle.pem'));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('present  C=US, O=Provenance Test CA, CN=provenance test root (already stored)');
    expect(again.stdout).toContain('1 trust anchor added');
    expect(storedAnchors(env()).map((a) => a.fingerprint)).toEqual([fingerprintOf(pki.rootPem), fingerprintOf(other.rootPem)]);
  });

  it('list shows index, subject, fingerprint and expiry; --json without the PEM', async () => {
    await trust('add', join(dir, 'bundle.pem'));
    const run = await trust('list');
    expect(run.stdout).toMatch(/2 trust anchors in .*trust-anchors\.json:/);
    expect(run.stdout).toMatch(/ {2}1 {2}C=US, O=Provenance Test CA, CN=provenance test root\n {5}sha256 ([0-9A-F]{2}:){31}[0-9A-F]{2}\n {5}valid until \d{4}-/);
    const json = JSON.parse((await trust('list', '--json')).stdout);
    expect(json.anchors).toHaveLength(2);
    expect(json.anchors[0]).toMatchObject({ index: 1, fingerprint: fingerprintOf(pki.rootPem), ca: true });
    expect(json.anchors[0]).not.toHaveProperty('pem');
    expect(json.trust_anchors_setting).toBeNull();
  });

  it('remove by index', async () => {
    await trust('add', join(dir, 'bundle.pem'));
    const run = await trust('remove', '1');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('removed  C=US, O=Provenance Test CA, CN=provenance test root');
    expect(storedAnchors(env()).map((a) => a.fingerprint)).toEqual([fingerprintOf(other.rootPem)]);
    expect((await checkState()).validation.state).toBe('valid');
  });

  it('remove by fingerprint: full with colons, or a prefix, any case', async () => {
    await trust('add', join(dir, 'bundle.pem'));
    const fp = fingerprintOf(other.rootPem);
    const colons = fp.toUpperCase().replace(/(..)(?=.)/g, '$1:');
    expect((await trust('remove', colons)).code).toBe(0);
    expect((await trust('remove', fingerprintOf(pki.rootPem).slice(0, 10).toUpperCase())).code).toBe(0);
    expect(storedAnchors(env())).toEqual([]);
  });

  it.each([
    ['an index out of range', '3', /There is no anchor number 3: `provenance trust list` shows 2\./],
    ['an unknown fingerprint', 'deadbeefdeadbeef', /No stored trust anchor has the fingerprint deadbeefdeadbeef\./],
    ['something else', 'root', /"root" is neither an index nor a SHA-256 fingerprint/],
  ])('remove with %s is a usage error (exit 2)', async (_what, target, message) => {
    await trust('add', join(dir, 'bundle.pem'));
    const run = await trust('remove', target);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(storedAnchors(env())).toHaveLength(2);
  });

  it.each([
    ['a text file', 'notes.txt', /notes\.txt is not a PEM certificate file/],
    ['a missing file', 'nope.pem', /nope\.pem cannot be read: no such file/],
  ])('add with %s is a usage error and stores nothing', async (_what, name, message) => {
    const run = await trust('add', join(dir, name));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(existsSync(join(cfg, 'trust-anchors.json'))).toBe(false);
  });

  it("add with a trust list's address says to download it (no request is made), exit 2", async () => {
    const url = 'https://example.com/trust/C2PA-TRUST-LIST.pem';
    const run = await trust('add', url);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${url} is an address, not a file: download the PEM first, e.g. curl -fsSL -o trust-list.pem '${url}'`);
    expect(existsSync(join(cfg, 'trust-anchors.json'))).toBe(false);
  });

  it('a damaged store is reported (exit 2) by check and by add, and never overwritten', async () => {
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'trust-anchors.json'), '{"anchors": [');
    const check = await runCli(['check', signed], undefined, env());
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/trust-anchors\.json is damaged/);
    const add = await trust('add', join(dir, 'root.pem'));
    expect(add.code).toBe(2);
    expect(readFileSync(join(cfg, 'trust-anchors.json'), 'utf8')).toBe('{"anchors": [');
  });

  it('--trust-anchors on check is used instead of the stored anchors', async () => {
    await trust('add', join(dir, 'root.pem'));
    const run = await runCli(['check', '--json', '--checks', 'c2pa', '--trust-anchors', join(dir, 'other.pem'), signed], undefined, env());
    expect(parseLines(run.stdout)[0].matches[0].claims.validation.state).toBe('valid');
  });
});

describe('the trust_anchors setting and loadTrustAnchors()', () => {
  it('config.json trust_anchors (a PEM path) is used by check, with the stored anchors', async () => {
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ trust_anchors: join(dir, 'root.pem') }));
    expect((await checkState()).validation.state).toBe('trusted');
    const list = await trust('list');
    expect(list.stdout).toContain(`Also used: ${join(dir, 'root.pem')} (the trust_anchors setting in config.json).`);
  });

  it('a relative setting is relative to the config folder; a missing file is an error', async () => {
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'anchors.pem'), pki.rootPem);
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ trust_anchors: 'anchors.pem' }));
    expect(loadTrustAnchors({ env: env() })).toMatchObject({ count: 1, sources: [join(cfg, 'anchors.pem')] });
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ trust_anchors: 'gone.pem' }));
    expect(() => loadTrustAnchors({ env: env() })).toThrow(/gone\.pem \(the trust_anchors setting\) cannot be read: no such file/);
    const run = await runCli(['check', signed], undefined, env());
    expect(run.code).toBe(2);
  });

  it('none configured: undefined', () => {
    expect(loadTrustAnchors({ env: env() })).toBeUndefined();
  });

  it('an explicit file wins, deduplicated, as one PEM bundle', () => {
    const anchors = loadTrustAnchors({ file: join(dir, 'bundle.pem'), env: env() })!;
    expect(anchors.count).toBe(2);
    expect(anchors.sources).toEqual([join(dir, 'bundle.pem')]);
    expect(anchors.pem.match(/-----BEGIN CERTIFICATE-----/g)).toHaveLength(2);
    expect(anchors.pem).not.toContain('Subject');
  });

  it('errors are TrustAnchorError', () => {
    expect(() => loadTrustAnchors({ file: join(dir, 'notes.txt') })).toThrow(TrustAnchorError);
  });

  it('PROVENANCE_CONFIG_DIR relocates the config folder; otherwise XDG_CONFIG_HOME or ~/.config', () => {
    expect(configDir({ PROVENANCE_CONFIG_DIR: '/tmp/x' })).toBe('/tmp/x');
    if (process.platform === 'linux') {
      expect(configDir({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/provenance');
      expect(configDir({})).toMatch(/\/\.config\/provenance$/);
    }
  });

  it('findAnchor needs 8+ hex digits and a unique match', () => {
    const list = [{ fingerprint: 'aaaaaaaa11' }, { fingerprint: 'aaaaaaaa22' }] as StoredAnchor[];
    expect(() => findAnchor(list, 'aaaaaaaa')).toThrow(/matches 2 anchors/);
    expect(() => findAnchor(list, 'aaaa')).toThrow(/neither an index nor/);
    expect(findAnchor(list, 'AA:AA:AA:AA:22')).toBe(list[1]);
    expect(() => findAnchor([], '1')).toThrow(/No trust anchors are stored/);
  });

  it('findAnchor: a prefix of only decimal digits is a fingerprint from 8 digits on, an index below', () => {
    // About 1 random fingerprint in 100 starts with 10 decimal digits; a CI run drew one.
    const list = [{ fingerprint: '1234567890ab' }, { fingerprint: 'ffffffff00' }] as StoredAnchor[];
    expect(findAnchor(list, '1234567890')).toBe(list[0]);
    expect(findAnchor(list, '12345678')).toBe(list[0]);
    expect(findAnchor(list, '2')).toBe(list[1]);
    expect(() => findAnchor(list, '1234567')).toThrow(/no anchor number 1234567/);
    expect(() => findAnchor(list, '87654321')).toThrow(/No stored trust anchor has the fingerprint 87654321/);
  });
});

describe('the built CLI', () => {
  it('keeps conf out of the bundle, and loads it for `trust add`', async () => {
    const bundle = readFileSync(join(ROOT, 'dist', 'cli.js'), 'utf8');
    expect(bundle).not.toMatch(/\bAjv\b|ajv-formats|atomically/);
    const run = await runBin(['trust', 'add', join(dir, 'root.pem')], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const check = await runBin(['check', '--json', '--checks', 'c2pa', signed], { env: env() });
    expect(parseLines(check.stdout)[0].matches[0].claims.validation.state).toBe('trusted');
  });
});
