// Inline detect requests reuse buffers: the JSON body is read into a pooled shared buffer
// (pooled-body.ts), a worker decodes a large `media` value from it into a pooled shared media
// buffer (buffer-pool.ts, decodeBase64Media's `into`), and the worker that checks it copies from
// there. Held to: decoding into a buffer answers exactly as decoding into a fresh one; every
// outcome of a request gives its buffers back; concurrent requests never see each other's bytes;
// an invalid value is refused before a call is reserved.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BufferPool } from '../../src/daemon/media/buffer-pool.js';
import { decodeBase64Media } from '../../src/engine/base64-media.js';
import { detect } from '../../src/engine/detect.js';
import { INLINE_MAX_BYTES } from '../../src/types.js';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg } from '../fixtures/make.js';
import { ROOT } from '../helpers/corpus.js';
import { b64, comparable, expectError, http, listen, makeApp, type TestApp } from './helpers.js';

describe('BufferPool', () => {
  it('lends a buffer of its size, takes it back once, and keeps at most `keep` idle ones', () => {
    const pool = new BufferPool(1000, 2);
    const a = pool.take();
    const b = pool.take();
    const c = pool.take();
    expect(a.buffer.length).toBe(1000);
    expect(pool.leasedCount).toBe(3);
    a.release();
    a.release();
    expect(pool.leasedCount).toBe(2);
    expect(pool.idleCount).toBe(1);
    b.release();
    c.release(); // two idle already: this one is left to the GC
    expect(pool.idleCount).toBe(2);
    expect(pool.leasedCount).toBe(0);
    // The most recently kept buffer is lent next.
    expect(pool.take().buffer).toBe(b.buffer);
  });

  it('over shared memory when asked', () => {
    expect(new BufferPool(64, 1, true).take().buffer.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(new BufferPool(64, 1).take().buffer.buffer).toBeInstanceOf(ArrayBuffer);
  });
});

describe('decodeBase64Media into a buffer', () => {
  const into = Buffer.alloc(INLINE_MAX_BYTES);
  const seq = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + (i >> 8)) & 0xff));
  const same = (raw: Buffer) => {
    const fresh = decodeBase64Media(raw);
    const pooled = decodeBase64Media(raw, into);
    if ('bytes' in fresh) {
      expect('bytes' in pooled && pooled.bytes.equals(fresh.bytes), raw.toString('latin1', 0, 40)).toBe(true);
    } else {
      expect(pooled).toEqual(fresh);
    }
    return pooled;
  };

  it('gives the same answer as a fresh decode, and the bytes live in the buffer', () => {
    // Sizes around the 64 KiB text slices (49152 bytes of file each), in both alphabets, with
    // and without padding.
    for (const n of [0, 1, 2, 3, 4, 100, 49_151, 49_152, 49_153, 98_304, 300_001, 1_000_003]) {
      const bytes = seq(n);
      for (const text of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=+$/, '')]) {
        const pooled = same(Buffer.from(text, 'latin1'));
        expect('bytes' in pooled && pooled.bytes.equals(bytes)).toBe(true);
        if (n > 0 && 'bytes' in pooled) expect(pooled.bytes.buffer).toBe(into.buffer);
      }
    }
  });

  it('wrapped text (whitespace) still decodes, through the general path', () => {
    const bytes = seq(200_000);
    const wrapped = Buffer.from(bytes.toString('base64').replace(/(.{76})/g, '$1\r\n'), 'latin1');
    const pooled = same(wrapped);
    expect('bytes' in pooled && pooled.bytes.equals(bytes)).toBe(true);
  });

  it('a bad character anywhere, including either side of a slice boundary, is refused', () => {
    const text = Buffer.from(seq(300_000).toString('base64'), 'latin1');
    for (const at of [0, 65_535, 65_536, 65_537, 131_072, 200_003, text.length - 3, text.length - 1]) {
      for (const bad of [0x21, 0x3d, 0xe9, 0x20]) {
        const raw = Buffer.from(text);
        raw[at] = bad;
        // A space is whitespace, tolerated anywhere (the general path strips it, then the
        // length no longer fits); everything else is a bad character.
        const answer = same(raw);
        // '=' as the very last character is padding: valid text for other bytes.
        const padding = bad === 0x3d && at === text.length - 1;
        if (bad !== 0x20 && !padding) expect(answer, `0x${bad.toString(16)} at ${at}`).toEqual({ invalid: true });
      }
    }
  });

  it('exactly 4 MB wrapped at 76 columns is accepted; one byte more is too large', () => {
    const exact = seq(INLINE_MAX_BYTES);
    const wrapped = (b: Buffer) => Buffer.from(b.toString('base64').replace(/(.{76})/g, '$1\n'), 'latin1');
    const ok = same(wrapped(exact));
    expect('bytes' in ok && ok.bytes.equals(exact)).toBe(true);
    expect(same(wrapped(seq(INLINE_MAX_BYTES + 1)))).toEqual({ tooLarge: true });
    expect(same(Buffer.from(seq(INLINE_MAX_BYTES + 1).toString('base64'), 'latin1'))).toEqual({ tooLarge: true });
  });
});

// The engine's pool runs dist/detect-worker.js (built by `npm run build`, which `npm test` runs first).
const built = existsSync(join(ROOT, 'dist', 'detect-worker.js'));

describe.skipIf(!built)('inline requests on worker threads', () => {
  let t: TestApp;
  let base: string;
  let key: string;
  const leased = () => ({ body: t.app.services.buffers.body.leasedCount, media: t.app.services.buffers.media.leasedCount });
  const allReturned = () => vi.waitFor(() => expect(leased()).toEqual({ body: 0, media: 0 }), { timeout: 5000 });
  // Distinct camera JPEGs of 100-250 KB (distinct bytes after the image's end, as some cameras
  // leave): their base64 is well over the 64 KB from which the raw path is taken.
  const camera = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE }) });
  const photos = Array.from({ length: 16 }, (_, i) =>
    Buffer.concat([camera, Buffer.from(Array.from({ length: 100_000 + 10_000 * i }, (_, j) => (j * (i + 3) + i) & 0xff))]),
  );
  const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const post = (body: string | Buffer) => http(base, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json' } });

  beforeAll(async () => {
    t = await makeApp({ workers: 2 });
    base = await listen(t.app);
    key = (await t.account('inline', 'custom', 100_000)).key;
  });
  afterAll(() => t.close());

  it('16 distinct files at once, twice over: each answer is its own file\'s, and every buffer comes back', async () => {
    expect(photos[0]!.length).toBeGreaterThan(100_000);
    expect(new Set(photos.map(sha256)).size).toBe(16);
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(photos.map((p) => post(JSON.stringify({ checks: ['camera_reference', 'c2pa'], media: b64(p) }))));
      answers.forEach((a, i) => {
        expect(a.status).toBe(200);
        expect(a.body.media.sha256).toBe(sha256(photos[i]!));
      });
      await allReturned();
    }
    expect(t.app.services.buffers.body.idleCount).toBeGreaterThan(0);
    expect(t.app.services.buffers.media.idleCount).toBeGreaterThan(0);
    expect(comparable((await post(JSON.stringify({ media: b64(photos[3]!) }))).body)).toEqual(comparable((await detect(photos[3]!)) as any));
  });

  it('wrapped base64 (76 columns) decodes on the worker too', async () => {
    const wrapped = b64(photos[5]!).replace(/(.{76})/g, '$1\r\n');
    const r = await post(JSON.stringify({ media: wrapped }));
    expect(r.status).toBe(200);
    expect(r.body.media.sha256).toBe(sha256(photos[5]!));
    await allReturned();
  });

  it('invalid base64, found on the worker, is a 400 before any call is reserved', async () => {
    const { key: own } = await t.account('inline-quota', 'custom', 1);
    const big = b64(photos[2]!);
    const bad = await http(base, 'POST', '/v1/detect', { key: own, body: JSON.stringify({ media: `${big.slice(0, 99_999)}*${big.slice(100_000)}` }), headers: { 'content-type': 'application/json' } });
    expectError(bad, 400, 'invalid_request', 'media');
    expect(bad.headers['x-quota-used']).toBe('0');
    // The one call is still there for a valid request, and then it is gone.
    const good = await http(base, 'POST', '/v1/detect', { key: own, body: JSON.stringify({ media: big }), headers: { 'content-type': 'application/json' } });
    expect(good.status).toBe(200);
    expect(good.headers['x-quota-used']).toBe('1');
    const none = await http(base, 'POST', '/v1/detect', { key: own, body: JSON.stringify({ media: `${big.slice(0, 99_999)}*${big.slice(100_000)}` }), headers: { 'content-type': 'application/json' } });
    // Validation comes before the quota (CONTRACT's order): still 400, not 429.
    expectError(none, 400, 'invalid_request', 'media');
    await allReturned();
  });

  it('every refusal gives its buffers back', async () => {
    const big = b64(photos[0]!);
    const bad = `${big.slice(0, 70_000)}!${big.slice(70_001)}`;
    expectError(await post(JSON.stringify({ media: bad })), 400, 'invalid_request', 'media');
    expectError(await post(JSON.stringify({ media: big, checks: ['nope'] })), 400, 'invalid_request', 'checks');
    expectError(await post(`{"media":"${big}"`), 400, 'invalid_request');
    expectError(await post(JSON.stringify({ media: big, upload: 'upl_x' })), 400, 'invalid_request');
    expectError(await post(JSON.stringify({ media: b64(new Uint8Array(INLINE_MAX_BYTES + 1)) })), 413, 'media_too_large', 'media');
    expectError(await post(Buffer.alloc(7 * 1_048_576, 0x41)), 413, 'media_too_large');
    await allReturned();
  });

  it('a client that goes away halfway through its body gives the buffer back', async () => {
    const body = Buffer.from(JSON.stringify({ media: b64(photos[1]!) }));
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(base).port) }, () => {
        socket.write(
          `POST /v1/detect HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
        );
        socket.write(body.subarray(0, body.length >> 1), () => setTimeout(() => socket.destroy(), 50));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await allReturned();
    // And the daemon goes on serving.
    expect((await post(JSON.stringify({ media: b64(photos[1]!) }))).status).toBe(200);
    await allReturned();
  });
});
