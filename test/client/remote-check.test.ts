// Remote `check` against a real daemon on 127.0.0.1: the same lines as a local check (apart from
// id and duration_ms), the cache, uploads for large files, URL inputs, and quota exhaustion.
import { createServer, type Server } from 'node:http';
import { readdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLE_MAKER_NOTE, concat, exifApp1, NOT_MEDIA, tinyJpeg, tinyMp4, tinyPng, tinyTiff } from '../fixtures/make.js';
import { CORPUS_FILES, HAS_CORPUS, ROOT } from '../helpers/corpus.js';
import { parseLines } from '../helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from '../helpers/signed.js';
import { comparable, filesIn, login, remoteSetup, type RemoteSetup } from './helpers.js';

const MB = 1_048_576;
const EXAMPLES = join(ROOT, 'examples');

/** Remote and local NDJSON of the same inputs, line by line, minus id and duration_ms. */
/** A line with the verdict's makers left out (compared on their own below). */
function withoutMakers(line: Record<string, unknown>): Record<string, unknown> {
  const verdict = line.verdict as { maker?: string; claimed_maker?: string; evidence: { maker?: string }[] } | undefined;
  if (!verdict) return line;
  const { maker: _m, claimed_maker: _c, ...rest } = verdict;
  return { ...line, verdict: { ...rest, evidence: rest.evidence.map(({ maker: _e, ...e }) => e) } };
}

async function expectSameAsLocal(r: RemoteSetup, inputs: string[], extra: string[] = []) {
  const remote = await r.cli(['check', '--json', ...extra, ...inputs]);
  const local = await r.cli(['check', '--json', '--local', ...extra, ...inputs]);
  // One line says where the checks ran (calls are spent), --json or not.
  expect(remote.stderr).toMatch(/^provenance: checking with the API at http:\/\/127\.0\.0\.1:\d+ \(--local checks on this machine\)\.\n$/);
  expect(remote.code).toBe(local.code);
  const rl = parseLines(remote.stdout);
  const ll = parseLines(local.stdout);
  expect(rl.length).toBe(ll.length);
  expect(rl.map(comparable).map(withoutMakers)).toEqual(ll.map(comparable).map(withoutMakers));
  // The verdict's makers: remotely the C2PA claim generator, locally the software agent the
  // manifest's actions name where they name one (the API's matches carry no actions: docs/CLI.md).
  // A manifest whose signer is not trusted gives its name as claimed_maker instead (issue 38).
  for (const key of ['maker', 'claimed_maker'] as const) {
    for (const [i, line] of rl.entries()) {
      const local = ll[i].verdict;
      if (!line.verdict?.[key] || !local?.[key]) expect(line.verdict?.[key]).toBe(local?.[key]);
      else if (line.verdict[key] !== local[key]) expect(line.matches.find((m: { check: string }) => m.check === 'c2pa')?.claims?.claim_generator).toBe(line.verdict[key]);
    }
  }
  for (const line of rl) if (!line.error) expect(line.id).toMatch(/^chk_/);
  return rl;
}

describe('remote check = local check', () => {
  let r: RemoteSetup;
  let signed: SignedSet;
  let own: ReturnType<typeof filesIn>;
  beforeAll(async () => {
    r = await remoteSetup();
    signed = await makeSignedSet();
    own = filesIn({
      'apple.jpg': tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE }) }),
      'edited.jpg': tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 12', software: 'Adobe Photoshop 25.0', makerNote: APPLE_MAKER_NOTE }) }),
      'plain.png': tinyPng({ seed: 5 }),
      'camera.tif': tinyTiff({ make: 'Apple', makerNote: APPLE_MAKER_NOTE, model: 'iPad Pro', software: '17.0' }),
      'clip.mp4': tinyMp4(),
      'signed.jpg': signed.jpeg,
      'signed-v1.jpg': signed.jpegV1,
      'signed.png': signed.png,
      'signed.mp4': signed.mp4,
      'notes.txt': NOT_MEDIA,
    });
    expect((await login(r)).code).toBe(0);
  });
  afterAll(async () => {
    await r.close();
    signed.cleanup();
    own.cleanup();
  });

  it('own fixtures, a folder and a missing file: the same lines as --local', async () => {
    const before = (await r.used());
    const lines = await expectSameAsLocal(r, [own.dir, join(own.dir, 'missing.jpg')]);
    expect(lines.at(-1).error.type).toBe('not_found');
    expect((await r.used())).toBe(before + readdirSync(own.dir).length);
  });

  it('an empty file is not sent (the API answers zero bytes with 400): an error line, exit 1, no call spent', async () => {
    const dir = filesIn({ 'empty.bin': new Uint8Array(0) });
    try {
      const before = await r.used();
      const run = await r.cli(['check', '--json', join(dir.dir, 'empty.bin')]);
      expect(run.code).toBe(1);
      expect(parseLines(run.stdout)).toEqual([
        {
          source: join(dir.dir, 'empty.bin'),
          error: { type: 'invalid_request', message: `${join(dir.dir, 'empty.bin')}: empty (zero bytes); the API does not check empty media. Check it on this machine with --local.` },
        },
      ]);
      expect(await r.used()).toBe(before);
      // Locally an empty file is checked (every check unavailable), as before.
      const local = await r.cli(['check', '--json', '--local', join(dir.dir, 'empty.bin')]);
      expect(local.code).toBe(0);
      expect(parseLines(local.stdout)[0].media.bytes).toBe(0);
    } finally {
      dir.cleanup();
    }
  });

  it('the examples, with --checks', async () => {
    await expectSameAsLocal(r, [EXAMPLES], ['--checks', 'camera_reference,c2pa']);
    await expectSameAsLocal(r, [EXAMPLES]);
  });

  it('a second run is served from the cache: no call spent', async () => {
    const before = (await r.used());
    await expectSameAsLocal(r, [own.dir, EXAMPLES]);
    expect((await r.used())).toBe(before);
    const status = JSON.parse((await r.cli(['status', '--json'])).stdout);
    expect(status.quota.used).toBe(before);
  });

  it('--no-cache asks again; `cache clear` empties the cache', async () => {
    const before = (await r.used());
    const apple = join(own.dir, 'apple.jpg');
    expect((await r.cli(['check', '--json', '--no-cache', apple])).code).toBe(0);
    expect((await r.used())).toBe(before + 1);
    const cleared = await r.cli(['cache', 'clear']);
    expect(cleared.stdout).toMatch(/^Removed \d+ cached results from .*cache\.$/m);
    expect((await r.cli(['check', '--json', apple])).code).toBe(0);
    expect((await r.used())).toBe(before + 2);
    expect((await r.cli(['check', '--json', apple])).code).toBe(0);
    expect((await r.used())).toBe(before + 2);
    // The cache key includes the checks: another selection is another entry.
    expect((await r.cli(['check', '--json', '--checks', 'c2pa', apple])).code).toBe(0);
    expect((await r.used())).toBe(before + 3);
  });

  it('`config set cache false` turns the cache off', async () => {
    await r.cli(['config', 'set', 'cache', 'false']);
    const before = (await r.used());
    const apple = join(own.dir, 'apple.jpg');
    await r.cli(['check', '--json', apple]);
    await r.cli(['check', '--json', apple]);
    expect((await r.used())).toBe(before + 2);
    await r.cli(['config', 'unset', 'cache']);
  });

  it('standard input goes as multipart too, with the same result', async () => {
    const remote = await r.cli(['check', '--json', '--no-cache', '-'], signed.png);
    const local = await r.cli(['check', '--json', '--local', '-'], signed.png);
    expect(comparable(JSON.parse(remote.stdout))).toEqual(comparable(JSON.parse(local.stdout)));
  });

  it('a 6 MB file goes through POST /v1/uploads and spends one call', async () => {
    const big = filesIn({ 'big.jpg': concat(tinyJpeg({ seed: 77 }), new Uint8Array(6 * MB)) });
    try {
      const uploadsBefore = (await r.t.app.services.store.uploadFiles()).size;
      const before = (await r.used());
      const [line] = await expectSameAsLocal(r, big.paths);
      expect(line.media.bytes).toBe(6 * MB + tinyJpeg({ seed: 77 }).length);
      expect((await r.used())).toBe(before + 1);
      expect((await r.t.app.services.store.uploadFiles()).size).toBe(uploadsBefore + 1);
    } finally {
      big.cleanup();
    }
  });

  it('a file over 25 MB is refused before anything is sent', async () => {
    const huge = filesIn({ 'huge.bin': new Uint8Array(0) });
    truncateSync(huge.paths[0]!, 25 * MB + 1);
    try {
      const before = (await r.used());
      const run = await r.cli(['check', '--json', huge.paths[0]!]);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).error).toMatchObject({ type: 'media_too_large' });
      expect(JSON.parse(run.stdout).error.message).toMatch(/--local/);
      expect((await r.used())).toBe(before);
    } finally {
      huge.cleanup();
    }
  });

  it('the readable report names the API on stderr and renders remote results', async () => {
    const run = await r.cli(['check', join(own.dir, 'signed.jpg'), join(own.dir, 'apple.jpg')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/checking with the API at http:\/\/127\.0\.0\.1:\d+/);
    expect(run.stdout).toMatch(/c2pa\s+found: signer claims to be Provenance Test Signer \(unverified\)/);
    // Trust was the API's to decide, and it says so in words.
    expect(run.stdout).toContain('trust          NOT trusted by the service: the certificate is not on its trust list, so "Provenance Test Signer" is a name the signer gave itself');
    expect(run.stdout).toMatch(/camera_reference\s+found/);
    expect(run.stdout).toMatch(/2 files checked/);
  });

  it('usage errors: --local with --remote, --trust-anchors with remote checks', async () => {
    expect((await r.cli(['check', '--local', '--remote', EXAMPLES])).code).toBe(2);
    const anchors = await r.cli(['check', '--trust-anchors', join(own.dir, 'notes.txt'), EXAMPLES]);
    expect(anchors.code).toBe(2);
    expect(anchors.stderr).toMatch(/--trust-anchors is for checks on this machine: add --local/);
  });

  it('`upload` prints the upload record and spends no call', async () => {
    const before = (await r.used());
    const run = await r.cli(['upload', '--json', join(own.dir, 'signed.jpg')]);
    expect(run.code).toBe(0);
    const record = JSON.parse(run.stdout);
    expect(record).toMatchObject({ id: expect.stringMatching(/^upl_/), bytes: signed.jpeg.length, type: 'image/jpeg' });
    expect(await r.t.app.services.store.uploadById(record.id)).toBeDefined();
    const text = await r.cli(['upload', join(own.dir, 'signed.jpg')]);
    expect(text.stdout).toMatch(/Uploaded .* as upl_\S+\n.*image\/jpeg, sha256 [0-9a-f]{64}\n.*"upload": "upl_/);
    expect((await r.used())).toBe(before);
    expect((await r.cli(['upload', join(own.dir, 'nope.jpg')])).code).toBe(1);
  });

  it('`detectors --remote` lists the API catalogue (GET /v1/detectors)', async () => {
    const remote = await r.cli(['detectors', '--json', '--remote']);
    const local = await r.cli(['detectors', '--json']);
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout));
    expect((await r.cli(['detectors', '--remote'])).stdout).toMatch(/camera_reference\s+available/);
  });

  it('the key was in no output of any of these runs', () => {
    for (const text of r.transcript) expect(text).not.toContain(r.key);
  });
});

describe.skipIf(!HAS_CORPUS)('remote check = local check on the shared corpus', () => {
  let r: RemoteSetup;
  beforeAll(async () => {
    r = await remoteSetup();
    expect((await login(r)).code).toBe(0);
  });
  afterAll(() => r.close());

  it('every corpus file: the same line as --local; the second run is all cache', async () => {
    const files = readdirSync(CORPUS_FILES).sort();
    const lines = await expectSameAsLocal(r, [CORPUS_FILES]);
    expect(lines.length).toBe(files.length);
    const used = (await r.used());
    expect(used).toBe(files.length);
    await expectSameAsLocal(r, [CORPUS_FILES]);
    expect((await r.used())).toBe(used);
  });
});

describe('http(s) inputs go to the API as url', () => {
  let r: RemoteSetup;
  let server: Server;
  let origin: string;
  const jpeg = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15', software: '17.0', makerNote: APPLE_MAKER_NOTE }) });
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/a.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from(jpeg));
      else res.writeHead(404).end();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    // The daemon may fetch from 127.0.0.1 only (its default refuses loopback).
    r = await remoteSetup({ app: { allowPrivateUrls: true } });
    expect((await login(r)).code).toBe(0);
  });
  afterAll(async () => {
    await r.close();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  it('a URL: the result of the downloaded bytes; a failed download is an error line and counts', async () => {
    const f = filesIn({ 'a.jpg': jpeg });
    try {
      const before = (await r.used());
      const run = await r.cli(['check', '--json', `${origin}/a.jpg`, `${origin}/missing.jpg`]);
      expect(run.code).toBe(1);
      const [ok, failed] = parseLines(run.stdout);
      const local = JSON.parse((await r.cli(['check', '--json', '--local', f.paths[0]!])).stdout);
      expect(comparable({ ...ok, source: 'x' })).toEqual(comparable({ ...local, source: 'x' }));
      expect(ok.source).toBe(`${origin}/a.jpg`);
      expect(failed).toMatchObject({ source: `${origin}/missing.jpg`, error: { type: 'download_failed', param: 'url' } });
      expect((await r.used())).toBe(before + 2); // SPEC 8.1 rule 3: a failed download still counts
    } finally {
      f.cleanup();
    }
  });
});

describe('quota exhaustion', () => {
  let r: RemoteSetup;
  let files: ReturnType<typeof filesIn>;
  beforeAll(async () => {
    r = await remoteSetup({ plan: 'custom', quota: 3 });
    files = filesIn(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.jpg`, tinyJpeg({ seed: 100 + i })])));
    expect((await login(r)).code).toBe(0);
  });
  afterAll(async () => {
    await r.close();
    files.cleanup();
  });

  it('stops sending, writes an error line per unchecked input, names them, exits 3', async () => {
    // One at a time, so which inputs were checked is deterministic.
    const run = await r.cli(['check', '--json', '--concurrency', '1', ...files.paths.slice(0, 5)]);
    expect(run.code).toBe(3);
    const lines = parseLines(run.stdout);
    expect(lines.slice(0, 3).filter((l) => !l.id), run.stderr).toEqual([]);
    expect(lines.slice(3)).toEqual(
      files.paths.slice(3, 5).map((source) => ({ source, error: { type: 'quota_exceeded', message: expect.stringMatching(/^Not checked: the monthly quota .* is used up \(3 of 3 calls used/) } })),
    );
    expect(run.stderr).toContain('provenance: stopped sending: the monthly quota of the API at');
    expect(run.stderr).toContain(`provenance: 2 inputs were not checked:\n  ${files.paths[3]}\n  ${files.paths[4]}\n`);
    expect((await r.used())).toBe(3);
  });

  it('cached results are still served; only the rest is listed; in parallel too', async () => {
    const run = await r.cli(['check', '--json', files.dir]);
    expect(run.code).toBe(3);
    const lines = parseLines(run.stdout);
    expect(lines.map((l) => l.source)).toEqual(files.paths);
    expect(lines.slice(0, 3).filter((l) => !l.id), run.stderr).toEqual([]);
    const unchecked = lines.filter((l) => l.error?.type === 'quota_exceeded').map((l) => l.source);
    expect(unchecked).toEqual(files.paths.slice(3));
    expect(run.stderr).toContain(`3 inputs were not checked:\n${unchecked.map((s) => `  ${s}\n`).join('')}`);
    // The readable report says "not checked" rather than "could not be read".
    const text = await r.cli(['check', files.paths[5]!]);
    expect(text.code).toBe(3);
    expect(text.stdout).toMatch(/not checked: the monthly quota .* is used up .*\(quota_exceeded\)/);
  });

  it('a cache hit needs no call, so an exhausted quota does not stop it', async () => {
    const run = await r.cli(['check', '--json', files.paths[0]!]);
    expect(run.code).toBe(0);
  });
});

describe('requests leave in input order', () => {
  let r: RemoteSetup;
  let files: ReturnType<typeof filesIn>;
  beforeAll(async () => {
    r = await remoteSetup({ plan: 'custom', quota: 1 });
    files = filesIn({ 'later.jpg': tinyJpeg({ seed: 201 }) });
    expect((await login(r)).code).toBe(0);
  });
  afterAll(async () => {
    await r.close();
    files.cleanup();
  });

  it('an input read slowly (stdin, 300 ms) is still sent before the file after it: it gets the one call left', async () => {
    // Without the order, the file (read at once) would take the quota's last call and the
    // standard input, read later, would be the one not checked.
    const stdin = Readable.from(
      (async function* () {
        await new Promise((resolve) => setTimeout(resolve, 300));
        yield tinyJpeg({ seed: 202 });
      })(),
    );
    const run = await r.cli(['check', '--json', '--no-cache', '-', files.paths[0]!], stdin);
    expect(run.code).toBe(3);
    const [first, second] = parseLines(run.stdout);
    expect(first, run.stderr).toMatchObject({ source: '-', id: expect.any(String) });
    expect(second).toMatchObject({ source: files.paths[0], error: { type: 'quota_exceeded' } });
    expect(await r.used()).toBe(1);
  });
});
