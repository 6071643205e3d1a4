// Issue 26, item 1: with PostgreSQL unreachable, a multipart POST /v1/detect or /v1/uploads is
// the CONTRACT's 500 internal_error, as a JSON body is, never a 400 that tells the client its
// body was wrong, and no answer names the database's address or an errno. Also when the
// database goes away in the middle of a multipart stream, after the key was checked.
//
// The daemon reaches the run's PostgreSQL through a TCP relay of this test's own on 127.0.0.1:
// closing the relay (and every connection through it) makes the database unreachable for this
// daemon alone (connection refused), without touching the shared server; opening it again on the
// same port brings it back.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { createTestSchema } from '../helpers/postgres.js';
import { relayTo, type Relay } from '../helpers/tcp-relay.js';
import { b64, expectError, http, listen, makeApp, type HttpResult, type TestApp } from '../daemon/helpers.js';

const form = (bytes: Uint8Array) => {
  const f = new FormData();
  f.append('file', new Blob([bytes]), 'photo.jpg');
  return f;
};

let relay: Relay;
let schema: { url: string; drop(): Promise<void> };
let t: TestApp;
let base: string;
let key: string;

beforeAll(async () => {
  schema = await createTestSchema(inject('pgDatabaseUrl'));
  const relayed = await relayTo(schema.url);
  relay = relayed.relay;
  t = await makeApp({ storeUrl: relayed.url });
  base = await listen(t.app);
  ({ key } = await t.account('down@example.test', 'custom', 1000));
});

afterAll(async () => {
  await relay?.open().catch(() => {});
  await t?.close();
  await relay?.close();
  await schema?.drop();
});

/** No database address, port, errno or driver message in what the client sees. */
function tellsNothing(r: HttpResult): void {
  expect(r.text).not.toMatch(/postgres|ECONNREFUSED|ECONNRESET|127\.0\.0\.1|Connection terminated|did not answer/i);
  expect(r.text).not.toContain(String(relay.port));
}

describe('PostgreSQL unreachable: multipart is the 500 too (issue 26, item 1)', () => {
  it('multipart and JSON detect, multipart and raw uploads: 500 internal_error, naming nothing; service resumes', async () => {
    expect((await http(base, 'POST', '/v1/detect', { key, body: form(tinyJpeg()) })).status).toBe(200);
    await relay.close();
    const answers = [
      await http(base, 'POST', '/v1/detect', { key, body: form(tinyJpeg()) }),
      await http(base, 'POST', '/v1/uploads', { key, body: form(tinyJpeg()) }),
      await http(base, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg()) } }),
      await http(base, 'POST', '/v1/uploads', { key, body: tinyJpeg(), headers: { 'content-type': 'image/jpeg' } }),
    ];
    for (const r of answers) {
      expectError(r, 500, 'internal_error');
      tellsNothing(r);
    }
    await relay.open();
    // The pool reconnects by itself.
    let back: HttpResult | undefined;
    for (let i = 0; i < 50 && back?.status !== 200; i++) back = await http(base, 'POST', '/v1/detect', { key, body: form(tinyJpeg()) });
    expect(back?.status).toBe(200);
    expect((await http(base, 'POST', '/v1/uploads', { key, body: form(tinyJpeg()) })).status).toBe(201);
  });

  it('the database gone in the middle of a multipart stream, after the key was checked: 500, not 400', async () => {
    for (const path of ['/v1/uploads', '/v1/detect']) {
      const boundary = 'issue26boundary';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`);
      const jpeg = Buffer.from(tinyJpeg());
      const half = jpeg.length >> 1;
      const tail = Buffer.concat([jpeg.subarray(half), Buffer.from(`\r\n--${boundary}--\r\n`)]);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(Buffer.concat([head, jpeg.subarray(0, half)]));
          await held;
          controller.enqueue(tail);
          controller.close();
        },
      });
      const pending = fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
        duplex: 'half',
      } as RequestInit);
      // The key is checked as soon as the head arrives; then the database goes. An upload is
      // past its check once its file is being received (a .part file in the data dir).
      const uploads = join(t.dir, 'uploads');
      const receiving = () => existsSync(uploads) && readdirSync(uploads).some((n) => n.endsWith('.part'));
      for (let waited = 0; waited < (path === '/v1/uploads' ? 10_000 : 500) && !receiving(); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const received = receiving();
      await relay.close();
      release();
      if (path === '/v1/uploads') expect(received).toBe(true);
      const response = await pending;
      const r: HttpResult = { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text(), body: undefined };
      r.body = JSON.parse(r.text);
      expectError(r, 500, 'internal_error');
      tellsNothing(r);
      await relay.open();
      let ok = 0;
      for (let i = 0; i < 50 && ok !== 200; i++) ok = (await http(base, 'POST', '/v1/detect', { key, body: form(tinyJpeg()) })).status;
      expect(ok).toBe(200);
    }
  });
});
