// The library (src/index.ts): check() and scan() on real files through the engine and its worker
// pool, and ProvenanceClient over real HTTP on 127.0.0.1 (the daemon's app, and a scripted
// server for the 429 paths).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  CheckSelectionError,
  check,
  detectors,
  InputError,
  InvalidRequestError,
  MediaTooLargeError,
  NotFoundError,
  ProvenanceClient,
  QuotaExceededError,
  RateLimitedError,
  scan,
  TrustAnchorError,
  type DetectionResult,
  type ScanEntry,
} from '../src/index.js';
import { detect } from '../src/engine/detect.js';
import { MAX_WORKERS_PER_CORE, WINDOW_PER_CORE } from '../src/library/scan-pool.js';
import { listen, makeApp, type TestApp } from './daemon/helpers.js';
import { tinyJpeg, tinyPng } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';

const EXAMPLES = join(ROOT, 'examples');
/** The /v1 fields that do not change from run to run (check() and scan() add `verdict`: library-verdict.test.ts). */
const comparable = ({ id: _id, duration_ms: _d, ...rest }: DetectionResult & { verdict?: unknown }) => {
  const { verdict: _v, ...v1 } = rest;
  return v1;
};

/** OS threads of this process (Linux): the pool's workers are threads of it. */
function threads(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
}

const tmp = mkdtempSync(join(tmpdir(), 'prov-library-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('check()', () => {
  it('gives the engine result for a path, a file: URL, a Buffer, a Uint8Array and a stream alike', async () => {
    const path = join(EXAMPLES, 'signed.jpg');
    const bytes = readFileSync(path);
    const expected = comparable(await detect(bytes));
    expect(expected.matches[0]).toMatchObject({ check: 'c2pa', result: 'found' });
    const results = [
      await check(path),
      await check(new URL(`file://${path}`)),
      await check(bytes),
      await check(new Uint8Array(bytes)),
      await check(Readable.from([bytes.subarray(0, 100), bytes.subarray(100)])),
    ];
    for (const r of results) {
      expect(r.id).toMatch(/^chk_[A-Za-z0-9_-]{24}$/);
      expect(comparable(r)).toEqual(expected);
      expect(r.verdict.ai).toBe('none_found');
    }
  });

  it('runs only the checks asked for, in catalogue order', async () => {
    const r = await check(join(EXAMPLES, 'camera.jpg'), { checks: ['camera_reference', 'c2pa'] });
    expect(r.checks_run).toEqual(['c2pa', 'camera_reference']);
    expect(r.matches.map((m) => m.result)).toEqual(['not_found', 'found']);
  });

  it('throws typed errors: a missing file, an unknown check, bad trust anchors, an aborted signal', async () => {
    const missing = check(join(tmp, 'nope.jpg'));
    await expect(missing).rejects.toBeInstanceOf(InputError);
    await expect(missing).rejects.toMatchObject({ type: 'not_found', message: `${join(tmp, 'nope.jpg')}: no such file or folder.` });
    await expect(check(tinyPng(), { checks: ['c2pa', 'nope' as never] })).rejects.toBeInstanceOf(CheckSelectionError);
    await expect(check(tinyPng(), { trustAnchors: join(tmp, 'none.pem') })).rejects.toBeInstanceOf(TrustAnchorError);
    await expect(check(tinyPng(), { trustAnchors: '-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n' })).rejects.toBeInstanceOf(TrustAnchorError);
    await expect(check(tinyPng(), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads what a generator wrote: the ComfyUI example names its tool, model, seed and prompt', async () => {
    const result = await check(join(EXAMPLES, 'comfyui.png'));
    const generator = result.matches.find((m) => m.check === 'generator_metadata');
    expect(generator).toMatchObject({
      result: 'found',
      generator: {
        tool: 'comfyui',
        where: 'png:tEXt:prompt',
        model: 'flux1-dev.safetensors',
        seed: '91050358797301',
        prompt: 'a lighthouse on a cliff at dawn, long exposure, photorealistic',
      },
    });
    expect(generator!.confidence).toBeLessThan(0.9);
    expect(generator!.generator!.signature).toBeUndefined();
    const marked = await check(join(EXAMPLES, 'sdxl-watermark.png'), { checks: ['invisible_watermark'] });
    expect(marked.matches[0]).toMatchObject({ result: 'found', watermark: { method: 'dwtDct', payload: 'sdxl48', bits_total: 48 } });
  });

  it("catalogue 'hosted': the hosted five only, in check(), detectors() and scan(); a bad name is a TypeError", async () => {
    const hosted = ['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference'];
    expect((await check(join(EXAMPLES, 'comfyui.png'), { catalogue: 'hosted' })).checks_run).toEqual(hosted);
    expect((await detectors({ catalogue: 'hosted' })).map((d) => d.id)).toEqual(hosted);
    for await (const entry of scan(join(EXAMPLES, 'sdxl-watermark.png'), { catalogue: 'hosted' })) {
      expect(entry.ok && entry.result.checks_run).toEqual(hosted);
    }
    await expect(check(join(EXAMPLES, 'comfyui.png'), { catalogue: 'hosted', checks: ['generator_metadata'] })).rejects.toThrow(CheckSelectionError);
    expect(() => scan(EXAMPLES, { catalogue: 'everything' as never })).toThrow(TypeError);
    await expect(detectors({ catalogue: 'all' as never })).rejects.toThrow("catalogue must be 'full' or 'hosted'.");
  });

  it("detectors() is the catalogue of GET /v1/detectors", async () => {
    expect((await detectors()).map((d) => d.id)).toEqual(['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference', 'generator_metadata', 'invisible_watermark']);
  });
});

describe('scan()', () => {
  const folder = join(tmp, 'scan');
  beforeAll(() => {
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'b.png'), tinyPng({ seed: 2 }));
    writeFileSync(join(folder, 'a.jpg'), tinyJpeg({ seed: 1 }));
    writeFileSync(join(folder, 'sub', 'c.jpg'), tinyJpeg({ seed: 3 }));
    writeFileSync(join(folder, 'notes.txt'), 'hello');
  });

  async function all(it: AsyncIterable<ScanEntry>): Promise<ScanEntry[]> {
    const out: ScanEntry[] = [];
    for await (const e of it) out.push(e);
    return out;
  }

  it('yields files and folders in input order, with per-input errors, on worker threads', async () => {
    const signed = join(EXAMPLES, 'signed.jpg');
    const entries = await all(scan([signed, folder, join(tmp, 'missing.jpg')], { concurrency: 2 }));
    expect(entries.map((e) => e.source)).toEqual([
      signed,
      join(folder, 'a.jpg'),
      join(folder, 'b.png'),
      join(folder, 'notes.txt'),
      join(folder, 'sub', 'c.jpg'),
      join(tmp, 'missing.jpg'),
    ]);
    const first = entries[0]!;
    expect(first.ok && comparable(first.result)).toEqual(comparable(await check(signed)));
    expect(entries.at(-1)).toEqual({ source: join(tmp, 'missing.jpg'), ok: false, error: { type: 'not_found', message: `${join(tmp, 'missing.jpg')}: no such file or folder.` } });
  });

  it('filters folder walks with include/exclude; a name of "-" is a file, not standard input', async () => {
    const entries = await all(scan(folder, { include: ['*.jpg'], exclude: ['sub'], concurrency: 1 }));
    expect(entries.map((e) => e.source)).toEqual([join(folder, 'a.jpg')]);
    const dash = await all(scan(['-'], { concurrency: 1 }));
    expect(dash).toMatchObject([{ source: '-', ok: false, error: { type: 'not_found' } }]);
  });

  it('matches include/exclude in any letter case by default; caseSensitive: true opts out, as --case-sensitive', async () => {
    const sources = async (options: Parameters<typeof scan>[1]) => (await all(scan(folder, { concurrency: 1, ...options }))).map((e) => e.source);
    expect(await sources({ include: ['*.JPG'] })).toEqual([join(folder, 'a.jpg'), join(folder, 'sub', 'c.jpg')]);
    expect(await sources({ include: ['*.JPG'], caseSensitive: false })).toEqual([join(folder, 'a.jpg'), join(folder, 'sub', 'c.jpg')]);
    expect(await sources({ include: ['*.JPG'], caseSensitive: true })).toEqual([]);
    expect(await sources({ include: ['*.jpg'], caseSensitive: true })).toEqual([join(folder, 'a.jpg'), join(folder, 'sub', 'c.jpg')]);
    expect(await sources({ exclude: ['SUB', '*.TXT'] })).toEqual([join(folder, 'a.jpg'), join(folder, 'b.png')]);
    expect(await sources({ exclude: ['SUB', '*.TXT'], caseSensitive: true })).toHaveLength(4);
  });

  it('rejects bad options before reading anything', () => {
    expect(() => scan(folder, { concurrency: 0 })).toThrow(RangeError);
    expect(() => scan(folder, { checks: ['c2pa', 'c2pa'] })).toThrow(CheckSelectionError);
    expect(() => scan(folder, { include: [''] })).toThrow(TypeError);
    expect(() => scan(folder, { caseSensitive: 'yes' as never })).toThrow('caseSensitive must be true or false.');
  });

  it('starts at most four workers per core, as `provenance check --concurrency` does', async () => {
    const cap = MAX_WORKERS_PER_CORE * availableParallelism();
    // Four more than the cap: enough to show it, and a regression starts 4 extra threads, not 250.
    const asked = cap + 4;
    if (asked > 256) return; // a machine of more than 63 cores: no allowed concurrency passes the cap
    await readFile(join(folder, 'a.jpg')); // libuv's own threads are up before counting
    const before = threads();
    let during = 0;
    for await (const entry of scan(join(folder, 'a.jpg'), { concurrency: asked })) {
      expect(entry.ok).toBe(true);
      during = threads();
    }
    // Each worker of the pool is one thread of this process, started when the pool opens.
    expect(during - before).toBe(cap);
    expect(threads()).toBeLessThanOrEqual(before);
  });

  it('keeps 32 inputs per core in flight, whatever the concurrency, as `provenance check` does', async () => {
    const window = WINDOW_PER_CORE * availableParallelism();
    const file = join(folder, 'b.png');
    for (const concurrency of [1, availableParallelism() + 1]) {
      let pulled = 0;
      const inputs = (function* () {
        for (let i = 0; i < window + 10; i++) {
          pulled++;
          yield file;
        }
      })();
      const entries = scan(inputs, { concurrency });
      const first = await entries.next();
      expect(first.value).toMatchObject({ source: file, ok: true });
      // The first result is passed on once the window is full, and not one input sooner or later.
      expect({ concurrency, pulled }).toEqual({ concurrency, pulled: window });
      await entries.return();
    }
  });

  it('an unreadable trustAnchors file fails the first step of the loop, as a TrustAnchorError', async () => {
    const entries = scan(folder, { trustAnchors: join(tmp, 'none.pem') });
    await expect(entries.next()).rejects.toBeInstanceOf(TrustAnchorError);
  });

  describe('stopping early', () => {
    const many = join(tmp, 'many');
    const FILES = 3000;
    beforeAll(() => {
      mkdirSync(many);
      const png = tinyPng({ seed: 9 });
      for (let i = 0; i < FILES; i++) writeFileSync(join(many, `${String(i).padStart(5, '0')}.png`), png);
    });

    it('aborting mid-way stops the workers and ends the loop with an AbortError, long before the end', async () => {
      const before = threads();
      const controller = new AbortController();
      let seen = 0;
      let during = 0;
      let caught: unknown;
      try {
        for await (const entry of scan(many, { concurrency: 2, signal: controller.signal })) {
          expect(entry.ok).toBe(true);
          if (++seen === 5) {
            during = threads();
            controller.abort();
          }
        }
      } catch (err) {
        caught = err;
      }
      expect(caught).toMatchObject({ name: 'AbortError' });
      expect(seen).toBe(5);
      expect(during).toBeGreaterThanOrEqual(before + 2);
      // The workers were terminated before the loop threw: their threads are gone. A terminated
      // worker's OS thread may still be finishing its exit for a moment on a loaded machine (a
      // .ci/run on Node 20 saw one more thread than before), so wait up to 2 s for it.
      for (let i = 0; i < 100 && threads() > before; i++) await new Promise((r) => setTimeout(r, 20));
      expect(threads()).toBeLessThanOrEqual(before);
    });

    it('breaking out of the loop stops the workers too', async () => {
      const before = threads();
      let seen = 0;
      for await (const _ of scan(many, { concurrency: 2 })) {
        if (++seen === 3) break;
      }
      expect(seen).toBe(3);
      expect(threads()).toBeLessThanOrEqual(before);
    });
  });
});

describe('ProvenanceClient against the daemon', () => {
  let daemon: TestApp;
  let baseUrl: string;
  let key: string;
  beforeAll(async () => {
    daemon = await makeApp();
    baseUrl = await listen(daemon.app);
    key = (await daemon.account('lib', 'starter')).key;
  });
  afterAll(() => daemon.close());

  it('detects a file, bytes, a stream and an upload; each result carries the quota headers', async () => {
    const client = new ProvenanceClient({ apiKey: key, baseUrl });
    const path = join(EXAMPLES, 'signed.jpg');
    const local = comparable(await check(path));
    const byFile = await client.detect({ file: path });
    expect(comparable(byFile)).toEqual(local);
    expect(byFile.quota).toMatchObject({ limit: 10_000, used: 1, remaining: 9_999 });
    expect(byFile.requestId).toMatch(/^req_[A-Za-z0-9]{20}$/);
    // quota is not part of the /v1 body: JSON is exactly what the API sent.
    expect(Object.keys(JSON.parse(JSON.stringify(byFile))).sort()).toEqual(['checks_run', 'duration_ms', 'id', 'matches', 'media']);
    const byBytes = await client.detect({ bytes: readFileSync(path), checks: ['c2pa'] });
    expect(byBytes.checks_run).toEqual(['c2pa']);
    expect(byBytes.quota?.used).toBe(2);
    const byStream = await client.detect({ file: Readable.from([readFileSync(path)]) });
    expect(comparable(byStream)).toEqual(local);
    const upload = await client.uploads.create(path);
    expect(upload).toMatchObject({ id: expect.stringMatching(/^upl_/), bytes: readFileSync(path).length, type: 'image/jpeg' });
    const byUpload = await client.detect({ upload });
    expect(comparable(byUpload)).toEqual(local);
    expect(byUpload.quota?.used).toBe(4);
    expect((await client.detectors()).map((d) => d.id)).toEqual((await detectors()).map((d) => d.id));
  });

  it('sends files over 4 MB through an upload, as the CLI does', async () => {
    const big = Buffer.concat([tinyJpeg({ seed: 5 }), Buffer.alloc(5 * 1024 * 1024)]);
    const seen: string[] = [];
    const client = new ProvenanceClient({
      apiKey: key,
      baseUrl,
      fetch: (url, init) => {
        seen.push(`${init.method} ${new URL(url).pathname}`);
        return fetch(url, init);
      },
    });
    const r = await client.detect({ bytes: big });
    expect(r.media.bytes).toBe(big.length);
    expect(seen).toEqual(['POST /v1/uploads', 'POST /v1/detect']);
  });

  it('refuses a file over 25 MB before sending anything, as the CLI does (client/send-file.ts)', async () => {
    let requests = 0;
    const client = new ProvenanceClient({ apiKey: key, baseUrl, fetch: (url, init) => (requests++, fetch(url, init)) });
    const over = new Uint8Array(25 * 1024 * 1024 + 1);
    await expect(client.detect({ bytes: over })).rejects.toBeInstanceOf(MediaTooLargeError);
    await expect(client.uploads.create(over)).rejects.toMatchObject({ status: 413, type: 'media_too_large', param: 'file' });
    expect(requests).toBe(0);
  });

  it('throws one error class per contract type, with status, type, param', async () => {
    const client = new ProvenanceClient({ apiKey: key, baseUrl });
    const bad = await client.detect({ bytes: tinyPng(), checks: ['c2pa', 'bogus' as never] }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InvalidRequestError);
    expect(bad).toMatchObject({ status: 400, type: 'invalid_request', param: 'checks', name: 'InvalidRequestError' });
    const gone = await client.detect({ upload: 'upl_doesnotexist000000000000' }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, type: 'not_found', param: 'upload', requestId: expect.stringMatching(/^req_/) });
    const wrongKey = new ProvenanceClient({ apiKey: `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`, baseUrl });
    const auth = await wrongKey.detect({ bytes: tinyPng() }).catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth).toMatchObject({ status: 401, type: 'authentication_error' });
    await expect(new ProvenanceClient({ baseUrl }).detect({ bytes: tinyPng() })).rejects.toBeInstanceOf(AuthenticationError);
    expect(() => new ProvenanceClient({ baseUrl: 'ftp://x' })).toThrow(TypeError);
  });

  it('an aborted signal stops a request before it is sent, and one in a rate-limit wait', async () => {
    let requests = 0;
    const client = new ProvenanceClient({ apiKey: key, baseUrl, fetch: (url, init) => (requests++, fetch(url, init)) });
    await expect(client.detect({ bytes: tinyPng(), signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(client.detect({ file: join(EXAMPLES, 'camera.jpg'), signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toBe(0);
  });

  it('never retries quota_exceeded', async () => {
    const { key: small } = await daemon.account('quota', 'custom', 1);
    let requests = 0;
    const client = new ProvenanceClient({ apiKey: small, baseUrl, fetch: (url, init) => (requests++, fetch(url, init)) });
    await client.detect({ bytes: tinyPng() });
    const err = await client.detect({ bytes: tinyPng() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(err).toMatchObject({ status: 429, type: 'quota_exceeded', quota: { used: 1, remaining: 0 } });
    expect(requests).toBe(2);
  });
});

describe('ProvenanceClient and rate_limited', () => {
  let server: Server;
  let baseUrl: string;
  let answered = 0;
  /** The next request is answered 429 (then the one after it 200, and so on). */
  let rateLimitNext = true;
  let result: DetectionResult;
  beforeAll(async () => {
    result = await detect(tinyPng());
    // 429 rate_limited (Retry-After: 1), then the result, then 429 again...
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const n = ++answered;
        const quota = { 'x-quota-limit': '500', 'x-quota-used': String(n), 'x-quota-remaining': String(500 - n), 'x-quota-reset': '2026-12-01T00:00:00Z', 'x-request-id': `req_${n}` };
        const limited = rateLimitNext;
        rateLimitNext = !rateLimitNext;
        if (limited) {
          res.writeHead(429, { ...quota, 'content-type': 'application/json', 'retry-after': '1' });
          res.end(JSON.stringify({ error: { type: 'rate_limited', message: 'Too many requests in the last 60 seconds.' } }));
        } else res.writeHead(200, { ...quota, 'content-type': 'application/json' }).end(JSON.stringify(result));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('waits Retry-After and sends again; the result carries the second answer’s quota and request id', async () => {
    const waits: number[] = [];
    rateLimitNext = true;
    const client = new ProvenanceClient({ apiKey: 'prv_x', baseUrl, onRateLimited: (s) => waits.push(s) });
    const r = await client.detect({ bytes: tinyPng() });
    expect(r.id).toBe(result.id);
    expect(waits).toEqual([1]);
    expect(r.quota?.used).toBe(answered);
    expect(r.requestId).toBe(`req_${answered}`);
  });

  it('a signal aborted during the Retry-After wait ends the call at once', async () => {
    const controller = new AbortController();
    const client = new ProvenanceClient({ apiKey: 'prv_x', baseUrl, maxRetryWaitSeconds: 60, onRateLimited: () => controller.abort() });
    rateLimitNext = true;
    await expect(client.detect({ bytes: tinyPng(), signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('with maxRetries: 0, throws RateLimitedError at once with Retry-After and the request id', async () => {
    const client = new ProvenanceClient({ apiKey: 'prv_x', baseUrl, maxRetries: 0 });
    rateLimitNext = true;
    const before = answered;
    const err = await client.detect({ bytes: tinyPng() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ status: 429, type: 'rate_limited', retryAfter: 1, requestId: `req_${before + 1}` });
    expect(answered).toBe(before + 1);
  });
});
