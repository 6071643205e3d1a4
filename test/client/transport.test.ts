// The client's HTTP rules against small servers on 127.0.0.1: network retries only where a retry
// cannot spend a second call, a bound on requests in flight, keep-alive, and the header parsers.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api.js';
import { AuthenticationError, NetworkError, ProtocolError, QuotaExceededError } from '../../src/client/errors.js';
import { headerSafeName } from '../../src/client/multipart.js';
import { quotaFromHeaders, retryAfterSeconds } from '../../src/client/quota.js';
import { detect } from '../../src/engine/detect.js';
import { tinyJpeg } from '../fixtures/make.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((ok) => s.close(ok));
  }
});

async function serve(handler: (body: Buffer, res: ServerResponse, socket: Socket) => void): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(Buffer.concat(chunks), res, req.socket));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address() as AddressInfo;
  await new Promise((ok) => s.close(ok));
  return `http://127.0.0.1:${port}`;
}

const jpeg = tinyJpeg({ seed: 12 });

describe('network failures', () => {
  it('connection refused: the request never left, so even a detect is retried, with growing waits', async () => {
    const waits: number[] = [];
    const client = new ApiClient({ baseUrl: await closedPort(), key: 'prv_x', sleep: async (ms) => void waits.push(ms) });
    const err = await client.detectFile(jpeg, 'a.jpg').catch((e) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.maybeSent).toBe(false);
    expect(err.message).toMatch(/connection was refused/);
    expect(waits.length).toBe(3);
    expect(waits[0]).toBeGreaterThanOrEqual(400);
    expect(waits[1]!).toBeGreaterThan(waits[0]!);
    expect(waits[2]!).toBeGreaterThan(waits[1]!);
    expect(waits[2]).toBeLessThanOrEqual(2400);
  });

  it('the connection drops after the body was sent: a detect is NOT sent again (it may have been counted)', async () => {
    let seen = 0;
    const { base } = await serve((_body, _res, socket) => {
      seen++;
      socket.destroy();
    });
    const waits: number[] = [];
    const client = new ApiClient({ baseUrl: base, key: 'prv_x', sleep: async (ms) => void waits.push(ms) });
    const err = await client.detectFile(jpeg, 'a.jpg').catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.maybeSent).toBe(true);
    expect(seen).toBe(1);
    expect(waits).toEqual([]);
    // The same failure on a free request (an upload) is retried: a repeat costs nothing.
    const upload = await client.createUpload(jpeg).catch((e) => e);
    expect(upload).toBeInstanceOf(NetworkError);
    expect(seen).toBe(1 + 4);
    await client.close();
  });
});

describe('requests in flight and keep-alive', () => {
  it('never more than maxInFlight at once, over at most that many kept-alive sockets', async () => {
    const result = await detect(jpeg);
    let current = 0;
    let peak = 0;
    const sockets = new Set<Socket>();
    const { base } = await serve((_body, res, socket) => {
      sockets.add(socket);
      current++;
      peak = Math.max(peak, current);
      setTimeout(() => {
        current--;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      }, 30);
    });
    const client = new ApiClient({ baseUrl: base, key: 'prv_x', maxInFlight: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, () => client.detectFile(jpeg, 'a.jpg')));
    await client.close();
    expect(results.every((r) => r.id === result.id)).toBe(true);
    expect(peak).toBe(2);
    expect(sockets.size).toBe(2);
  });
});

describe('answers', () => {
  it('typed errors: 401, 429 quota_exceeded, a non-/v1 answer', async () => {
    const { base } = await serve((body, res) => {
      const text = body.toString();
      if (text.includes('quota')) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600', 'x-quota-limit': '5', 'x-quota-used': '5', 'x-quota-remaining': '0', 'x-quota-reset': '2026-12-01T00:00:00Z' });
        res.end(JSON.stringify({ error: { type: 'quota_exceeded', message: 'The account has used all 5 API calls of this month.' } }));
      } else if (text.includes('html')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      } else {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'authentication_error', message: 'The API key is unknown.' } }));
      }
    });
    const client = new ApiClient({ baseUrl: base, key: 'prv_x' });
    const quota = await client.detectUrl('https://x.test/quota').catch((e) => e);
    expect(quota).toBeInstanceOf(QuotaExceededError);
    expect(quota.quota).toMatchObject({ limit: 5, used: 5, remaining: 0 });
    expect(quota.retryAfter).toBe(3600);
    expect(await client.detectUrl('https://x.test/other').catch((e) => e)).toBeInstanceOf(AuthenticationError);
    expect(await client.detectUrl('https://x.test/html').catch((e) => e)).toBeInstanceOf(ProtocolError);
    await client.close();
  });

  it('the key check: 400 means valid and spends nothing, 401 invalid; the body sent is {}', async () => {
    const bodies: string[] = [];
    let status = 400;
    const { base } = await serve((body, res) => {
      bodies.push(body.toString());
      res.writeHead(status, { 'content-type': 'application/json', 'x-quota-limit': '500', 'x-quota-used': '7', 'x-quota-remaining': '493', 'x-quota-reset': '2026-12-01T00:00:00Z' });
      res.end(JSON.stringify({ error: { type: status === 400 ? 'invalid_request' : 'authentication_error', message: 'No media source.' } }));
    });
    const client = new ApiClient({ baseUrl: base, key: 'prv_x' });
    expect(await client.checkKey()).toMatchObject({ valid: true, quota: { used: 7, remaining: 493 } });
    status = 401;
    expect(await client.checkKey()).toMatchObject({ valid: false, message: 'No media source.' });
    status = 404;
    expect(await client.checkKey().catch((e) => e)).toBeInstanceOf(ProtocolError);
    await client.close();
    expect(bodies).toEqual(['{}', '{}', '{}']);
  });
});

describe('parsers', () => {
  it('Retry-After: seconds or an HTTP date, never below 1 s', () => {
    expect(retryAfterSeconds({ 'retry-after': '12' })).toBe(12);
    expect(retryAfterSeconds({ 'retry-after': '0' })).toBe(1);
    expect(retryAfterSeconds({ 'retry-after': new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString() }, Date.UTC(2026, 0, 1))).toBe(30);
    expect(retryAfterSeconds({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterSeconds({})).toBeUndefined();
  });

  it('quota headers', () => {
    expect(quotaFromHeaders({})).toBeUndefined();
    expect(
      quotaFromHeaders({
        'x-quota-limit': '500',
        'x-quota-used': '3',
        'x-quota-remaining': '497',
        'x-quota-reset': '2026-12-01T00:00:00Z',
        'ratelimit-limit': '10',
        'ratelimit-remaining': '9',
        'ratelimit-reset': '59',
      }),
    ).toEqual({ limit: 500, used: 3, remaining: 497, reset: '2026-12-01T00:00:00Z', burst: { limit: 10, remaining: 9, reset_seconds: 59 } });
  });

  it('multipart file names are reduced to a safe ASCII base name', () => {
    expect(headerSafeName('/a/b/photo "1".jpg')).toBe('photo _1_.jpg');
    expect(headerSafeName('C:\\x\\ä.jpg')).toBe('_.jpg');
    expect(headerSafeName('')).toBe('file');
    expect(headerSafeName('a\r\nb.jpg')).toBe('a__b.jpg');
  });
});
