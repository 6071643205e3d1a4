// Slow clients (issue 18): headers or a body sent a byte a second are cut off at the documented
// bounds (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS; short ones here), and 100 such connections at
// once do not stop ordinary requests being answered. Real sockets on 127.0.0.1 only.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/daemon/contract/limits.js';
import { listen, makeApp, type TestApp } from './helpers.js';

const HEADERS_MS = 2_000;
const REQUEST_MS = 6_000;
/** The headers bound of the daemon the 100 slow connections hang on. */
const CROWD_HEADERS_MS = 4_000;

interface Trickle {
  socket: Socket;
  /** Resolves when the server ends the connection: what it answered, and after how long. */
  ended: Promise<{ answer: string; afterMs: number }>;
  /** Where the connection is now: bytes sent so far, bytes answered so far, whether it closed. */
  now(): { sent: number; received: number; closed: boolean };
  stop(): void;
}

/** Opens a connection and writes `text` one byte a second (bounded: it stops with the text). */
function trickle(port: number, text: string): Trickle {
  const socket = connect({ host: '127.0.0.1', port });
  const started = Date.now();
  let answer = '';
  let i = 0;
  let closed = false;
  const timer = setInterval(() => {
    if (i < text.length && !socket.destroyed) socket.write(text[i++]!);
  }, 1000);
  socket.on('data', (d) => (answer += d.toString('latin1')));
  socket.on('error', () => {});
  const ended = new Promise<{ answer: string; afterMs: number }>((resolve) =>
    socket.on('close', () => {
      closed = true;
      clearInterval(timer);
      resolve({ answer, afterMs: Date.now() - started });
    }),
  );
  return {
    socket,
    ended,
    now: () => ({ sent: i, received: answer.length, closed }),
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('slow clients', () => {
  let t: TestApp;
  let port: number;
  let base: string;
  beforeAll(async () => {
    t = await makeApp({ timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS } });
    base = await listen(t.app);
    port = Number(new URL(base).port);
  });
  afterAll(() => t.close());

  it('documents bounds that carry a 25 MB upload yet end a trickle', () => {
    expect(HEADERS_TIMEOUT_MS).toBe(10_000);
    expect(REQUEST_TIMEOUT_MS).toBe(120_000);
  });

  it('headers sent a byte a second: 408 and closed at the headers bound', async () => {
    const slow = trickle(port, 'GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(60) + '\r\n\r\n');
    const { answer, afterMs } = await slow.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    // Node times the headers from their first byte (sent after 1 s) and checks every second.
    expect(afterMs).toBeLessThan(HEADERS_MS + 2_500);
  });

  it('a body sent a byte a second: closed at the whole-request bound', async () => {
    const head =
      'POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ' +
      (await t.account('slow-body', 'starter')).key +
      '\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    // The head goes at once; only the body trickles.
    const slow = trickle(port, '');
    slow.socket.write(head);
    let n = 0;
    const body = setInterval(() => !slow.socket.destroyed && n++ < 60 && slow.socket.write('{'), 1000);
    const { answer, afterMs } = await slow.ended;
    clearInterval(body);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(afterMs).toBeLessThan(REQUEST_MS + 3_000);
  });

  it('100 slow connections at once: GET /v1/detectors keeps answering (p99 under 250 ms)', async () => {
    // A daemon of its own with a longer headers bound (4 s), so that "the slow ones were all still
    // open during the probe" holds with room to spare on a busy machine, and is checked below.
    const own = await makeApp({ timeouts: { headersMs: CROWD_HEADERS_MS, requestMs: REQUEST_MS } });
    const ownBase = await listen(own.app);
    const ownPort = Number(new URL(ownBase).port);
    const slow = Array.from({ length: 100 }, () => trickle(ownPort, 'GET /v1/detectors HTTP/1.1\r\nHost: 127.0.0.1\r\n' + 'X-Slow: 1\r\n'.repeat(10)));
    try {
      // The probe starts once every slow connection has sent its first byte: the daemon then
      // holds 100 half-received requests (bounded wait: 5 s, 50 ms steps).
      for (let i = 0; i < 100 && !slow.every((s) => s.now().sent > 0); i++) await new Promise((r) => setTimeout(r, 50));
      expect(slow.filter((s) => s.now().sent > 0 && !s.now().closed)).toHaveLength(100);
      const latencies: number[] = [];
      // 100 ordinary requests, one after another, while the slow ones hang on (bounded: 100).
      for (let i = 0; i < 100; i++) {
        const started = performance.now();
        const r = await fetch(`${ownBase}/v1/detectors`);
        expect(r.status).toBe(200);
        await r.arrayBuffer();
        latencies.push(performance.now() - started);
      }
      // The slow ones were all still open, and none had been answered, when the probe ended:
      // the probe ran beside 100 hanging connections, not after they were cut.
      const atProbeEnd = slow.map((s) => s.now());
      expect(atProbeEnd.filter((s) => s.closed || s.received > 0)).toEqual([]);
      latencies.sort((a, b) => a - b);
      const p99 = latencies[98]!;
      console.log(`[slow-clients] GET /v1/detectors with 100 trickling connections: p50 ${latencies[49]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
      expect(p99).toBeLessThan(250);
      // And all end at the bound, each with its 408.
      const ends = await Promise.all(slow.map((s) => s.ended));
      expect(ends.every((e) => /^HTTP\/1\.1 408 /.test(e.answer))).toBe(true);
    } finally {
      for (const s of slow) s.stop();
      await own.close();
    }
  });
});
