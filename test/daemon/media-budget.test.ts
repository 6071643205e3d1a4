// The media budget in the daemon (CONTRACT "Error body", 503 server_busy): downloads, inline and
// multipart bodies and uploads read back all take their bytes from one budget; a request that
// cannot get room within the wait is refused with 503 server_busy and Retry-After, and a call
// it had reserved is given back. Every way a request ends gives its bytes back. Real HTTP on
// 127.0.0.1; the download source is a local server (allowPrivateUrls).
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixelReservation } from '../../src/engine/pixel-reservation.js';
import { decodeCost } from '../../src/media/pixel-memory.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, expectError, http, listen, makeApp, type HttpResult, type TestApp } from './helpers.js';

const MB = 1_048_576;
const jpeg = Buffer.from(tinyJpeg({ seed: 26 }));
/** A file big enough that its JSON or multipart body is counted (over 64 KiB), within 4 MB. */
const mediumFile = Buffer.concat([jpeg, Buffer.alloc(200 * 1024, 7)]);

let fixture: Server;
let origin: string;
/** Downloads of /slow held open until the test lets them finish. */
const stalled: ServerResponse[] = [];
let slowSeen = 0;

beforeAll(async () => {
  fixture = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/a.jpg') {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(jpeg.length) }).end(jpeg);
    } else if (path === '/slow') {
      // No Content-Length: the download keeps the whole reservation while it runs.
      slowSeen++;
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(jpeg.subarray(0, 10));
      stalled.push(res);
    } else if (path === '/huge-declared') {
      res.writeHead(200, { 'content-length': String(26 * MB) });
      res.write(Buffer.alloc(1024));
    } else if (path === '/huge-streamed') {
      res.writeHead(200);
      const chunk = Buffer.alloc(MB);
      let sent = 0;
      const pump = () => {
        while (sent <= 26 * MB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else {
      res.writeHead(404).end('no');
    }
  });
  await new Promise<void>((r) => fixture.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(fixture.address() as { port: number }).port}`;
});
afterAll(async () => {
  fixture.closeAllConnections();
  await new Promise((r) => fixture.close(r));
});

function finishSlow(): void {
  for (const res of stalled.splice(0)) res.end(jpeg.subarray(10));
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function daemon(waitMs: number) {
  const t = await makeApp({ allowPrivateUrls: true, downloadTimeoutMs: 10_000, media: { memoryBytes: MB, waitMs } });
  return { t, base: await listen(t.app), key: (await t.account('budget', 'growth')).key, budget: t.app.services.mediaBudget };
}

function multipart(file: Buffer): { body: Buffer; headers: Record<string, string> } {
  const boundary = 'budgetboundary26';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const used = (r: HttpResult) => Number(r.headers['x-quota-used']);

/**
 * POSTs a JSON detect request on a connection of its own and returns the hang-up. (fetch's pool
 * may open a spare connection that never carries a request, and the daemon's close then waits
 * out its keep-alive timeout.)
 */
function sendThenHangUp(base: string, key: string, json: unknown): () => void {
  const body = JSON.stringify(json);
  const req = request(`${base}/v1/detect`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  req.on('error', () => {});
  req.end(body);
  return () => req.destroy();
}

describe('a full budget: 503 server_busy after the wait, the call given back', () => {
  let d: Awaited<ReturnType<typeof daemon>>;
  beforeAll(async () => {
    d = await daemon(300);
  });
  afterAll(() => d.t.close());

  it('every media source waits, then is refused; the holder finishes and only its call counts', async () => {
    const upload = await http(d.base, 'POST', '/v1/uploads', { key: d.key, body: new Uint8Array(jpeg), headers: { 'content-type': 'image/jpeg' } });
    expect(upload.status).toBe(201);
    const start = used(await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/a.jpg` } }));
    expect(d.budget.inUse).toBe(0);

    // A download without a Content-Length holds the whole (1 MiB) budget while it runs.
    const seen = slowSeen;
    const holder = http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/slow` } });
    await until('the slow download started', () => slowSeen > seen);
    expect(d.budget.inUse).toBe(MB);

    const form = multipart(mediumFile);
    // One after another, so each answer's X-Quota-Used sees no other request's reservation.
    for (const send of [
      () => http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/a.jpg` } }),
      () => http(d.base, 'POST', '/v1/detect', { key: d.key, json: { upload: upload.body.id } }),
      () => http(d.base, 'POST', '/v1/detect', { key: d.key, json: { media: b64(mediumFile) } }),
      () => http(d.base, 'POST', '/v1/detect', { key: d.key, body: form.body, headers: form.headers }),
    ]) {
      const t0 = Date.now();
      const r = await send();
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
      const error = expectError(r, 503, 'server_busy');
      expect(error.message).toMatch(/memory for media \(1 MiB\)/);
      expect(r.headers['retry-after']).toBe('1');
      // Only the holder's call is reserved: each refused request's call was given back (or,
      // for the bodies read before any call is reserved, never taken).
      expect(used(r)).toBe(start + 1);
    }
    expect(d.budget.waiting).toBe(0);

    finishSlow();
    const held = await holder;
    expect(held.status).toBe(200);
    expect(used(held)).toBe(start + 1);
    expect(d.budget.inUse).toBe(0);
    const after = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/a.jpg` } });
    expect(used(after)).toBe(start + 2);
  });

  it('a request that waited its turn (room freed within the wait) is served', async () => {
    const seen = slowSeen;
    const holder = http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/slow` } });
    await until('the slow download started', () => slowSeen > seen);
    const waiting = http(d.base, 'POST', '/v1/detect', { key: d.key, json: { media: b64(mediumFile) } });
    await until('the inline request waits', () => d.budget.waiting === 1);
    finishSlow();
    expect((await holder).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect(d.budget.inUse).toBe(0);
  });
});

describe('the bytes come back however a request ends', () => {
  let d: Awaited<ReturnType<typeof daemon>>;
  beforeAll(async () => {
    d = await daemon(10_000);
  });
  afterAll(() => d.t.close());

  it('after a download over 25 MB (declared or streamed), a failed download, and a success', async () => {
    expectError(await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/huge-declared` } }), 413, 'media_too_large', 'url');
    expect(d.budget.inUse).toBe(0);
    expectError(await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/huge-streamed` } }), 413, 'media_too_large', 'url');
    expect(d.budget.inUse).toBe(0);
    expectError(await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/missing` } }), 422, 'download_failed', 'url');
    expect(d.budget.inUse).toBe(0);
    expectError(await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { media: b64(mediumFile).slice(0, -3) + '!!!' } }), 400, 'invalid_request', 'media');
    expect(d.budget.inUse).toBe(0);
    expect((await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { media: b64(mediumFile) } })).status).toBe(200);
    expect(d.budget.inUse).toBe(0);
  });

  it('a client that hangs up while it waits leaves the queue at once', async () => {
    const seen = slowSeen;
    const holder = http(d.base, 'POST', '/v1/detect', { key: d.key, json: { url: `${origin}/slow` } });
    await until('the slow download started', () => slowSeen > seen);
    const hangUp = sendThenHangUp(d.base, d.key, { url: `${origin}/a.jpg` });
    await until('the second request waits', () => d.budget.waiting === 1);
    hangUp();
    // Well within the 10 s wait: the closed socket took it out of the queue.
    await until('the queue is empty', () => d.budget.waiting === 0, 2000);
    expect(d.budget.inUse).toBe(MB);
    finishSlow();
    expect((await holder).status).toBe(200);
    expect(d.budget.inUse).toBe(0);
  });

  it('a client that hangs up during its download or mid-body gives the bytes back', async () => {
    const seen = slowSeen;
    const hangUp = sendThenHangUp(d.base, d.key, { url: `${origin}/slow` });
    await until('the slow download started', () => slowSeen > seen);
    hangUp();
    finishSlow();
    await until('the download is given back', () => d.budget.inUse === 0);

    // A JSON body that declares 300 KB and stops after 1 KB.
    const port = Number(new URL(d.base).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.key}\r\nContent-Type: application/json\r\nContent-Length: ${300 * 1024}\r\n\r\n{"media":"${'A'.repeat(1024)}`,
    );
    await until('the body is being read', () => d.budget.inUse > 0);
    socket.destroy();
    await until('the body is given back', () => d.budget.inUse === 0);
  });
});

// Issue 34: the pixels a file decodes count in the budget, taken from its header before it goes to
// a worker (engine/pixel-reservation.ts). A file of a few hundred bytes can decode to megabytes.
describe('the pixels a file decodes count in the budget too', () => {
  let d: Awaited<ReturnType<typeof daemon>>;
  beforeAll(async () => {
    d = await daemon(300);
  });
  afterAll(() => d.t.close());

  it('a tiny PNG whose pixels do not fit beside what others hold waits, then 503 with its call given back; with room it is served', async () => {
    // 256 x 256 RGBA, flat: a few hundred bytes, 1.5 MB of pixels as the checks count them (more
    // than the whole 1 MiB budget: it takes all of it beside its own bytes, so it runs alone).
    const png = Buffer.from(await sharp({ create: { width: 256, height: 256, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 0.5 } } }).png().toBuffer());
    expect(png.length).toBeLessThan(2048);
    expect(pixelReservation(png, ['generator_metadata'])).toBe(decodeCost(256, 256, false));
    const upload = await http(d.base, 'POST', '/v1/uploads', { key: d.key, body: new Uint8Array(png), headers: { 'content-type': 'image/png' } });
    expect(upload.status).toBe(201);
    const start = used(await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { upload: upload.body.id, checks: ['c2pa'] } }));

    // Another request holds 600 KB: its multipart body is declared and not sent yet.
    const socket = connect(Number(new URL(d.base).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.on('error', () => {});
    socket.write(`POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 600000\r\n\r\n`);
    await until('the body is held', () => d.budget.inUse === 600_000);

    // The upload's bytes fit beside it; its pixels do not.
    const refused = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { upload: upload.body.id } });
    const error = expectError(refused, 503, 'server_busy');
    expect(error.message).toMatch(/memory for media \(1 MiB\)/);
    expect(used(refused)).toBe(start);
    // A file no pixel check decodes (only c2pa asked for) needs no room for pixels.
    expect((await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { upload: upload.body.id, checks: ['c2pa'] } })).status).toBe(200);

    socket.destroy();
    await until('the body is given back', () => d.budget.inUse === 0);
    const served = await http(d.base, 'POST', '/v1/detect', { key: d.key, json: { upload: upload.body.id } });
    expect(served.status).toBe(200);
    expect(used(served)).toBe(start + 2);
    expect(d.budget.inUse).toBe(0);
  });
});
