// The detect request's validation (src/daemon/media/detect-input.ts) pinned exactly: each
// refusal's message and param as the client reads them (CONTRACT 400 row), which source a body
// names, what happens to a pooled buffer when its decoded media is refused, and, over real
// HTTP on 127.0.0.1, the multipart parts (the 4 MB boundary, source fields sent as parts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETECTOR_IDS } from '../../src/types.js';
import { ApiError } from '../../src/daemon/contract/errors.js';
import { INLINE_MAX_BYTES, tooLargeMessage } from '../../src/daemon/contract/limits.js';
import { BufferPool } from '../../src/daemon/media/buffer-pool.js';
import { fromDecoded, parseJsonDetect } from '../../src/daemon/media/detect-input.js';
import { RawBase64 } from '../../src/daemon/media/json-body.js';
import { tinyJpeg } from '../fixtures/make.js';
import { expectError, http, listen, makeApp, type HttpResult, type TestApp } from './helpers.js';

const ONE_SOURCE = 'Give exactly one media source: url, media (base64) or upload (as JSON), or a multipart part named file.';
const VALID = `Valid check ids: ${DETECTOR_IDS.join(', ')}.`;
const CHECKS_TYPE = 'checks must be an array of detector ids (strings).';
const ALL = [...DETECTOR_IDS];

/** The ApiError `fn` throws, as the client's error body would carry it. */
function refusal(fn: () => unknown): { type: string; message: string; param?: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).body().error;
  }
  throw new Error('expected a refusal, got none');
}

describe('parseJsonDetect: the body as a whole', () => {
  it('no body at all names the sources', () => {
    expect(refusal(() => parseJsonDetect(undefined))).toEqual({ type: 'invalid_request', message: `The request has no body. ${ONE_SOURCE}` });
  });

  it.each([['null', null], ['a number', 42], ['a string', 'media'], ['an array', [{ media: 'AAAA' }]], ['true', true]])('%s is not an object', (_name, body) => {
    expect(refusal(() => parseJsonDetect(body))).toEqual({ type: 'invalid_request', message: 'The JSON body must be an object.' });
  });

  it('no source', () => {
    for (const body of [{}, { checks: ['c2pa'] }, { media: undefined, file: 'x' }]) {
      expect(refusal(() => parseJsonDetect(body))).toEqual({ type: 'invalid_request', message: `No media source. ${ONE_SOURCE}` });
    }
  });

  it('two or three sources are named, in the order url, media, upload', () => {
    expect(refusal(() => parseJsonDetect({ media: 'AAAA', url: 'http://example.com/' })).message).toBe(`url and media were both given. ${ONE_SOURCE}`);
    expect(refusal(() => parseJsonDetect({ upload: 'upl_x', media: 'AAAA' })).message).toBe(`media and upload were both given. ${ONE_SOURCE}`);
    expect(refusal(() => parseJsonDetect({ upload: 'upl_x', media: 'AAAA', url: 'http://example.com/' }))).toEqual({
      type: 'invalid_request',
      message: `url and media and upload were both given. ${ONE_SOURCE}`,
    });
  });

  it('a source whose value is null counts as given (only undefined is absent)', () => {
    expect(refusal(() => parseJsonDetect({ url: null, media: 'AAAA' })).message).toBe(`url and media were both given. ${ONE_SOURCE}`);
    expect(refusal(() => parseJsonDetect({ url: undefined, upload: null }))).toEqual({ type: 'invalid_request', message: 'upload must be a string.', param: 'upload' });
  });
});

describe('parseJsonDetect: each source', () => {
  it('url: kept as given once the guard accepts it', () => {
    expect(parseJsonDetect({ url: 'https://example.com/a.jpg' })).toEqual({ source: { kind: 'url', url: 'https://example.com/a.jpg' }, checks: ALL });
  });

  it("url: the guard's refusals carry its message and param url", () => {
    expect(refusal(() => parseJsonDetect({ url: 'nope' }))).toEqual({ type: 'invalid_request', message: '"nope" is not a valid URL.', param: 'url' });
    expect(refusal(() => parseJsonDetect({ url: 'ftp://example.com/a' }))).toEqual({
      type: 'invalid_request',
      message: 'Only http and https URLs can be downloaded, not ftp.',
      param: 'url',
    });
  });

  it('media (string): decoded here', () => {
    const input = parseJsonDetect({ media: Buffer.from([1, 2, 3]).toString('base64'), checks: ['c2pa'] });
    expect(input.checks).toEqual(['c2pa']);
    expect(input.source).toEqual({ kind: 'file', bytes: Buffer.from([1, 2, 3]) });
  });

  it('media (raw bytes the JSON shortcut kept): handed on still base64, checks validated', () => {
    const raw = Buffer.from('AQID');
    const input = parseJsonDetect({ media: new RawBase64(raw), checks: ['camera_reference', 'c2pa'] });
    expect(input.source).toEqual({ kind: 'base64', text: raw });
    expect((input.source as { text: Buffer }).text).toBe(raw);
    expect(input.checks).toEqual(['c2pa', 'camera_reference']);
    expect(refusal(() => parseJsonDetect({ media: new RawBase64(raw), checks: 'c2pa' }))).toEqual({ type: 'invalid_request', message: CHECKS_TYPE, param: 'checks' });
  });

  it('raw bytes under another source name are not a string', () => {
    expect(refusal(() => parseJsonDetect({ url: new RawBase64(Buffer.from('AQID')) }))).toEqual({ type: 'invalid_request', message: 'url must be a string.', param: 'url' });
  });

  it('upload: the id as given', () => {
    expect(parseJsonDetect({ upload: 'upl_abc' })).toEqual({ source: { kind: 'upload', id: 'upl_abc' }, checks: ALL });
  });

  it.each([['media', 42], ['url', ['http://example.com/']], ['upload', { id: 'upl_x' }], ['media', false]])('%s of the wrong type: %j', (name, value) => {
    expect(refusal(() => parseJsonDetect({ [name]: value }))).toEqual({ type: 'invalid_request', message: `${name} must be a string.`, param: name });
  });

  it('media that is not base64, and media of zero bytes', () => {
    expect(refusal(() => parseJsonDetect({ media: 'not base64!' }))).toEqual({
      type: 'invalid_request',
      message: 'media is not valid base64 (standard or URL-safe alphabet).',
      param: 'media',
    });
    expect(refusal(() => parseJsonDetect({ media: '' }))).toEqual({ type: 'invalid_request', message: 'media is empty: it decodes to zero bytes.', param: 'media' });
  });
});

describe('parseJsonDetect: checks', () => {
  it('absent: every detector, in catalogue order', () => {
    expect(parseJsonDetect({ upload: 'upl_x' }).checks).toEqual(ALL);
  });

  it.each([
    ['a string', 'c2pa'],
    ['a number in the list', [1]],
    ['a string then a number', ['c2pa', 1]],
    ['null in the list', ['c2pa', null]],
    ['an object', { c2pa: true }],
    ['null', null],
  ])('%s is refused with param checks', (_name, checks) => {
    expect(refusal(() => parseJsonDetect({ upload: 'upl_x', checks }))).toEqual({ type: 'invalid_request', message: CHECKS_TYPE, param: 'checks' });
  });

  it("the selection's own refusals keep their message and param checks", () => {
    expect(refusal(() => parseJsonDetect({ upload: 'upl_x', checks: ['c2pa', 'nope'] }))).toEqual({
      type: 'invalid_request',
      message: `Unknown check id "nope". ${VALID}`,
      param: 'checks',
    });
    expect(refusal(() => parseJsonDetect({ upload: 'upl_x', checks: [] })).message).toBe(`checks names no detector. ${VALID}`);
  });
});

describe('fromDecoded: the pooled buffer the media was decoded into', () => {
  const pool = new BufferPool(64, 4);

  it('bytes inside the lease: kept with the input, not released', () => {
    const lease = pool.take();
    lease.buffer.set([9, 8, 7]);
    const input = fromDecoded({ bytes: lease.buffer.subarray(0, 3) }, ['c2pa'], lease);
    expect(input.source).toEqual({ kind: 'file', bytes: Buffer.from([9, 8, 7]), lease });
    expect(pool.leasedCount).toBe(1);
    lease.release();
    expect(pool.leasedCount).toBe(0);
  });

  it('bytes elsewhere (the general decode path): the lease is released and not kept', () => {
    const lease = pool.take();
    const input = fromDecoded({ bytes: Buffer.from([1, 2]) }, ['c2pa'], lease);
    expect(input).toEqual({ source: { kind: 'file', bytes: Buffer.from([1, 2]) }, checks: ['c2pa'] });
    expect('lease' in input.source).toBe(false);
    expect(pool.leasedCount).toBe(0);
  });

  it('no lease at all', () => {
    expect(fromDecoded({ bytes: Buffer.from([1]) }, ['c2pa'])).toEqual({ source: { kind: 'file', bytes: Buffer.from([1]) }, checks: ['c2pa'] });
  });

  it('invalid and too large: refused, the lease released', () => {
    const lease = pool.take();
    expect(refusal(() => fromDecoded({ invalid: true }, ['c2pa'], lease))).toEqual({
      type: 'invalid_request',
      message: 'media is not valid base64 (standard or URL-safe alphabet).',
      param: 'media',
    });
    expect(pool.leasedCount).toBe(0);
    const other = pool.take();
    expect(fromDecoded({ tooLarge: true }, ['c2pa'], other)).toEqual({ source: { kind: 'oversize', param: 'media' }, checks: ['c2pa'] });
    expect(pool.leasedCount).toBe(0);
  });

  it('zero bytes inside the lease: refused, the lease released', () => {
    const lease = pool.take();
    expect(refusal(() => fromDecoded({ bytes: lease.buffer.subarray(0, 0) }, ['c2pa'], lease))).toEqual({
      type: 'invalid_request',
      message: 'media is empty: it decodes to zero bytes.',
      param: 'media',
    });
    expect(pool.leasedCount).toBe(0);
  });
});

describe('multipart parts over HTTP', () => {
  const jpeg = tinyJpeg({ seed: 5 });
  let t: TestApp;
  let base: string;
  let key: string;
  beforeAll(async () => {
    t = await makeApp();
    base = await listen(t.app);
    key = (await t.account('multipart-input', 'growth')).key;
  });
  afterAll(() => t.close());

  const used = (r: HttpResult) => Number(r.headers['x-quota-used']);
  function post(parts: [string, string | Blob, string?][]): Promise<HttpResult> {
    const form = new FormData();
    for (const [name, value, filename] of parts) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, value, filename);
    }
    return http(base, 'POST', '/v1/detect', { key, body: form });
  }

  it('a file of exactly 4 MB is read; one byte more is 413 naming the multipart limit, param file', async () => {
    const exact = new Uint8Array(INLINE_MAX_BYTES);
    exact.set(jpeg);
    const ok = await post([['file', new Blob([exact]), 'exact.jpg'], ['checks', 'c2pa']]);
    expect(ok.status).toBe(200);
    expect(ok.body.media.bytes).toBe(INLINE_MAX_BYTES);
    const before = used(ok);
    const over = await post([['file', new Blob([new Uint8Array(INLINE_MAX_BYTES + 1)]), 'over.jpg']]);
    const error = expectError(over, 413, 'media_too_large', 'file');
    expect(error.message).toBe(tooLargeMessage(INLINE_MAX_BYTES, 'a multipart file'));
    expect(used(over)).toBe(before);
  });

  it.each(['url', 'media', 'upload'])('a source sent as a part named %s is refused with its name', async (name) => {
    const r = await post([['file', new Blob([jpeg]), 'a.jpg'], [name, 'x']]);
    const error = expectError(r, 400, 'invalid_request', name);
    expect(error.message).toBe(`A multipart request carries its file in the part named file; send ${name} as JSON instead.`);
  });

  it('other fields are ignored; checks fields are read', async () => {
    const r = await post([['note', 'hello'], ['file', new Blob([jpeg]), 'a.jpg'], ['checks', 'camera_reference'], ['comment', 'c2pa,bogus']]);
    expect(r.status).toBe(200);
    expect(r.body.checks_run).toEqual(['camera_reference']);
  });

  it('no file part', async () => {
    const error = expectError(await post([['checks', 'c2pa']]), 400, 'invalid_request', 'file');
    expect(error.message).toBe(`No file part. ${ONE_SOURCE}`);
  });
});
