// Issue 18, answers 3 and 4, over real HTTP on 127.0.0.1: a text/plain body on POST /v1/detect
// is 415 unsupported_content_type; media of zero bytes (inline, multipart file, upload) is 400
// invalid_request naming the source and counts nothing; a zero-byte URL download is 422
// download_failed and counts (the download step was reached, CONTRACT 422 row).
import { truncateSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { expectError, http, listen, makeApp, storeKind, type HttpResult, type TestApp } from './helpers.js';

const jpeg = tinyJpeg({ seed: 18 });
let t: TestApp;
let base: string;
let fixture: Server;
let origin: string;

beforeAll(async () => {
  fixture = createServer((req, res) => {
    if (req.url === '/empty') res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '0' }).end();
    else if (req.url === '/empty-chunked') res.writeHead(200, { 'content-type': 'image/jpeg' }).end();
    else res.writeHead(200).end(Buffer.from(jpeg));
  });
  await new Promise<void>((r) => fixture.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(fixture.address() as { port: number }).port}`;
  // Only the fixture server on 127.0.0.1 is allowed; no other address is ever contacted.
  t = await makeApp({ addressPolicy: (a) => a === '127.0.0.1' });
  base = await listen(t.app);
});
afterAll(async () => {
  await t.close();
  fixture.closeAllConnections();
  await new Promise((r) => fixture.close(r));
});

const used = (r: HttpResult) => Number(r.headers['x-quota-used']);

describe('POST /v1/detect with Content-Type text/plain', () => {
  it('is 415 unsupported_content_type, not counted', async () => {
    const { key } = await t.account('text');
    for (const body of ['{"media": "AAAA"}', 'hello', '']) {
      const r = await http(base, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'text/plain' } });
      const error = expectError(r, 415, 'unsupported_content_type');
      expect(error.message).toBe('POST /v1/detect takes application/json or multipart/form-data.');
      expect(used(r)).toBe(0);
    }
    const charset = await http(base, 'POST', '/v1/detect', { key, body: 'x', headers: { 'content-type': 'text/plain; charset=utf-8' } });
    expectError(charset, 415, 'unsupported_content_type');
  });

  it('still needs a key first (authenticate comes before the body)', async () => {
    expectError(await http(base, 'POST', '/v1/detect', { body: 'x', headers: { 'content-type': 'text/plain' } }), 401, 'authentication_error');
  });
});

describe('media of zero bytes', () => {
  it('{"media": ""} is 400 invalid_request, param media, not counted', async () => {
    const { key } = await t.account('empty-inline');
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media: '' } });
    const error = expectError(r, 400, 'invalid_request', 'media');
    expect(error.message).toMatch(/zero bytes/);
    expect(used(r)).toBe(0);
    // Whitespace only decodes to nothing as well.
    expectError(await http(base, 'POST', '/v1/detect', { key, json: { media: ' \n ' } }), 400, 'invalid_request', 'media');
    const ok = await http(base, 'POST', '/v1/detect', { key, json: { media: Buffer.from(jpeg).toString('base64') } });
    expect(ok.status).toBe(200);
    expect(used(ok)).toBe(1);
  });

  it('a zero-byte multipart file is 400 invalid_request, param file, not counted', async () => {
    const { key } = await t.account('empty-part');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(0)]), 'empty.jpg');
    const r = await http(base, 'POST', '/v1/detect', { key, body: form });
    const error = expectError(r, 400, 'invalid_request', 'file');
    expect(error.message).toMatch(/zero bytes/);
    expect(used(r)).toBe(0);
  });

  it('a zero-byte upload is refused: 400 invalid_request (param file for a multipart part)', async () => {
    const { key } = await t.account('empty-upload');
    const raw = await http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(0), headers: { 'content-type': 'application/octet-stream' } });
    expect(expectError(raw, 400, 'invalid_request').message).toMatch(/zero bytes/);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(0)]), 'empty.jpg');
    const part = await http(base, 'POST', '/v1/uploads', { key, body: form });
    expect(expectError(part, 400, 'invalid_request', 'file').message).toMatch(/zero bytes/);
  });

  // The embedded store's upload file, emptied on disk behind its back. PostgreSQL keeps the bytes
  // in the database, and bytes that do not add up to the recorded size are no upload at all.
  it.skipIf(storeKind() === 'postgres')('an upload whose file became empty on disk is 400 invalid_request, param upload, not counted', async () => {
    const { key } = await t.account('emptied-upload');
    const up = await http(base, 'POST', '/v1/uploads', { key, body: jpeg, headers: { 'content-type': 'application/octet-stream' } });
    expect(up.status).toBe(201);
    truncateSync(join(t.dir, 'uploads', up.body.id), 0);
    const r = await http(base, 'POST', '/v1/detect', { key, json: { upload: up.body.id } });
    expect(expectError(r, 400, 'invalid_request', 'upload').message).toMatch(/zero bytes/);
    expect(used(r)).toBe(0);
  });

  it.each(['/empty', '/empty-chunked'])('a zero-byte URL download (%s) is 422 download_failed, param url, and counts', async (path) => {
    const { key } = await t.account(`empty-url${path.replace('/', '-')}`);
    const r = await http(base, 'POST', '/v1/detect', { key, json: { url: `${origin}${path}` } });
    expect(expectError(r, 422, 'download_failed', 'url').message).toMatch(/empty body \(zero bytes\)/);
    expect(used(r)).toBe(1);
  });
});
