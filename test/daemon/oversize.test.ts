// 413 without buffering the whole body (CONTRACT "Sizes"): a declared Content-Length over the
// limit is refused before any body is read; a body streamed without one is cut off as soon as
// it passes the limit, and the connection is closed so the client stops sending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, makeApp, type TestApp } from './helpers.js';
import { head, sendUntilAnswered } from './raw-http.js';

const MB = 1_048_576;
let t: TestApp;
let port: number;
let key: string;

// Streaming a large body waits for 'drain' many times: no listener may pile up while it does.
const listenerWarnings: string[] = [];
const onWarning = (w: Error) => {
  if (w.name === 'MaxListenersExceededWarning') listenerWarnings.push(w.message);
};
process.on('warning', onWarning);
afterAll(() => {
  process.off('warning', onWarning);
});

beforeAll(async () => {
  t = await makeApp();
  port = Number(new URL(await listen(t.app)).port);
  key = (await t.account('oversize', 'growth')).key;
});
afterAll(() => t.close());

const zeros = (n: number) => Buffer.alloc(n, 0x41);

function quotaUsed(headText: string): number {
  return Number(/x-quota-used: (\d+)/i.exec(headText)?.[1]);
}

describe('POST /v1/detect', () => {
  it('JSON with a Content-Length of 100 MB: 413 at once, headers, connection closed', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/detect', { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': 100 * MB }),
      (i) => (i < 400 ? zeros(256 * 1024) : undefined),
    );
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).error).toMatchObject({ type: 'media_too_large', message: expect.stringMatching(/4 MB/) });
    expect(a.head).toMatch(/x-quota-limit: 100000/i);
    expect(quotaUsed(a.head)).toBe(0);
    expect(a.head).toMatch(/connection: close/i);
    expect(a.closed).toBe(true);
    // Refused from the header: far less than the declared 100 MB ever left the client.
    expect(a.sentWhenAnswered).toBeLessThan(20 * MB);
  });

  it('chunked JSON that never ends: 413 once it passes the limit, long before the client is done', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/detect', { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      (i) => (i === 0 ? Buffer.from('{"media":"') : i < 400 ? zeros(256 * 1024) : undefined),
      { chunked: true },
    );
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).error.type).toBe('media_too_large');
    expect(a.sentWhenAnswered).toBeLessThan(40 * MB);
    expect(a.closed).toBe(true);
  });

  it('multipart with a Content-Length over 4 MB: 413 at once', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/detect', { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=b', 'content-length': 50 * MB }),
      (i) => (i < 200 ? zeros(256 * 1024) : undefined),
    );
    expect(a.status).toBe(413);
    expect(a.closed).toBe(true);
    expect(a.sentWhenAnswered).toBeLessThan(20 * MB);
  });

  it('a chunked multipart file part that passes 4 MB: 413 while streaming', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/detect', { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=b', 'transfer-encoding': 'chunked' }),
      (i) =>
        i === 0
          ? Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n')
          : i < 400
            ? zeros(256 * 1024)
            : undefined,
      { chunked: true },
    );
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).error.type).toBe('media_too_large');
    expect(quotaUsed(a.head)).toBe(0);
    expect(a.sentWhenAnswered).toBeLessThan(40 * MB);
  });

  it('a refused key costs no upload: 401 before the body is read', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/detect', { authorization: 'Bearer nope', 'content-type': 'application/json', 'content-length': 100 * MB }),
      (i) => (i < 400 ? zeros(256 * 1024) : undefined),
    );
    expect(a.status).toBe(401);
    expect(a.closed).toBe(true);
    expect(a.sentWhenAnswered).toBeLessThan(20 * MB);
  });
});

describe('POST /v1/uploads', () => {
  it('raw body with a Content-Length over 25 MB: 413 at once', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/uploads', { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': 26 * MB }),
      (i) => (i < 200 ? zeros(256 * 1024) : undefined),
    );
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).error).toMatchObject({ type: 'media_too_large', message: expect.stringMatching(/25 MB/) });
    expect(a.sentWhenAnswered).toBeLessThan(20 * MB);
  });

  it('a chunked raw body that passes 25 MB: 413 while streaming, no file left behind', async () => {
    const a = await sendUntilAnswered(
      port,
      head('POST', '/v1/uploads', { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' }),
      (i) => (i < 400 ? zeros(256 * 1024) : undefined),
      { chunked: true },
    );
    expect(a.status).toBe(413);
    expect(a.sentWhenAnswered).toBeLessThan(80 * MB);
    const { readdirSync } = await import('node:fs');
    await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(t.app.services.uploads.dir)).toEqual([]);
  });
});

it('streamed every body above without a listener left behind (no MaxListenersExceededWarning)', async () => {
  await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
  expect(listenerWarnings).toEqual([]);
});
