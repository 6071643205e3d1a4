// POST /v1/uploads and detect by `upload` (CONTRACT "Keys, accounts, uploads").
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/engine/detect.js';
import { APPLE_MAKER_NOTE, exifApp1, sha256Hex, tinyJpeg, tinyMp4 } from '../fixtures/make.js';
import { comparable, expectError, http, listen, makeApp, storeKind, testClock, type TestApp } from './helpers.js';

const MB = 1_048_576;
const camera = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15', software: '17.0', makerNote: APPLE_MAKER_NOTE }) });
const clock = testClock('2026-11-15T12:00:00Z');
let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await makeApp({ now: clock });
  base = await listen(t.app);
});
afterAll(() => t.close());

describe('POST /v1/uploads', () => {
  it('raw bytes: 201 with the upload record; free (no quota, no burst)', async () => {
    const { key } = await t.account('uploader');
    // 12 uploads on the free plan (burst 10/min): none is refused, none is counted.
    for (let i = 0; i < 12; i++) {
      const r = await http(base, 'POST', '/v1/uploads', { key, body: camera, headers: { 'content-type': 'application/octet-stream' } });
      expect(r.status).toBe(201);
      expect(r.headers['x-quota-used']).toBeUndefined();
    }
    const r = await http(base, 'POST', '/v1/uploads', { key, body: camera, headers: { 'content-type': 'image/jpeg' } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['bytes', 'created_at', 'expires_at', 'id', 'sha256', 'type']);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^upl_[0-9A-Za-z]+$/),
      bytes: camera.length,
      sha256: sha256Hex(camera),
      type: 'image/jpeg',
      created_at: '2026-11-15T12:00:00.000Z',
      expires_at: '2026-11-16T12:00:00.000Z',
    });
    const d = await http(base, 'POST', '/v1/detect', { key, json: { upload: r.body.id } });
    expect(d.status).toBe(200);
    expect(d.headers['x-quota-used']).toBe('1');
    expect(d.headers['ratelimit-remaining']).toBe('9');
    expect(comparable(d.body)).toEqual(comparable((await detect(camera)) as any));
  });

  it('no Content-Type is raw bytes too; multipart part file works; an upload serves several detects', async () => {
    const { key } = await t.account('multi', 'starter');
    const raw = await fetch(`${base}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: new Blob([camera]) });
    expect(raw.status).toBe(201);
    const form = new FormData();
    form.append('file', new Blob([tinyMp4({ audioOnly: true })]), 'a.m4a');
    const r = await http(base, 'POST', '/v1/uploads', { key, body: form });
    expect(r.status).toBe(201);
    expect(r.body.type).toBe('audio/mp4');
    for (let i = 1; i <= 2; i++) {
      const d = await http(base, 'POST', '/v1/detect', { key, json: { upload: r.body.id, checks: ['c2pa'] } });
      expect(d.status).toBe(200);
      expect(d.body.media).toMatchObject({ type: 'audio/mp4', sha256: r.body.sha256 });
      expect(d.headers['x-quota-used']).toBe(String(i));
    }
  });

  it('a 25 MB upload is accepted and usable; one byte more is 413', async () => {
    const { key } = await t.account('big', 'growth');
    const big = new Uint8Array(25 * MB);
    big.set(camera);
    // A byte per 4 KiB telling where it is: the bytes must come back whole and in order (the
    // PostgreSQL store keeps them in 1 MB rows).
    for (let at = camera.length; at < big.length; at += 4096) big[at] = (at >> 12) & 0xff;
    const r = await http(base, 'POST', '/v1/uploads', { key, body: big, headers: { 'content-type': 'application/octet-stream' } });
    expect(r.status).toBe(201);
    expect(r.body.bytes).toBe(25 * MB);
    expect(r.body.sha256).toBe(sha256Hex(big));
    const d = await http(base, 'POST', '/v1/detect', { key, json: { upload: r.body.id, checks: ['camera_reference'] } });
    expect(d.status).toBe(200);
    expect(d.body.media.bytes).toBe(25 * MB);
    expect(d.body.media.sha256).toBe(sha256Hex(big));
    const over = await http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(25 * MB + 1), headers: { 'content-type': 'application/octet-stream' } });
    expectError(over, 413, 'media_too_large');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(25 * MB + 1)]), 'big.bin');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: form }), 413, 'media_too_large');
  });

  it('415 for JSON, 400 for an empty upload or a multipart body without the file part', async () => {
    const { key } = await t.account('bad-upload');
    expectError(await http(base, 'POST', '/v1/uploads', { key, json: { media: 'AAAA' } }), 415, 'unsupported_content_type');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(0), headers: { 'content-type': 'application/octet-stream' } }), 400, 'invalid_request');
    expectError(await http(base, 'POST', '/v1/uploads', { key }), 400, 'invalid_request');
    const form = new FormData();
    form.append('checks', 'c2pa');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: form }), 400, 'invalid_request', 'file');
  });

  it("another account's upload, an expired one and a missing one answer alike: 404 not_found, param upload, not counted", async () => {
    const owner = await t.account('owner');
    const other = await t.account('other');
    const r = await http(base, 'POST', '/v1/uploads', { key: owner.key, body: camera, headers: { 'content-type': 'application/octet-stream' } });
    const foreign = await http(base, 'POST', '/v1/detect', { key: other.key, json: { upload: r.body.id } });
    const missing = await http(base, 'POST', '/v1/detect', { key: other.key, json: { upload: 'upl_nosuchupload000000000' } });
    const e1 = expectError(foreign, 404, 'not_found', 'upload');
    const e2 = expectError(missing, 404, 'not_found', 'upload');
    expect(e1.message.replace(r.body.id, 'X')).toBe(e2.message.replace('upl_nosuchupload000000000', 'X'));
    expect(foreign.headers['x-quota-used']).toBe('0');

    // The owner can use it until it expires, 24 h after upload.
    clock.advance(24 * 3600 * 1000 - 1000);
    expect((await http(base, 'POST', '/v1/detect', { key: owner.key, json: { upload: r.body.id } })).status).toBe(200);
    clock.advance(1000);
    const expired = await http(base, 'POST', '/v1/detect', { key: owner.key, json: { upload: r.body.id } });
    expectError(expired, 404, 'not_found', 'upload');
    expect(expired.headers['x-quota-used']).toBe('1');

    // The sweep deletes its bytes (a file, or a database row) and record.
    const store = t.app.services.store;
    const record = (await store.uploadById(r.body.id))!;
    expect((await store.readUploadBytes(record))?.byteLength).toBe(camera.byteLength);
    if (storeKind() === 'file') expect(existsSync(join(t.app.services.uploads.dir, r.body.id))).toBe(true);
    await t.app.services.uploads.sweep();
    expect(await store.readUploadBytes(record)).toBeUndefined();
    if (storeKind() === 'file') expect(existsSync(join(t.app.services.uploads.dir, r.body.id))).toBe(false);
    expect(await store.uploadById(r.body.id)).toBeUndefined();
    clock.set('2026-11-15T12:00:00Z');
  });

  it('the upload lifetime is configurable', async () => {
    const short = await makeApp({ now: clock, uploadTtlMs: 60_000 });
    try {
      const { key } = await short.account('ttl');
      const r = await short.app.inject({ method: 'POST', url: '/v1/uploads', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: Buffer.from(camera) });
      expect(r.statusCode).toBe(201);
      expect(Date.parse(r.json().expires_at) - Date.parse(r.json().created_at)).toBe(60_000);
      const record = (await short.app.services.store.uploadById(r.json().id))!;
      expect((await short.app.services.store.readUploadBytes(record))?.byteLength).toBe(camera.byteLength);
      // The embedded store keeps it as a file in the data dir; PostgreSQL leaves no file behind.
      expect(readdirSync(short.app.services.uploads.dir)).toHaveLength(storeKind() === 'file' ? 1 : 0);
    } finally {
      await short.close();
    }
  });

  it('multipart: a second file is 400 and keeps nothing; a body ended short keeps no upload and counts no call', async () => {
    const { key } = await t.account('parts', 'starter');
    const uploads = async () => (await t.app.services.store.exportState()).uploads.length;
    const before = await uploads();
    const form = new FormData();
    form.append('file', new Blob([camera]), 'a.jpg');
    form.append('file', new Blob([camera]), 'b.jpg');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: form }), 400, 'invalid_request');
    expect(await uploads()).toBe(before);

    // Complete parts, closing boundary included, then the client hangs up 100 bytes short of
    // its Content-Length: the parser has all it needs, but the request never arrived whole.
    const port = Number(new URL(base).port);
    const body = Buffer.concat([
      Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'),
      Buffer.from(camera),
      Buffer.from('\r\n--B--\r\n'),
    ]);
    for (const path of ['/v1/uploads', '/v1/detect']) {
      const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${body.length + 100}\r\n\r\n`;
      await new Promise<void>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port }, () => socket.end(Buffer.concat([Buffer.from(head), body])));
        socket.on('error', () => {});
        socket.on('close', () => resolve());
        socket.resume();
      });
    }
    // Give the daemon a moment to act on what it read, had it wrongly gone on.
    await new Promise((r) => setTimeout(r, 300));
    expect(await uploads()).toBe(before);
    const usage = await http(base, 'POST', '/v1/detect', { key, json: {} });
    expect(usage.headers['x-quota-used']).toBe('0');
    if (storeKind() === 'file') expect(readdirSync(t.app.services.uploads.dir).filter((n) => n.endsWith('.part'))).toEqual([]);
  });

  it('multipart: the file is not recorded, not even for a moment, until the whole body has arrived', async () => {
    const { key } = await t.account('pending', 'starter');
    const uploads = async () => (await t.app.services.store.exportState()).uploads.length;
    const before = await uploads();
    // The file part is whole, then the client pauses short of the closing boundary.
    const port = Number(new URL(base).port);
    const head = Buffer.concat([
      Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'),
      Buffer.from(camera),
      Buffer.from('\r\n--B\r\nContent-Disposition: form-data; name="note"\r\n\r\nx'),
    ]);
    const rest = Buffer.from('\r\n--B--\r\n');
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    try {
      socket.write(`POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${head.length + rest.length}\r\n\r\n`);
      socket.write(head);
      // Long enough for the daemon to have stored the file, had it gone on before the body's end.
      await new Promise((r) => setTimeout(r, 300));
      expect(answer).toBe('');
      expect(await uploads()).toBe(before);
      // The rest arrives: now it is recorded, and answered.
      const closed = new Promise((r) => socket.on('close', r));
      socket.write(rest);
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(await uploads()).toBe(before + 1);
    } finally {
      socket.destroy();
    }
  });

  it('multipart without its closing boundary: 400 every time, nothing kept, no call counted', async () => {
    const { key } = await t.account('unterminated', 'starter');
    const before = (await t.app.services.store.exportState()).uploads.length;
    const file = Buffer.alloc(1024 * 1024, 0x41);
    file.set(camera);
    const body = Buffer.concat([
      Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'),
      file,
      Buffer.from('\r\n--B\r\nContent-Disposition: form-data; name="extra"\r\n\r\nx\r\n--B'),
    ]);
    const headers = { 'content-type': 'multipart/form-data; boundary=B' };
    for (let i = 0; i < 5; i++) {
      expectError(await http(base, 'POST', '/v1/uploads', { key, body, headers }), 400, 'invalid_request');
      const d = await http(base, 'POST', '/v1/detect', { key, body, headers });
      expectError(d, 400, 'invalid_request');
      expect(d.headers['x-quota-used']).toBe('0');
    }
    expect((await t.app.services.store.exportState()).uploads.length).toBe(before);
    // The same form closed is fine.
    const closed = Buffer.concat([body, Buffer.from('--\r\n')]);
    expect((await http(base, 'POST', '/v1/uploads', { key, body: closed, headers })).status).toBe(201);
  });
});
