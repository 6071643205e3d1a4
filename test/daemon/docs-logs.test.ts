// GET /v1/openapi.json and /docs (public, generated from the route schemas) and the logs.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/daemon/http/app.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, bearer, expectError, makeApp, type TestApp } from './helpers.js';

let t: TestApp;
const logStream = new PassThrough();
let logs = '';
logStream.on('data', (d) => (logs += d));

beforeAll(async () => {
  t = await makeApp({ logger: loggerOptions(logStream) });
});
afterAll(() => t.close());

describe('API documentation', () => {
  it('/v1/openapi.json is public and describes the /v1 routes, not the admin ones', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths).sort()).toEqual(['/healthz', '/readyz', '/v1/detect', '/v1/detectors', '/v1/uploads']);
    const detect = doc.paths['/v1/detect'].post;
    expect(Object.keys(detect.requestBody.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(Object.keys(detect.responses).sort()).toEqual(['200', '400', '401', '404', '413', '415', '422', '429', '500', '503']);
    expect(detect.responses['200'].headers).toHaveProperty('X-Quota-Used');
    expect(detect.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('/docs serves the UI from local assets', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/html/);
    expect(r.body).not.toMatch(/https?:\/\/(?!localhost)[a-z0-9.-]+\.(com|net|org|io)\/[^"']*\.(js|css)/i);
    const asset = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(asset.statusCode).toBe(200);
    expectError(await t.app.inject({ method: 'GET', url: '/docs/static/nope.js' }), 404, 'not_found');
  });
});

describe('logs', () => {
  it('record requests but never a key, even one sent where a header is logged', async () => {
    const { key } = await t.account('logged');
    await t.app.inject({ method: 'POST', url: '/v1/detect', headers: bearer(key), payload: { media: b64(tinyJpeg()) } });
    await t.app.inject({ method: 'POST', url: '/v1/detect', headers: bearer(`${key}x`), payload: {} });
    await t.app.inject({ method: 'GET', url: `/v1/nope?key=${key}` });
    t.app.log.info({ req: { headers: { authorization: `Bearer ${key}` } } }, 'redaction probe');
    await new Promise((r) => setTimeout(r, 50));
    // One line per request (request-log.ts), the key in a query string not in it.
    expect(logs).toMatch(/"route":"\/v1\/detect","method":"POST","status":200/);
    expect(logs).toMatch(/redaction probe/);
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(4, 24));
  });
});
