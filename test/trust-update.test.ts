// `provenance trust update` and `trust list` (issue 38, item 1), through the built CLI: the lists
// fetched from a real https server on 127.0.0.1 (its own CA, trusted through NODE_EXTRA_CA_CERTS;
// no test reaches the internet) or taken from files, every certificate read before anything is
// replaced, the old lists kept on every failure; the updated lists then used by `check` with no
// flags, and by the library; the bundled lists' source and date; the 180-day warning.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runTrustList } from '../src/commands/trust.js';
import { staleListWarning } from '../src/config/trust-lists.js';
import { check } from '../src/library/check.js';
import type { TrustListFile } from '../src/types.js';
import { makePki, signC2pa, simpleManifest, tinyJpeg, type Pki } from './fixtures/make.js';
import { makeServerCertificate, startHttpsServer, type HttpsTestServer, type TlsFiles } from './helpers/https-server.js';
import { parseLines, runBin } from './helpers/run-cli.js';

let dir: string;
let pki: Pki;
let tls: TlsFiles;
let server: HttpsTestServer;
let signed: string;
let cfg: string;
let n = 0;
/** What the server answers, by path. */
const routes = new Map<string, (res: ServerResponse) => void>();
const requested: string[] = [];

const pem = (text: string) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/x-pem-file' });
  res.end(text);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-trust-update-'));
  pki = makePki(join(dir, 'pki'));
  const other = makePki(join(dir, 'other'));
  mkdirSync(join(dir, 'tls'));
  tls = makeServerCertificate(join(dir, 'tls'));
  signed = join(dir, 'signed.jpg');
  writeFileSync(signed, await signC2pa(tinyJpeg({ seed: 391 }), 'image/jpeg', simpleManifest('signed.jpg', 'image/jpeg'), pki, { signedAt: true }));
  // Lists as the C2PA publishes them: a Subject line above each certificate.
  const good = `Subject\tCN=provenance test root\n${pki.rootPem}\nSubject\tother\n${other.rootPem}`;
  writeFileSync(join(dir, 'good.pem'), good);
  writeFileSync(join(dir, 'tsa.pem'), `Subject\tCN=provenance test root\n${pki.rootPem}`);
  // The second certificate's base64 with two characters that base64 has not.
  const second = good.lastIndexOf('-----BEGIN CERTIFICATE-----\n') + '-----BEGIN CERTIFICATE-----\n'.length;
  const damaged = `${good.slice(0, second)}!!${good.slice(second + 2)}`;
  writeFileSync(join(dir, 'damaged.pem'), damaged);
  writeFileSync(join(dir, 'empty.pem'), '');
  writeFileSync(join(dir, 'cut.pem'), good.slice(0, good.lastIndexOf('-----END CERTIFICATE-----')));
  routes.set('/lists/C2PA-TRUST-LIST.pem', pem(good));
  routes.set('/lists/C2PA-TSA-TRUST-LIST.pem', pem(readFileSync(join(dir, 'tsa.pem'), 'utf8')));
  routes.set('/damaged/C2PA-TRUST-LIST.pem', pem(damaged));
  routes.set('/damaged/C2PA-TSA-TRUST-LIST.pem', pem(readFileSync(join(dir, 'tsa.pem'), 'utf8')));
  routes.set('/half/C2PA-TRUST-LIST.pem', pem(good));
  routes.set('/half/C2PA-TSA-TRUST-LIST.pem', pem(''));
  routes.set('/big/C2PA-TRUST-LIST.pem', (res) => {
    // No Content-Length: the bound holds while the body streams.
    res.writeHead(200, { 'content-type': 'application/x-pem-file' });
    const chunk = Buffer.alloc(256 * 1024, 0x41);
    let sent = 0;
    const more = () => {
      while (sent < 64 && res.write(chunk)) sent++;
      if (sent >= 64) res.end();
      else res.once('drain', more);
    };
    more();
  });
  routes.set('/moved/C2PA-TRUST-LIST.pem', (res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:9/lists/C2PA-TRUST-LIST.pem' });
    res.end();
  });
  server = await startHttpsServer(tls, (req: IncomingMessage, res: ServerResponse) => {
    requested.push(req.url ?? '');
    const route = routes.get(req.url ?? '');
    if (route) return route(res);
    res.writeHead(404);
    res.end('not here');
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  cfg = join(dir, `config-${++n}`);
});

const env = (url = `${server.origin}/lists/`) => ({ PROVENANCE_CONFIG_DIR: cfg, NODE_EXTRA_CA_CERTS: tls.caFile, PROVENANCE_TRUST_LIST_URL: url });
const cli = (args: string[], url?: string) => runBin(args, { env: env(url) });
const updatedDir = () => join(cfg, 'trust-lists');
const snapshot = () => (existsSync(updatedDir()) ? ['C2PA-TRUST-LIST.pem', 'C2PA-TSA-TRUST-LIST.pem'].map((f) => (existsSync(join(updatedDir(), f)) ? readFileSync(join(updatedDir(), f), 'utf8') : null)) : null);
const claimsOf = async (url?: string) => {
  const run = await cli(['check', '--json', '--checks', 'c2pa', signed], url);
  expect(run.code, run.stderr).toBe(0);
  return parseLines(run.stdout)[0].matches[0].claims;
};

describe('trust list', () => {
  it('a fresh config folder: the bundled lists with their source commit and date, every anchor listed', async () => {
    const run = await cli(['trust', 'list', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.lists.map((l: any) => [l.list, l.origin, l.anchors.length, l.source])).toEqual([
      ['c2pa-trust-list', 'bundled', 30, { repository: 'c2pa-org/conformance-public', commit: '7dbff513b66e36184619286fe734beea32f2e6db', path: 'trust-list/C2PA-TRUST-LIST.pem', last_changed: '2026-08-13T00:15:44Z' }],
      ['c2pa-tsa-trust-list', 'bundled', 22, { repository: 'c2pa-org/conformance-public', commit: '7dbff513b66e36184619286fe734beea32f2e6db', path: 'trust-list/C2PA-TSA-TRUST-LIST.pem', last_changed: '2026-08-13T00:18:40Z' }],
    ]);
    expect(out.lists[0].anchors[0]).toMatchObject({ subject: 'C=US, O=Google LLC, CN=Google C2PA Media Services 1P ICA G3', ca: true });
    expect(out.anchors).toEqual([]);
  });

  it('a bundled list that last changed more than 180 days ago gives one line of warning, never an error', async () => {
    const lists: TrustListFile[] = [
      { list: 'c2pa-trust-list', file: 'a', origin: 'bundled', date: '2026-08-13T00:15:44Z' },
      { list: 'c2pa-tsa-trust-list', file: 'b', origin: 'bundled', date: '2026-08-13T00:18:40Z' },
    ];
    expect(staleListWarning(lists, new Date('2027-02-09T00:15:44Z'))).toBeUndefined(); // 180 days
    expect(staleListWarning(lists, new Date('2027-02-10T00:15:45Z'))).toBe(
      'warning: the bundled C2PA Trust List last changed 2026-08-13, 181 days ago; `provenance trust update` fetches the current lists.',
    );
    const updated = lists.map((l) => ({ ...l, origin: 'updated' as const }));
    expect(staleListWarning(updated, new Date('2030-01-01T00:00:00Z'))).toBeUndefined();

    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c) => (err += c));
    stdout.resume();
    const io = { stdin: Readable.from([]), stdout, stderr, env: { PROVENANCE_CONFIG_DIR: cfg } };
    expect(await runTrustList({ json: false, now: () => new Date('2027-06-01T00:00:00Z') }, io)).toBe(0);
    expect(err).toBe('provenance: warning: the bundled C2PA Trust List last changed 2026-08-13, 291 days ago; `provenance trust update` fetches the current lists.\n');
    err = '';
    expect(await runTrustList({ json: false, now: () => new Date('2026-12-02T00:00:00Z') }, io)).toBe(0);
    expect(err).toBe('');
  });
});

describe('trust update over https', () => {
  it('fetches both lists, which then take precedence: check with no flags reads the signer trusted', async () => {
    expect((await claimsOf()).validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
    const run = await cli(['trust', 'update']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`C2PA Trust List: 2 anchors from ${server.origin}/lists/C2PA-TRUST-LIST.pem (was the bundled list)`);
    expect(run.stdout).toContain(`C2PA TSA Trust List: 1 anchor from ${server.origin}/lists/C2PA-TSA-TRUST-LIST.pem (was the bundled list)`);
    const claims = await claimsOf();
    expect(claims.validation).toEqual({ state: 'trusted', codes: [] });
    expect(claims.signature_verified).toBe(true);
    const list = await cli(['trust', 'list']);
    expect(list.stdout).toMatch(new RegExp(`C2PA Trust List: 2 anchors, updated \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ from ${server.origin}/lists/C2PA-TRUST-LIST.pem \\(takes precedence over the bundled list\\)`));
    // The lists as served, below the one line that says where they came from.
    expect(snapshot()![0]).toMatch(new RegExp(`^# provenance trust update: c2pa-trust-list taken \\S+ from ${server.origin}/lists/C2PA-TRUST-LIST.pem\nSubject\tCN=provenance test root\n-----BEGIN CERTIFICATE-----`));
  });

  it('the library reads the updated lists too (its trustAnchors would replace them)', async () => {
    expect((await cli(['trust', 'update'])).code).toBe(0);
    const saved = process.env.PROVENANCE_CONFIG_DIR;
    process.env.PROVENANCE_CONFIG_DIR = cfg;
    try {
      const result = await check(signed, { checks: ['c2pa'] });
      expect(result.matches[0]!.claims?.validation).toEqual({ state: 'trusted', codes: [] });
    } finally {
      process.env.PROVENANCE_CONFIG_DIR = saved;
    }
  });

  it.each([
    ['a damaged certificate', '/damaged/', /certificate 2 cannot be read.*The lists in use are unchanged\./],
    ['an empty TSA list', '/half/', /C2PA-TSA-TRUST-LIST\.pem is empty: expected PEM certificates.*The lists in use are unchanged\./],
    ['a list over 4 MiB (streamed without a length)', '/big/', /is more than a trust list's 4194304 bytes\. The lists in use are unchanged\./],
    ['a 404', '/nowhere/', /127\.0\.0\.1:\d+ answered 404 for .*\/nowhere\/C2PA-TRUST-LIST\.pem\. The lists in use are unchanged\./],
    ['a redirect to http://', '/moved/', /redirected to http:\/\/, refused: the lists are fetched over https:\/\/ only\./],
  ])('%s: exit 1, the old lists kept', async (_what, path, message) => {
    expect((await cli(['trust', 'update'])).code).toBe(0);
    const before = snapshot();
    const run = await cli(['trust', 'update'], `${server.origin}${path}`);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(snapshot()).toEqual(before);
    expect(readdirNames(updatedDir())).toEqual(['C2PA-TRUST-LIST.pem', 'C2PA-TSA-TRUST-LIST.pem']);
  });

  it('offline (nothing listens): a clear error, exit 1, nothing written', async () => {
    const run = await cli(['trust', 'update'], 'https://127.0.0.1:9/lists/');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'provenance: Cannot reach 127.0.0.1:9 (ECONNREFUSED): is this machine offline? Download C2PA-TRUST-LIST.pem and C2PA-TSA-TRUST-LIST.pem elsewhere and give them with --from and --tsa-from. The lists in use are unchanged.\n',
    );
    expect(existsSync(updatedDir())).toBe(false);
  });

  it.each([
    ['an http:// address', 'http://127.0.0.1:9/lists/', 'provenance: PROVENANCE_TRUST_LIST_URL: http:// is refused; the lists are fetched over https:// only.\n'],
    ['no address at all', 'lists', 'provenance: PROVENANCE_TRUST_LIST_URL: "lists" is not an address; give an https:// URL of the folder that holds C2PA-TRUST-LIST.pem.\n'],
  ])('%s is a usage error (exit 2) before any request', async (_what, url, message) => {
    const count = requested.length;
    const run = await cli(['trust', 'update'], url);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(message);
    expect(requested.length).toBe(count);
  });
});

describe('trust update --from', () => {
  it('takes the lists from files; trust list says where they came from', async () => {
    const run = await cli(['trust', 'update', '--from', join(dir, 'good.pem'), '--tsa-from', join(dir, 'tsa.pem')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`C2PA Trust List: 2 anchors from ${join(dir, 'good.pem')} (was the bundled list)`);
    expect((await claimsOf()).signature_verified).toBe(true);
    const list = JSON.parse((await cli(['trust', 'list', '--json'])).stdout);
    expect(list.lists.map((l: any) => [l.origin, l.source.from])).toEqual([
      ['updated', join(dir, 'good.pem')],
      ['updated', join(dir, 'tsa.pem')],
    ]);
  });

  it('check --incremental does not keep a result checked against the old lists', async () => {
    const scan = async () => {
      const run = await cli(['check', '--json', '--summary', '--incremental', '--checks', 'c2pa', signed]);
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stderr.trim().split('\n').at(-1)!);
      return { verified: parseLines(run.stdout)[0].matches[0].claims.signature_verified, fromCache: summary.from_cache };
    };
    expect(await scan()).toEqual({ verified: false, fromCache: 0 });
    expect((await scan()).fromCache).toBe(1);
    expect((await cli(['trust', 'update', '--from', join(dir, 'good.pem')])).code).toBe(0);
    expect(await scan()).toEqual({ verified: true, fromCache: 0 });
  });

  it('--from alone replaces the Trust List only; the TSA list stays the bundled one', async () => {
    expect((await cli(['trust', 'update', '--from', join(dir, 'good.pem')])).code).toBe(0);
    const list = JSON.parse((await cli(['trust', 'list', '--json'])).stdout);
    expect(list.lists.map((l: any) => l.origin)).toEqual(['updated', 'bundled']);
  });

  it.each([
    ['an empty file', 'empty.pem', /empty\.pem \(--from\) is empty: expected PEM certificates/],
    ['a damaged certificate', 'damaged.pem', /damaged\.pem \(--from\): certificate 2 cannot be read/],
    ['a file cut off', 'cut.pem', /cut\.pem \(--from\): certificate 2 has no -----END CERTIFICATE----- line \(is the file cut off\?\)/],
    ['a missing file', 'nope.pem', /nope\.pem \(--from\) cannot be read: no such file/],
  ])('%s is refused with exit 2 and the old lists kept', async (_what, name, message) => {
    expect((await cli(['trust', 'update', '--from', join(dir, 'good.pem'), '--tsa-from', join(dir, 'tsa.pem')])).code).toBe(0);
    const before = snapshot();
    const run = await cli(['trust', 'update', '--from', join(dir, name), '--tsa-from', join(dir, 'tsa.pem')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(snapshot()).toEqual(before);
    expect((await claimsOf()).signature_verified).toBe(true);
  });

  it('--from with --url is a usage error', async () => {
    const run = await cli(['trust', 'update', '--from', join(dir, 'good.pem'), '--url', `${server.origin}/lists/`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('provenance: --url fetches the lists; --from and --tsa-from take them from files: give one or the other.\n');
  });
});

function readdirNames(folder: string): string[] {
  return readdirSync(folder).sort();
}
