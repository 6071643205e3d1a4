// clientErrorHandler on its own (issue 18, "Tests that pin behaviour"): the exact bytes of each
// answer to what Node's parser refuses, and what happens to the connection after it, on real
// socket pairs on 127.0.0.1. The daemon's side is half-open like node:http's server
// (allowHalfOpen), so that the tests see the daemon close the connection itself.
// A whole request before the refused bytes is served by a plain node:http server whose handler
// the test answers by hand. (test/daemon/transport-errors.test.ts and slow-clients.test.ts reach
// the same handler through the daemon.)
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorHandler } from '../../src/daemon/http/client-errors.js';

let listener: Server;
let port: number;
const accepted: Socket[] = [];

beforeAll(async () => {
  listener = createServer({ allowHalfOpen: true }, (s) => accepted.push(s));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of accepted) s.destroy();
  await new Promise((resolve) => listener.close(resolve));
});

interface Pair {
  /** The daemon's side. */
  server: Socket;
  /** The client's side; it keeps its own side open until the test ends it. */
  client: Socket;
  /** What the client has received so far. */
  received(): string;
  /** Resolves when the client sees the daemon's FIN (or the connection's end). */
  clientEnded: Promise<void>;
  /** Resolves when the daemon's side is closed (destroyed). */
  serverClosed: Promise<void>;
}

async function pair(): Promise<Pair> {
  const before = accepted.length;
  const client = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  let text = '';
  client.on('data', (d) => (text += d.toString('latin1')));
  client.on('error', () => {});
  const clientEnded = new Promise<void>((resolve) => {
    client.on('end', resolve);
    client.on('close', resolve);
  });
  await new Promise<void>((resolve) => client.on('connect', () => resolve()));
  // Bounded: the server side is accepted within 5 s (50 steps of 100 ms).
  for (let i = 0; i < 50 && accepted.length === before; i++) await new Promise((r) => setTimeout(r, 100));
  const server = accepted[before]!;
  expect(server).toBeDefined();
  server.on('error', () => {});
  const serverClosed = new Promise<void>((resolve) => server.on('close', () => resolve()));
  return { server, client, received: () => text, clientEnded, serverClosed };
}

const parserError = (code?: string) => Object.assign(new Error('parser'), code === undefined ? {} : { code });

/** Resolves with `value`, or rejects after `ms` naming what did not happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))),
  ]);
}

const answer = (statusLine: string, body: string) =>
  `HTTP/1.1 ${statusLine}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
  `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`;

describe('the answer to each parser refusal, byte for byte', () => {
  const cases: [code: string | undefined, statusLine: string, body: string][] = [
    ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large', `{"error":{"type":"invalid_request","message":"The request's headers are larger than 16 KB."}}`],
    [
      'ERR_HTTP_REQUEST_TIMEOUT',
      '408 Request Timeout',
      '{"error":{"type":"invalid_request","message":"The request did not arrive in time (headers within 10 s, the whole request within 120 s)."}}',
    ],
    ['HPE_INVALID_METHOD', '400 Bad Request', '{"error":{"type":"invalid_request","message":"The request is not valid HTTP/1.1."}}'],
    ['HPE_INVALID_CHUNK_SIZE', '400 Bad Request', '{"error":{"type":"invalid_request","message":"The request is not valid HTTP/1.1."}}'],
    [undefined, '400 Bad Request', '{"error":{"type":"invalid_request","message":"The request is not valid HTTP/1.1."}}'],
  ];

  it.each(cases)('%s: %s, then the daemon ends its side', async (code, statusLine, body) => {
    const p = await pair();
    try {
      clientErrorHandler(parserError(code), p.server);
      await within(p.clientEnded, 5_000, 'the answer and FIN');
      expect(p.received()).toBe(answer(statusLine, body));
    } finally {
      p.client.destroy();
    }
  });
});

describe('the connection after it', () => {
  it('a client that keeps its side open is cut off by the daemon about 2 s after the answer', async () => {
    const p = await pair();
    try {
      clientErrorHandler(parserError('HPE_INVALID_METHOD'), p.server);
      await within(p.clientEnded, 5_000, 'the answer and FIN');
      expect(p.received()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      // The client has not ended its side: only the daemon's own timer closes the connection.
      expect(p.server.destroyed).toBe(false);
      await within(p.serverClosed, 6_000, 'the daemon closing the connection');
    } finally {
      p.client.destroy();
    }
  });

  it("what the client still sends is read and dropped, and Node's parser (a data listener from before) sees none of it", async () => {
    const p = await pair();
    try {
      const parserSaw: Buffer[] = [];
      p.server.on('data', (d) => parserSaw.push(d));
      // Paused first (node:http pauses a connection while its answers are queued): the
      // handler's own resume must start the reading.
      p.server.pause();
      clientErrorHandler(parserError('HPE_HEADER_OVERFLOW'), p.server);
      let drained = 0;
      p.server.on('data', (d) => (drained += d.length));
      const rest = Buffer.alloc(256 * 1024, 'b');
      p.client.write(rest);
      // Bounded: everything sent is read within 5 s (50 steps of 100 ms).
      for (let i = 0; i < 50 && p.server.bytesRead < rest.length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(p.server.bytesRead).toBe(rest.length);
      expect(drained).toBe(rest.length);
      expect(parserSaw).toEqual([]);
      await within(p.clientEnded, 5_000, 'the answer and FIN');
      expect(p.received()).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    } finally {
      p.client.destroy();
    }
  });

  it('a reset connection (ECONNRESET) gets no answer: the socket is destroyed at once', async () => {
    const p = await pair();
    try {
      expect(p.server.writable).toBe(true);
      clientErrorHandler(parserError('ECONNRESET'), p.server);
      expect(p.server.destroyed).toBe(true);
      await within(p.clientEnded, 5_000, 'the connection ending');
      expect(p.received()).toBe('');
    } finally {
      p.client.destroy();
    }
  });

  it('a socket that can no longer be written to (its side ended) is destroyed at once, with no answer', async () => {
    const p = await pair();
    try {
      p.server.end();
      expect(p.server.writable).toBe(false);
      clientErrorHandler(parserError('HPE_INVALID_METHOD'), p.server);
      expect(p.server.destroyed).toBe(true);
      await within(p.clientEnded, 5_000, 'the connection ending');
      expect(p.received()).toBe('');
    } finally {
      p.client.destroy();
    }
  });
});

describe('a whole request before the refused bytes: its answer goes first', () => {
  let web: HttpServer;
  let webPort: number;
  /** Responses to the requests the handler has read whole, for the test to answer. */
  const held: ServerResponse[] = [];
  /** The parser's refusals, in order. */
  const refused: string[] = [];
  /** Errors on the daemon's side of each connection. */
  const socketErrors: string[] = [];

  beforeAll(async () => {
    web = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => held.push(res));
    });
    web.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
      refused.push(err.code ?? '');
      clientErrorHandler(err, socket);
    });
    web.on('connection', (s: Socket) => s.on('error', (e: Error & { code?: string }) => socketErrors.push(e.code ?? e.message)));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webPort = (web.address() as { port: number }).port;
  });
  afterAll(async () => {
    web.closeAllConnections();
    await new Promise((resolve) => web.close(resolve));
  });

  /** Sends a request of 10 body bytes followed by bytes that are not HTTP/1.1; resolves once the handler holds its response and the parser has refused the rest. */
  async function sendRequestAndJunk(extraHeaders = '') {
    held.length = 0;
    refused.length = 0;
    socketErrors.length = 0;
    const client = connect({ host: '127.0.0.1', port: webPort, allowHalfOpen: true });
    let text = '';
    client.on('data', (d) => (text += d.toString('latin1')));
    client.on('error', () => {});
    const ended = new Promise<void>((resolve) => {
      client.on('end', resolve);
      client.on('close', resolve);
    });
    client.write(`POST /uploads HTTP/1.1\r\nHost: 127.0.0.1\r\n${extraHeaders}Content-Length: 10\r\n\r\n0123456789NOT HTTP AT ALL`);
    // Bounded: 5 s in 50 steps.
    for (let i = 0; i < 50 && (held.length === 0 || refused.length === 0); i++) await new Promise((r) => setTimeout(r, 100));
    expect(held).toHaveLength(1);
    expect(refused).toHaveLength(1);
    return { client, ended, text: () => text, res: held[0]! };
  }

  const answers = (text: string) => text.split(/(?=HTTP\/1\.1 )/).map((a) => a.slice(0, a.indexOf('\r\n')));

  it('keep-alive: nothing until the response is written, then it, then the 400 at once, then the connection ends', async () => {
    const { client, ended, text, res } = await sendRequestAndJunk();
    try {
      // Answered nothing yet: the 400 waits for the response being made.
      await new Promise((r) => setTimeout(r, 300));
      expect(text()).toBe('');
      res.end('stored');
      // Well within the 10 s the 400 would otherwise wait for.
      await within(ended, 5_000, 'the answers and FIN');
      expect(answers(text())).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request']);
      expect(text()).toContain('\r\n\r\nstored');
      expect(text().endsWith('{"error":{"type":"invalid_request","message":"The request is not valid HTTP/1.1."}}')).toBe(true);
      expect(socketErrors).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('Connection: close: only the response; nothing is written after node:http ends the connection', async () => {
    const { client, ended, text, res } = await sendRequestAndJunk('Connection: close\r\n');
    try {
      res.end('stored');
      await within(ended, 5_000, 'the answer and FIN');
      // Bounded: a moment for anything written late to show (or to fail on the socket).
      await new Promise((r) => setTimeout(r, 300));
      expect(answers(text())).toEqual(['HTTP/1.1 200 OK']);
      expect(socketErrors).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('a response that does not come: the 400 goes anyway after 10 s (IN_FLIGHT_WAIT_MS)', async () => {
    const { client, ended, text, res } = await sendRequestAndJunk();
    try {
      const started = Date.now();
      await within(ended, 15_000, 'the 400 and FIN');
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
      expect(answers(text())).toEqual(['HTTP/1.1 400 Bad Request']);
    } finally {
      res.destroy();
      client.destroy();
    }
  }, 20_000);
});
