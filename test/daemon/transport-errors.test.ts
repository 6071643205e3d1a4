// Refusals below the routes (issue 18), each pinned on its own rather than only through the fuzz
// suite: Node's parser refusing a request (431 for headers over 16 KB, 400 for what is not
// HTTP/1.1) answered with the CONTRACT body, and a body sent with a Content-Encoding refused
// with 415 after authentication, before it is read, never counting a call.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, expectError, http, listen, makeApp, type TestApp } from './helpers.js';

let t: TestApp;
let base: string;
let port: number;
let key: string;

beforeAll(async () => {
  t = await makeApp();
  base = await listen(t.app);
  port = Number(new URL(base).port);
  ({ key } = await t.account('transport@example.test', 'custom', 1000));
});
afterAll(() => t.close());

/** Sends raw bytes; resolves with the status, headers and body of the answer once it is whole. */
function raw(bytes: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    }, 10_000);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(lines[0]!.split(' ')[1]), headers, body: JSON.parse(body) });
    };
    socket.on('data', (d) => {
      chunks.push(d);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split))?.[1];
      if (split >= 0 && length !== undefined && Buffer.byteLength(text.slice(split + 4), 'latin1') >= Number(length)) done();
    });
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

describe("Node's parser refusals, as CONTRACT bodies", () => {
  it('headers over 16 KB (one of 80 KB, or 1,000 of 20 bytes): 431 invalid_request, connection closed', async () => {
    for (const headers of ['X-Big: ' + 'b'.repeat(80 * 1024), Array.from({ length: 1_000 }, (_, i) => `X-Fuzz-${String(i).padStart(4, '0')}: vvvvvvv`).join('\r\n')]) {
      const r = await raw(`GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n\r\n`);
      expect(r.status).toBe(431);
      expectError(r, 431, 'invalid_request');
      expect(r.body.error.message).toBe("The request's headers are larger than 16 KB.");
      expect(r.headers.connection).toBe('close');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
    // Under the bound is an ordinary request: a 15 KB header, or 500 small ones.
    const under = await raw(`GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Big: ${'b'.repeat(15 * 1024)}\r\n\r\n`);
    expect(under.status).toBe(200);
    const some = await raw(`GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Array.from({ length: 500 }, (_, i) => `X${i}: v`).join('\r\n')}\r\n\r\n`);
    expect(some.status).toBe(200);
    // 1,000 headers of 9 KB in all: Node 20 takes them; Node 22 and later refuse that many
    // (431 from the parser), which must then be the CONTRACT body too.
    const many = await raw(`GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Array.from({ length: 1_000 }, (_, i) => `X${i}: v`).join('\r\n')}\r\n\r\n`);
    if (many.status === 200) expect(process.versions.node.split('.')[0]).toBe('20');
    else expectError(many, 431, 'invalid_request');
  });

  it('a refused request whose body keeps coming (6 MB behind an 80 KB header, or behind 1,100 headers): the answer still arrives', async () => {
    // The body is read and dropped after the refusal, or the client's writes would meet a full
    // window and a reset, and it would lose the answer.
    const body = Buffer.alloc(6 * 1024 * 1024, 0x41);
    const start = `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
    const big = await raw(Buffer.concat([Buffer.from(`${start}X-Big: ${'b'.repeat(80 * 1024)}\r\n\r\n`), body]));
    expectError(big, 431, 'invalid_request');
    // Node 20 drops the headers past its 1,000th and reads the request (401: no key); Node 22
    // and later refuse it (431).
    const many = await raw(Buffer.concat([Buffer.from(`${start}${Array.from({ length: 1_100 }, (_, i) => `X-Fuzz-${i}: v`).join('\r\n')}\r\n\r\n`), body]));
    if (process.versions.node.split('.')[0] === '20') expectError(many, 401, 'authentication_error');
    else expectError(many, 431, 'invalid_request');
  });

  it('what is not HTTP/1.1 (a bad request line, a bad chunk, both lengths): 400 invalid_request', async () => {
    const requests = [
      'GET /v1/detectors HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n',
      'NOT A REQUEST\r\n\r\n',
      `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ];
    for (const request of requests) {
      const r = await raw(request);
      expectError(r, 400, 'invalid_request');
      expect(r.body.error.message).toBe('The request is not valid HTTP/1.1.');
    }
    const usage = await http(base, 'POST', '/v1/detect', { key, json: {} });
    expect(usage.headers['x-quota-used']).toBe('0');
  });
});

/** Sends raw bytes; resolves with everything the daemon wrote until it closed the connection. */
function rawAll(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('not closed within 10 s'));
    }, 10_000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(bytes);
  });
}

describe('a whole request followed by bytes that are not HTTP/1.1', () => {
  // A body longer than its Content-Length: the rest reads as a next request, which the parser
  // refuses. The request before it is served, and its answer must come first: a 400 in front of
  // it would tell the client that an upload it stored was refused.
  const upload = (connection: string) =>
    `POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\n${connection}Authorization: Bearer ${key}\r\nContent-Type: application/octet-stream\r\nContent-Length: 10\r\n\r\n0123456789NOT HTTP AT ALL`;

  it("keep-alive: the upload's 201 first, then the 400, then the connection closes", async () => {
    const text = await rawAll(upload(''));
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, 12))).toEqual(['HTTP/1.1 201', 'HTTP/1.1 400']);
    const stored = JSON.parse(answers[0]!.slice(answers[0]!.indexOf('\r\n\r\n') + 4)) as { id: string; bytes: number };
    expect(stored.bytes).toBe(10);
    expect(answers[1]).toContain('The request is not valid HTTP/1.1.');
  });

  it("Connection: close: only the upload's 201 (nothing is answered after a last request)", async () => {
    const text = await rawAll(upload('Connection: close\r\n'));
    expect(text.split(/(?=HTTP\/1\.1 )/).map((a) => a.slice(0, 12))).toEqual(['HTTP/1.1 201']);
  });
});

describe("paths fastify's router cannot take", () => {
  it('a broken percent-escape: 400, a parameter over 100 characters: 404, as CONTRACT bodies with the headers every answer has', async () => {
    const cases: [string, number, string][] = [
      ['GET /v1/detec%zzt', 400, 'invalid_request'],
      [`POST /dashboard/keys/%/revoke`, 400, 'invalid_request'],
      [`POST /dashboard/keys/${'k'.repeat(101)}/revoke`, 404, 'not_found'],
    ];
    for (const [line, status, type] of cases) {
      const r = await raw(`${line} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 6\r\n\r\ncsrf=x`);
      expectError(r, status, type);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
    }
  });
});

describe('Content-Encoding on a body', () => {
  const body = JSON.stringify({ media: b64(tinyJpeg()) });

  it('gzip, deflate, br, unknown or a list: 415 after authentication, before the body, not counted', async () => {
    for (const coding of ['gzip', 'deflate', 'br', 'x-unknown', 'GZIP, deflate', ' Gzip ']) {
      const r = await http(base, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json', 'content-encoding': coding } });
      expectError(r, 415, 'unsupported_content_type');
      expect(r.body.error.message).toContain('send it uncompressed');
      expect(r.body.error.message).toContain(`"${coding.trim()}"`);
      expect(r.headers['x-quota-used']).toBe('0');
      const upload = await http(base, 'POST', '/v1/uploads', { key, body: tinyJpeg(), headers: { 'content-type': 'application/octet-stream', 'content-encoding': coding } });
      expectError(upload, 415, 'unsupported_content_type');
    }
    // Authentication comes first: without a key it is a 401 whatever the coding.
    expectError(await http(base, 'POST', '/v1/detect', { body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }), 401, 'authentication_error');
  });

  it('identity, an empty value, a request without a body, a GET and an unknown route are not refused for it', async () => {
    for (const coding of ['identity', ' IDENTITY ', '']) {
      const r = await http(base, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json', 'content-encoding': coding } });
      expect(r.status, coding).toBe(200);
    }
    const empty = await raw(`POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n`);
    expectError(empty, 400, 'invalid_request');
    expect((await http(base, 'GET', '/v1/detectors', { headers: { 'content-encoding': 'gzip' } })).status).toBe(200);
    expectError(await http(base, 'POST', '/v1/nothing-here', { body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }), 404, 'not_found');
  });

  it('a GET or HEAD carrying an encoded body is answered as without it; a chunked encoded body is refused; the coding is quoted up to 40 characters', async () => {
    const used = async () => (await http(base, 'POST', '/v1/detect', { key, json: {} })).headers['x-quota-used'];
    const usedBefore = await used();
    const gz = `Content-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello`;
    const get = await raw(`GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${gz}`);
    expect(get.status).toBe(200);
    expect(Array.isArray(get.body.detectors)).toBe(true);
    const headAnswer = await rawAll(`HEAD /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${gz}`);
    expect(headAnswer).toMatch(/^HTTP\/1\.1 200 /);
    const chunked = await raw(
      `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    );
    expectError(chunked, 415, 'unsupported_content_type');
    const long = await http(base, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json', 'content-encoding': `${'x'.repeat(40)}-and-more` } });
    expectError(long, 415, 'unsupported_content_type');
    expect(long.body.error.message).toBe(`The body is sent with Content-Encoding "${'x'.repeat(40)}"; send it uncompressed (without Content-Encoding).`);
    expect(await used()).toBe(usedBefore);
  });
});
