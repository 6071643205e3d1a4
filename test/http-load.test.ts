// The bench's load generator (scripts/http-load.ts): it must count answers right, however the
// bytes are split, or the daemon figures in docs/PERFORMANCE.md would be wrong. Servers here
// listen on 127.0.0.1 only, and every load is bounded by an answer count.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeRequest, ResponseReader, runLoad } from '../scripts/http-load.js';

const answer = (status: number, body: string) => `HTTP/1.1 ${status} X\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('ResponseReader', () => {
  it('finds every answer, split at every byte or run together', () => {
    const wire = Buffer.from(answer(200, 'hello') + answer(429, '') + answer(201, 'x'.repeat(70_000)));
    for (const step of [1, 2, 7, 100, 65_536, wire.length]) {
      const reader = new ResponseReader();
      const statuses: number[] = [];
      for (let at = 0; at < wire.length; at += step) statuses.push(...reader.push(wire.subarray(at, at + step)));
      expect(statuses, `step ${step}`).toEqual([200, 429, 201]);
    }
  });

  it('refuses an answer without a Content-Length', () => {
    expect(() => new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'))).toThrow(/Content-Length/);
  });

  it('encodes a request with its length and headers', () => {
    const text = encodeRequest('127.0.0.1:1', { method: 'POST', path: '/v1/detect', headers: { authorization: 'Bearer k' }, body: Buffer.from('{}') }).toString();
    expect(text).toBe('POST /v1/detect HTTP/1.1\r\nhost: 127.0.0.1:1\r\ncontent-length: 2\r\nauthorization: Bearer k\r\n\r\n{}');
  });
});

describe('runLoad', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    return `http://127.0.0.1:${address.port}`;
  }

  it('sends exactly `amount` requests, cycling through them, and counts each status', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push(`${req.headers.authorization} ${body.length}`);
        res.writeHead(req.headers.authorization === 'Bearer b' ? 429 : 200, { 'content-length': '2' });
        res.end('{}');
      });
    });
    const requests = ['a', 'b'].map((k) => ({ method: 'POST', path: '/', headers: { authorization: `Bearer ${k}` }, body: Buffer.alloc(300_000, 0x41) }));
    const r = await runLoad({ url, connections: 4, amount: 40, requests });
    expect(r.answered).toBe(40);
    expect(r.errors).toBe(0);
    expect(r.statuses).toEqual({ 200: 20, 429: 20 });
    expect(seen).toHaveLength(40);
    expect(new Set(seen)).toEqual(new Set(['Bearer a 300000', 'Bearer b 300000']));
    expect(r.latencyMs.p50).toBeGreaterThan(0);
    expect(r.latencyMs.max).toBeGreaterThanOrEqual(r.latencyMs.p99);
  });

  it('counts a connection closed before its answer as an error, not an answer', async () => {
    let n = 0;
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        if (++n % 2 === 0) req.socket.destroy();
        else res.end('ok');
      });
    });
    const r = await runLoad({ url, connections: 1, amount: 2, requests: [{ method: 'POST', path: '/', headers: {}, body: Buffer.from('x') }] });
    expect(r.answered).toBe(1);
    expect(r.errors).toBe(1);
  });
});
