// POST /v1/detect and GET /v1/detectors against the contract (SPEC 4, 5, 7, 8; CONTRACT), over
// real HTTP on 127.0.0.1. Error rows each check status, type, param, the limit headers and
// that nothing was counted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectorsBody } from '../../src/detectors/catalogue.js';
import { detect } from '../../src/engine/detect.js';
import { DETECTOR_IDS } from '../../src/types.js';
import { APPLE_MAKER_NOTE, exifApp1, NOT_MEDIA, tinyJpeg, tinyPng } from '../fixtures/make.js';
import { makeSignedSet, type SignedSet } from '../helpers/signed.js';
import { parseLines, runCli } from '../helpers/run-cli.js';
import { b64, comparable, expectError, http, LIMIT_HEADERS, listen, makeApp, type HttpResult, type TestApp } from './helpers.js';

const MB = 1_048_576;
const camera = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE }) });

let t: TestApp;
let base: string;
let signed: SignedSet;
let growthKey: string;

beforeAll(async () => {
  signed = await makeSignedSet();
  t = await makeApp();
  base = await listen(t.app);
  growthKey = (await t.account('growth', 'growth')).key;
});
afterAll(async () => {
  await t.close();
  signed.cleanup();
});

function used(r: HttpResult): number {
  return Number(r.headers['x-quota-used']);
}

function expectLimitHeaders(r: HttpResult) {
  for (const h of LIMIT_HEADERS) expect(r.headers[h], h).toBeDefined();
  expect(r.headers['x-quota-reset']).toMatch(/^\d{4}-\d{2}-01T00:00:00Z$/);
  expect(Number(r.headers['x-quota-remaining'])).toBe(Number(r.headers['x-quota-limit']) - used(r));
  expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
  expect(Number.isInteger(Number(r.headers['ratelimit-reset']))).toBe(true);
}

describe('GET /v1/detectors', () => {
  it('is public, free and the catalogue', async () => {
    const r = await http(base, 'GET', '/v1/detectors');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(detectorsBody());
    expect(r.headers['x-quota-used']).toBeUndefined();
  });
  it('does not count even with a key', async () => {
    const { key } = await t.account('free-detectors');
    await http(base, 'GET', '/v1/detectors', { key });
    const d = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(camera) } });
    expect(used(d)).toBe(1);
  });
});

describe('POST /v1/detect media sources', () => {
  it('media (base64): 200, all headers, the engine result apart from id and duration_ms', async () => {
    const { key } = await t.account('media');
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(camera) } });
    expect(r.status).toBe(200);
    expectLimitHeaders(r);
    expect(r.headers['retry-after']).toBeUndefined();
    expect(r.headers).toMatchObject({ 'x-quota-limit': '500', 'x-quota-used': '1', 'x-quota-remaining': '499', 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '60' });
    expect(r.body.id).toMatch(/^chk_[A-Za-z0-9_-]{24}$/);
    expect(Number.isInteger(r.body.duration_ms)).toBe(true);
    expect(r.body.checks_run).toEqual([...DETECTOR_IDS]);
    expect(r.body.matches.find((m: any) => m.check === 'camera_reference')).toMatchObject({ result: 'found', confidence: 0.9 });
    expect(comparable(r.body)).toEqual(comparable((await detect(camera)) as any));
  });

  it('equals `provenance check --json` for the same bytes (camera JPEG, signed C2PA JPEG, PNG)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prov-eq-'));
    try {
      for (const [name, bytes] of [['camera.jpg', camera], ['signed.jpg', signed.jpeg], ['signed.png', signed.png]] as const) {
        writeFileSync(join(dir, name), bytes);
        const cli = await runCli(['check', '--json', join(dir, name)], undefined, { PROVENANCE_CONFIG_DIR: dir });
        const [line] = parseLines(cli.stdout);
        const r = await http(base, 'POST', '/v1/detect', { key: growthKey, json: { media: b64(bytes) } });
        expect(r.status, name).toBe(200);
        expect(comparable(r.body), name).toEqual(comparable(line));
      }
      const c2pa = (await http(base, 'POST', '/v1/detect', { key: growthKey, json: { media: b64(signed.jpeg) } })).body.matches[0];
      expect(c2pa).toMatchObject({ check: 'c2pa', result: 'found', confidence: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('multipart part file with checks as a comma list, or repeated fields; checks_run in catalogue order', async () => {
    const { key } = await t.account('multipart', 'starter');
    const form = new FormData();
    form.append('checks', 'camera_reference, c2pa');
    form.append('file', new Blob([camera]), 'x.jpg');
    const r = await http(base, 'POST', '/v1/detect', { key, body: form });
    expect(r.status).toBe(200);
    expectLimitHeaders(r);
    expect(r.body.checks_run).toEqual(['c2pa', 'camera_reference']);
    expect(r.body.matches.map((m: any) => m.check)).toEqual(['c2pa', 'camera_reference']);
    expect(comparable(r.body)).toEqual(comparable((await detect(camera, { checks: ['c2pa', 'camera_reference'] })) as any));

    const repeated = new FormData();
    repeated.append('file', new Blob([camera]), 'x.jpg');
    repeated.append('checks', 'watermark_a');
    repeated.append('checks', 'c2pa');
    const r2 = await http(base, 'POST', '/v1/detect', { key, body: repeated });
    expect(r2.body.checks_run).toEqual(['c2pa', 'watermark_a']);
    expect(r2.body.matches[1]).toMatchObject({ check: 'watermark_a', result: 'unavailable', confidence: 0 });
    // One call each, whatever the number of checks (SPEC 8.1 rule 1).
    expect(used(r2)).toBe(2);
  });

  it('a planned detector or an unsupported type gives unavailable, not an error', async () => {
    const r = await http(base, 'POST', '/v1/detect', { key: growthKey, json: { media: b64(NOT_MEDIA), checks: ['c2pa', 'open_content_seal'] } });
    expect(r.status).toBe(200);
    expect(r.body.media.type).toBe('application/octet-stream');
    for (const m of r.body.matches) expect(m).toMatchObject({ result: 'unavailable', confidence: 0, reason: expect.any(String) });
  });

  it('the type comes from the bytes, not the Content-Type of a multipart part', async () => {
    const form = new FormData();
    form.append('file', new Blob([tinyPng()], { type: 'image/jpeg' }), 'lies.jpg');
    const r = await http(base, 'POST', '/v1/detect', { key: growthKey, body: form });
    expect(r.body.media.type).toBe('image/png');
  });

  it('accepts base64 wrapped at 76 columns and URL-safe base64', async () => {
    const wrapped = b64(camera).replace(/(.{76})/g, '$1\n');
    const r = await http(base, 'POST', '/v1/detect', { key: growthKey, json: { media: wrapped } });
    expect(r.status).toBe(200);
    expect(r.body.media.bytes).toBe(camera.length);
    const urlSafe = Buffer.from(camera).toString('base64url');
    const r2 = await http(base, 'POST', '/v1/detect', { key: growthKey, json: { media: urlSafe } });
    expect(r2.body.media.sha256).toBe(r.body.media.sha256);
  });
});

describe('authentication (401 authentication_error, WWW-Authenticate: Bearer, nothing counted)', () => {
  it.each([
    ['missing', undefined],
    ['not Bearer', 'Basic dXNlcjpwdw=='],
    ['malformed', 'Bearer prv_short'],
    ['bad checksum', `Bearer prv_${'a'.repeat(32)}AAAAAA`],
  ])('%s', async (_name, authorization) => {
    const r = await http(base, 'POST', '/v1/detect', { json: { media: b64(camera) }, headers: authorization ? { authorization } : {} });
    expectError(r, 401, 'authentication_error');
    expect(r.headers['www-authenticate']).toBe('Bearer');
    expect(r.headers['x-quota-used']).toBeUndefined();
  });

  it('unknown and revoked keys; a revoked key stops working at once, the account\'s other keys do not', async () => {
    const { key, keyId } = await t.account('revoked@example.test');
    const { newKeyValue } = await import('../../src/daemon/accounts/key-format.js');
    expectError(await http(base, 'POST', '/v1/detect', { key: newKeyValue(), json: { media: b64(camera) } }), 401, 'authentication_error');
    const second = await t.app.services.accounts.createKey('revoked@example.test', 'second');
    expect((await http(base, 'POST', '/v1/detect', { key, json: { media: b64(camera) } })).status).toBe(200);
    await t.app.services.accounts.revokeKey(keyId);
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(camera) } });
    expectError(r, 401, 'authentication_error');
    expect(r.headers['www-authenticate']).toBe('Bearer');
    const other = await http(base, 'POST', '/v1/detect', { key: second.value, json: { media: b64(camera) } });
    expect(other.status).toBe(200);
    // The revoked request was not counted: the quota is shared, and this is call 2.
    expect(used(other)).toBe(2);
  });

  it('uploads need a key too', async () => {
    const r = await http(base, 'POST', '/v1/uploads', { body: camera });
    expectError(r, 401, 'authentication_error');
    expect(r.headers['www-authenticate']).toBe('Bearer');
  });
});

describe('invalid requests (400 invalid_request; headers; not counted)', () => {
  let key: string;
  beforeAll(async () => {
    key = (await t.account('invalid', 'starter')).key;
  });

  async function expect400(init: Parameters<typeof http>[3], param?: string, message?: RegExp) {
    const r = await http(base, 'POST', '/v1/detect', { key, ...init });
    const error = expectError(r, 400, 'invalid_request', param);
    if (message) expect(error.message).toMatch(message);
    expectLimitHeaders(r);
    expect(used(r)).toBe(0);
    return r;
  }

  it('malformed JSON', () => expect400({ body: '{"media": ', headers: { 'content-type': 'application/json' } }, undefined, /not valid JSON/));
  it('empty JSON body', () => expect400({ body: '', headers: { 'content-type': 'application/json' } }));
  it('no body at all', () => expect400({}));
  it('a JSON array', () => expect400({ json: [1] }));
  it('JSON null', () => expect400({ body: 'null', headers: { 'content-type': 'application/json' } }));
  it('no media source', () => expect400({ json: { checks: ['c2pa'] } }, undefined, /one media source/));
  it('two media sources', () => expect400({ json: { media: b64(camera), url: 'http://example.com/a.jpg' } }, undefined, /one media source/));
  it('media of the wrong type', () => expect400({ json: { media: 42 } }, 'media'));
  it('bad base64', () => expect400({ json: { media: 'not base64!' } }, 'media'));
  it('upload of the wrong type', () => expect400({ json: { upload: ['upl_x'] } }, 'upload'));
  it('url that is not http(s)', () => expect400({ json: { url: 'file:///etc/passwd' } }, 'url'));
  it('url that is not a URL', () => expect400({ json: { url: 'nope' } }, 'url'));
  it('checks not an array', () => expect400({ json: { media: b64(camera), checks: 'c2pa' } }, 'checks'));
  it('unknown check id: message lists the valid ids', () =>
    expect400({ json: { media: b64(camera), checks: ['c2pa', 'nope'] } }, 'checks', new RegExp(DETECTOR_IDS.join(', '))));
  it('duplicate check id', () => expect400({ json: { media: b64(camera), checks: ['c2pa', 'c2pa'] } }, 'checks'));
  it('empty checks', () => expect400({ json: { media: b64(camera), checks: [] } }, 'checks'));
  it('multipart without a file part', () => {
    const form = new FormData();
    form.append('checks', 'c2pa');
    return expect400({ body: form }, 'file');
  });
  it('multipart with a wrongly named file part', () => {
    const form = new FormData();
    form.append('image', new Blob([camera]), 'x.jpg');
    return expect400({ body: form }, 'image');
  });
  it('multipart with two files', () => {
    const form = new FormData();
    form.append('file', new Blob([camera]), 'a.jpg');
    form.append('file', new Blob([camera]), 'b.jpg');
    return expect400({ body: form });
  });
  it('multipart with an unknown check in the field', () => {
    const form = new FormData();
    form.append('file', new Blob([camera]), 'a.jpg');
    form.append('checks', 'c2pa,bogus');
    return expect400({ body: form }, 'checks');
  });
  it('malformed multipart', () =>
    expect400({ body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }));
});

describe('other errors', () => {
  it('415 unsupported_content_type for a body that is neither JSON nor multipart', async () => {
    const { key } = await t.account('415');
    const r = await http(base, 'POST', '/v1/detect', { key, body: camera, headers: { 'content-type': 'image/jpeg' } });
    expectError(r, 415, 'unsupported_content_type');
    expectLimitHeaders(r);
    expect(used(r)).toBe(0);
  });

  it('404 not_found for unknown routes and methods, in the CONTRACT body', async () => {
    for (const [method, path] of [['GET', '/v1/nope'], ['GET', '/v1/detect'], ['POST', '/v1/detectors'], ['DELETE', '/v1/uploads'], ['GET', '/']]) {
      expectError(await http(base, method, path), 404, 'not_found');
    }
  });

  it('404 not_found (param upload) for an unknown upload id; released, not counted', async () => {
    const { key } = await t.account('noupload');
    const r = await http(base, 'POST', '/v1/detect', { key, json: { upload: 'upl_doesnotexist' } });
    expectError(r, 404, 'not_found', 'upload');
    expectLimitHeaders(r);
    expect(used(r)).toBe(0);
  });

  it('500 internal_error on a defect: no stack trace, the call given back', async () => {
    const { key } = await t.account('defect');
    const pool = t.app.services.pool;
    const original = pool.detect;
    (pool as any).detect = async () => {
      throw new Error('boom\n    at somewhere (file.ts:1:1)');
    };
    try {
      const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(camera) } });
      const error = expectError(r, 500, 'internal_error');
      expect(error.message).not.toContain('boom');
      expectLimitHeaders(r);
      expect(used(r)).toBe(0);
    } finally {
      (pool as any).detect = original;
    }
  });
});

describe('oversize files (413 media_too_large; not counted for inline and multipart)', () => {
  it('media exactly 4 MB is accepted; one byte more is refused from its length, not counted', async () => {
    const { key } = await t.account('big', 'growth');
    const exact = new Uint8Array(4 * MB);
    exact.set(camera);
    const ok = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(exact), checks: ['c2pa'] } });
    expect(ok.status).toBe(200);
    expect(ok.body.media.bytes).toBe(4 * MB);
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(new Uint8Array(4 * MB + 1)) } });
    const error = expectError(r, 413, 'media_too_large', 'media');
    expect(error.message).toMatch(/4 MB/);
    expectLimitHeaders(r);
    expect(used(r)).toBe(1);
  });

  it('a multipart file over 4 MB', async () => {
    const { key } = await t.account('bigmp', 'growth');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(4 * MB + 1)]), 'big.bin');
    const r = await http(base, 'POST', '/v1/detect', { key, body: form });
    expectError(r, 413, 'media_too_large');
    expectLimitHeaders(r);
    expect(used(r)).toBe(0);
  });
});
