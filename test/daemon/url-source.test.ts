// The `url` media source end to end, against fixture servers on 127.0.0.1 only. Names are
// resolved by an injected resolver, so no test sends a DNS query or any packet elsewhere.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/engine/detect.js';
import type { Resolver } from '../../src/daemon/media/fetch-media.js';
import { tinyJpeg } from '../fixtures/make.js';
import { comparable, expectError, http, listen, makeApp, type TestApp } from './helpers.js';

const MB = 1_048_576;
const jpeg = tinyJpeg({ seed: 9 });
let fixture: Server;
let origin: string;
let port: number;
const seenHosts: string[] = [];

beforeAll(async () => {
  fixture = createServer((req, res) => {
    seenHosts.push(String(req.headers.host));
    const url = new URL(req.url!, 'http://x');
    const hops = Number(url.searchParams.get('n') ?? 0);
    switch (url.pathname) {
      case '/a.jpg':
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from(jpeg));
        return;
      case '/missing':
        res.writeHead(404).end('no');
        return;
      case '/hops':
        // n redirects, then the file.
        if (hops > 0) res.writeHead(302, { location: `/hops?n=${hops - 1}` }).end();
        else res.writeHead(200).end(Buffer.from(jpeg));
        return;
      case '/loop':
        res.writeHead(301, { location: '/loop' }).end();
        return;
      case '/elsewhere':
        res.writeHead(302, { location: url.searchParams.get('to')! }).end();
        return;
      case '/stall':
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        res.write(Buffer.from(jpeg.subarray(0, 10)));
        return; // never ends
      case '/huge-declared':
        res.writeHead(200, { 'content-length': String(26 * MB) });
        res.write(Buffer.alloc(1024));
        return;
      case '/huge-streamed': {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let sent = 0;
        const chunk = Buffer.alloc(1 * MB);
        const pump = () => {
          while (sent <= 26 * MB) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
    }
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => fixture.listen(0, '127.0.0.1', r));
  port = (fixture.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  fixture.closeAllConnections();
  await new Promise((r) => fixture.close(r));
});

/** Test DNS: fixture.test is 127.0.0.1; mixed.test has a public and a private address. */
const resolver: Resolver = async (host) => {
  if (host === 'fixture.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'mixed.test') return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
  if (host === 'internal.test') return [{ address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

async function daemon(options: Parameters<typeof makeApp>[0]) {
  const t = await makeApp({ resolver, ...options });
  return { t, base: await listen(t.app), key: (await t.account('url', 'growth')).key };
}

describe('refused by default', () => {
  let d: Awaited<ReturnType<typeof daemon>>;
  beforeAll(async () => {
    d = await daemon({});
  });
  afterAll(() => d.t.close());

  it.each([
    ['a loopback literal', () => `${origin}/a.jpg`],
    ['a numeric-encoded loopback', () => `http://2130706433:${port}/a.jpg`],
    ['a hex loopback', () => `http://0x7f.1:${port}/a.jpg`],
    ['an IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port}/a.jpg`],
    ['a name that resolves to loopback', () => `http://fixture.test:${port}/a.jpg`],
    ['a name with one private address among public ones', () => `http://mixed.test:${port}/a.jpg`],
    ['a link-local metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('%s: 422 download_failed, and it counts (the download step was reached)', async (_name, url) => {
    const before = seenHosts.length;
    const r = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: url() } });
    const error = expectError(r, 422, 'download_failed', 'url');
    expect(error.message).toMatch(/not allowed/);
    expect(Number(r.headers['x-quota-used'])).toBeGreaterThan(0);
    expect(seenHosts.length).toBe(before);
  });

  it('an unresolvable host is 422 and counts', async () => {
    const first = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: 'http://nowhere.test/a.jpg' } });
    expectError(first, 422, 'download_failed', 'url');
    const second = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: 'http://nowhere.test/a.jpg' } });
    expect(Number(second.headers['x-quota-used'])).toBe(Number(first.headers['x-quota-used']) + 1);
  });
});

describe('allowed with allowPrivateUrls (--allow-private-urls)', () => {
  let d: Awaited<ReturnType<typeof daemon>>;
  beforeAll(async () => {
    // 2 s: long enough for the 25 MB stream below on a loaded machine (0.5 s cut it in a whole-suite
    // run), short enough for the stalled download to end the test quickly.
    d = await daemon({ allowPrivateUrls: true, downloadTimeoutMs: 2000 });
  });
  afterAll(() => d.t.close());

  const detectUrl = (url: string) => http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url } });

  it('downloads and detects: the engine result for the same bytes', async () => {
    const r = await detectUrl(`${origin}/a.jpg`);
    expect(r.status).toBe(200);
    expect(comparable(r.body)).toEqual(comparable((await detect(jpeg)) as any));
  });

  it('connects to the vetted address, keeping the name in Host', async () => {
    const r = await detectUrl(`http://fixture.test:${port}/a.jpg`);
    expect(r.status).toBe(200);
    expect(seenHosts.at(-1)).toBe(`fixture.test:${port}`);
  });

  it('follows up to 5 redirects; 6 is 422', async () => {
    expect((await detectUrl(`${origin}/hops?n=5`)).status).toBe(200);
    const r = await detectUrl(`${origin}/hops?n=6`);
    expect(expectError(r, 422, 'download_failed', 'url').message).toMatch(/redirected more than 5/);
  });

  it('a redirect loop is 422', async () => {
    expectError(await detectUrl(`${origin}/loop`), 422, 'download_failed', 'url');
  });

  it('non-2xx, refused connection, timeout: 422, each counted', async () => {
    const before = Number((await detectUrl(`${origin}/a.jpg`)).headers['x-quota-used']);
    expect(expectError(await detectUrl(`${origin}/missing`), 422, 'download_failed').message).toMatch(/HTTP 404/);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    expect(expectError(await detectUrl(`http://127.0.0.1:${deadPort}/a.jpg`), 422, 'download_failed').message).toMatch(/ECONNREFUSED/);
    const stalled = await detectUrl(`${origin}/stall`);
    expect(expectError(stalled, 422, 'download_failed').message).toMatch(/within 2 seconds/);
    expect(Number(stalled.headers['x-quota-used'])).toBe(before + 3);
  });

  it('over 25 MB: 413 from Content-Length or while streaming, and counted', async () => {
    const declared = await detectUrl(`${origin}/huge-declared`);
    expect(expectError(declared, 413, 'media_too_large', 'url').message).toMatch(/25 MB/);
    const streamed = await detectUrl(`${origin}/huge-streamed`);
    expectError(streamed, 413, 'media_too_large', 'url');
    expect(Number(streamed.headers['x-quota-used'])).toBe(Number(declared.headers['x-quota-used']) + 1);
  });

  it('multicast and unspecified stay refused', async () => {
    expectError(await detectUrl('http://224.0.0.1/a.jpg'), 422, 'download_failed');
    expectError(await detectUrl(`http://0.0.0.0:${port}/a.jpg`), 422, 'download_failed');
  });
});

describe('every redirect is vetted again', () => {
  it('a redirect from an allowed address to a refused one is 422 and never connects', async () => {
    // Only 127.0.0.1 is allowed here, so the hop to 127.0.0.2 or a private name must be refused.
    const d = await daemon({ addressPolicy: (a) => a === '127.0.0.1' });
    try {
      expect((await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/a.jpg` } })).status).toBe(200);
      for (const to of [`http://127.0.0.2:${port}/a.jpg`, `http://internal.test:${port}/a.jpg`, `http://[::1]:${port}/a.jpg`]) {
        const before = seenHosts.length;
        const r = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/elsewhere?to=${encodeURIComponent(to)}` } });
        expect(expectError(r, 422, 'download_failed', 'url').message, to).toMatch(/not allowed/);
        // The fixture saw the first hop only.
        expect(seenHosts.length - before).toBe(1);
      }
      const scheme = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/elsewhere?to=${encodeURIComponent('file:///etc/passwd')}` } });
      expectError(scheme, 422, 'download_failed', 'url');
    } finally {
      await d.t.close();
    }
  });
});
