// POST /v1/uploads and detect by `upload` (CONTRACT "Keys, accounts, uploads").
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/engine/detect.js';
import { APPLE_MAKER_NOTE, exifApp1, sha256Hex, tinyJpeg, tinyMp4 } from '../fixtures/make.js';
import { comparable, expectError, http, listen, makeApp, testClock, type TestApp } from './helpers.js';

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
    const { key } = t.account('uploader');
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
    const { key } = t.account('multi', 'starter');
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
    const { key } = t.account('big', 'growth');
    const big = new Uint8Array(25 * MB);
    big.set(camera);
    const r = await http(base, 'POST', '/v1/uploads', { key, body: big, headers: { 'content-type': 'application/octet-stream' } });
    expect(r.status).toBe(201);
    expect(r.body.bytes).toBe(25 * MB);
    const d = await http(base, 'POST', '/v1/detect', { key, json: { upload: r.body.id, checks: ['camera_reference'] } });
    expect(d.status).toBe(200);
    expect(d.body.media.bytes).toBe(25 * MB);
    const over = await http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(25 * MB + 1), headers: { 'content-type': 'application/octet-stream' } });
    expectError(over, 413, 'media_too_large');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(25 * MB + 1)]), 'big.bin');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: form }), 413, 'media_too_large');
  });

  it('415 for JSON, 400 for an empty upload or a multipart body without the file part', async () => {
    const { key } = t.account('bad-upload');
    expectError(await http(base, 'POST', '/v1/uploads', { key, json: { media: 'AAAA' } }), 415, 'unsupported_content_type');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(0), headers: { 'content-type': 'application/octet-stream' } }), 400, 'invalid_request');
    expectError(await http(base, 'POST', '/v1/uploads', { key }), 400, 'invalid_request');
    const form = new FormData();
    form.append('checks', 'c2pa');
    expectError(await http(base, 'POST', '/v1/uploads', { key, body: form }), 400, 'invalid_request', 'file');
  });

  it("another account's upload, an expired one and a missing one answer alike: 404 not_found, param upload, not counted", async () => {
    const owner = t.account('owner');
    const other = t.account('other');
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

    // The sweep deletes its file and record.
    const file = join(t.app.services.uploads.dir, r.body.id);
    expect(existsSync(file)).toBe(true);
    await t.app.services.uploads.sweep();
    expect(existsSync(file)).toBe(false);
    expect(t.app.services.store.data.uploads[r.body.id]).toBeUndefined();
    clock.set('2026-11-15T12:00:00Z');
  });

  it('the upload lifetime is configurable', async () => {
    const short = await makeApp({ now: clock, uploadTtlMs: 60_000 });
    try {
      const { key } = short.account('ttl');
      const r = await short.app.inject({ method: 'POST', url: '/v1/uploads', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: Buffer.from(camera) });
      expect(r.statusCode).toBe(201);
      expect(Date.parse(r.json().expires_at) - Date.parse(r.json().created_at)).toBe(60_000);
      expect(readdirSync(short.app.services.uploads.dir)).toHaveLength(1);
    } finally {
      await short.close();
    }
  });
});
