// The OpenAPI document (/v1/openapi.json) is one clients can generate code from (issue 15):
// it passes `redocly lint` (recommended rules) and swagger-parser's validation; real responses
// of every operation (bodies and headers, success and every error type the daemon can be made
// to give) validate against the document's own schemas, so it cannot drift from what the daemon
// answers; and openapi-typescript generates a client that a small program type-checks against.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { ROOT } from '../helpers/corpus.js';
import { ERROR_TYPES } from '../../src/daemon/contract/api-types.js';
import { INLINE_MAX_BYTES } from '../../src/daemon/contract/limits.js';
import { b64, http, listen, makeApp, tempDir, type HttpResult, type TestApp } from './helpers.js';

let t: TestApp;
let base: string;
let doc: any;
const work = tempDir('prov-openapi-');
beforeAll(async () => {
  t = await makeApp({ testMode: true });
  base = await listen(t.app);
  doc = (await http(base, 'GET', '/v1/openapi.json')).body;
});
afterAll(async () => {
  await t.close();
  work.cleanup();
});

describe('the document', () => {
  it('passes swagger-parser validation', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });

  it('passes redocly lint (recommended rules) with no errors', () => {
    const file = join(work.dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], {
      encoding: 'utf8',
      // No telemetry, no update check: the test talks to nothing but itself.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
    });
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const errors = report.problems.filter((p: any) => p.severity === 'error');
    expect(errors.map((p: any) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it('every operation has an operationId, the bearer scheme is declared, servers are given', () => {
    const ops = Object.values(doc.paths).flatMap((p: any) => Object.values(p)) as any[];
    expect(ops.map((o) => o.operationId).sort()).toEqual(['createUpload', 'detect', 'health', 'listDetectors', 'ready']);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const o of ops) expect(o.security).toBeDefined();
    expect(doc.servers[0].url).toMatch(/^http:\/\/127\.0\.0\.1:8787$/);
    // Examples for each operation's success answer and every documented error type.
    for (const o of ops) {
      const ok = Object.entries(o.responses).find(([s]) => s.startsWith('2'))![1] as any;
      expect(ok.content['application/json'].example).toBeDefined();
    }
    expect(Object.keys(doc.paths['/v1/detect'].post.requestBody.content['application/json'].examples)).toEqual(['url', 'upload']);
  });

  it('declares Provenance-Test-Response as an optional header on each /v1 operation, with the values that route allows', () => {
    const param = (path: string, method: string) => doc.paths[path][method].parameters?.find((p: any) => p.in === 'header' && p.name === 'Provenance-Test-Response');
    const detect = param('/v1/detect', 'post');
    expect(detect).toMatchObject({ required: false, schema: { type: 'string' } });
    expect(detect.description).toMatch(/--test-mode/);
    const allows = (p: any, value: string) => new RegExp(p.schema.pattern).test(value);
    for (const value of ['quota_exceeded', 'rate_limited', 'internal_error', 'download_failed', 'delay=30000']) expect(allows(detect, value)).toBe(true);
    for (const [path, method] of [['/v1/uploads', 'post'], ['/v1/detectors', 'get']] as const) {
      const p = param(path, method);
      expect(p).toMatchObject({ required: false, schema: { type: 'string' } });
      expect(['internal_error', 'delay=10'].map((v) => allows(p, v))).toEqual([true, true]);
      expect(['quota_exceeded', 'rate_limited', 'download_failed'].map((v) => allows(p, v))).toEqual([false, false, false]);
    }
    // A failing disk really answers 500 on an upload: documented.
    expect(doc.paths['/v1/uploads'].post.responses['500']).toBeDefined();
  });
});

// ---- Real responses against the document's schemas ----

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat('uri', true);
ajv.addFormat('binary', true);

/** Headers the daemon sets that a client may rely on: each must be in the document where it appears. */
const API_HEADERS = /^(x-quota-|ratelimit-|retry-after$|request-id$|www-authenticate$)/;

function responseSpec(method: string, path: string, status: number): any {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

/** Checks one real response against its operation's documented response; returns problems. */
function conformance(method: string, path: string, r: HttpResult): string[] {
  const spec = responseSpec(method, path, r.status);
  if (!spec) return [`status ${r.status} is not documented for ${method} ${path}`];
  const problems: string[] = [];
  const schema = spec.content?.['application/json']?.schema;
  if (!schema) problems.push('no JSON schema for the body');
  else if (!ajv.validate(schema, r.body)) problems.push(`body: ${ajv.errorsText()}`);
  const documented = Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v as any]));
  for (const [name, h] of Object.entries(documented)) {
    const value = r.headers[name];
    if (value === undefined) {
      problems.push(`header ${name} is documented but missing`);
      continue;
    }
    const typed = h.schema.type === 'integer' ? Number(value) : value;
    if (!ajv.validate(h.schema, typed)) problems.push(`header ${name}=${value}: ${ajv.errorsText()}`);
  }
  for (const name of Object.keys(r.headers)) {
    if (API_HEADERS.test(name) && !documented[name]) problems.push(`header ${name} is sent but not documented`);
  }
  return problems;
}

describe('real responses validate against the document', () => {
  it('every operation, success and every error type', async () => {
    const key = (await t.account('openapi', 'starter')).key;
    const media = b64(tinyJpeg());
    const forced = (value: string) => ({ 'provenance-test-response': value });
    const upload = await http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg' } });
    // Upload storage bounds (issue 26), on daemons of their own: an account at its count of live
    // uploads (429), and a disk under the free-space floor (503; a floor no disk reaches).
    const limited = await makeApp({ uploadLimits: { perAccount: 1 } });
    const full = await makeApp({ uploadLimits: { storageFloorBytes: Number.MAX_SAFE_INTEGER } });
    const bounded: HttpResult[] = [];
    try {
      const [limitedBase, fullBase] = [await listen(limited.app), await listen(full.app)];
      const jpegUpload = async (at: string, k: string) => http(at, 'POST', '/v1/uploads', { key: k, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg' } });
      const limitedKey = (await limited.account('bounded')).key;
      await jpegUpload(limitedBase, limitedKey);
      bounded.push(await jpegUpload(limitedBase, limitedKey), await jpegUpload(fullBase, (await full.account('full')).key));
    } finally {
      await limited.close();
      await full.close();
    }
    // The media budget full (issue 26), on a daemon of its own: its whole budget held here, a
    // detect by upload waits no time and is refused, 503 server_busy.
    const crowded = await makeApp({ media: { memoryBytes: 1024 * 1024, waitMs: 0 } });
    const busy: HttpResult[] = [];
    try {
      const crowdedBase = await listen(crowded.app);
      const crowdedKey = (await crowded.account('busy')).key;
      const stored = await http(crowdedBase, 'POST', '/v1/uploads', { key: crowdedKey, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg' } });
      const hold = await crowded.app.services.mediaBudget.acquire(1024 * 1024);
      busy.push(await http(crowdedBase, 'POST', '/v1/detect', { key: crowdedKey, json: { upload: stored.body.id } }));
      hold.release();
    } finally {
      await crowded.close();
    }
    const cases: [string, string, Promise<HttpResult> | HttpResult][] = [
      ...bounded.map((r): [string, string, HttpResult] => ['POST', '/v1/uploads', r]),
      ...busy.map((r): [string, string, HttpResult] => ['POST', '/v1/detect', r]),
      ['GET', '/healthz', http(base, 'GET', '/healthz')],
      ['GET', '/readyz', http(base, 'GET', '/readyz')],
      ['GET', '/v1/detectors', http(base, 'GET', '/v1/detectors')],
      ['GET', '/v1/detectors', http(base, 'GET', '/v1/detectors', { headers: forced('nonsense') })],
      ['GET', '/v1/detectors', http(base, 'GET', '/v1/detectors', { headers: forced('internal_error') })],
      ['POST', '/v1/uploads', upload],
      ['POST', '/v1/uploads', http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(0), headers: { 'content-type': 'image/jpeg' } })],
      ['POST', '/v1/uploads', http(base, 'POST', '/v1/uploads', { body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg' } })],
      ['POST', '/v1/uploads', http(base, 'POST', '/v1/uploads', { key, json: { media } })],
      ['POST', '/v1/uploads', http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(25 * 1024 * 1024 + 1), headers: { 'content-type': 'application/octet-stream' } })],
      ['POST', '/v1/uploads', http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg', ...forced('internal_error') } })],
      ['POST', '/v1/uploads', http(base, 'POST', '/v1/uploads', { key, body: new Uint8Array(tinyJpeg()), headers: { 'content-type': 'image/jpeg', ...forced('rate_limited') } })],
      ['GET', '/v1/detectors', http(base, 'GET', '/v1/detectors', { headers: forced('quota_exceeded') })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { upload: upload.body.id } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: {} })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media }, headers: forced('teapot') })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { json: { media } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key: `prv_${'x'.repeat(38)}`, json: { media } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { upload: 'upl_nothing' } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media: b64(new Uint8Array(INLINE_MAX_BYTES + 1)) } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, body: 'hello', headers: { 'content-type': 'text/plain' } })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media }, headers: forced('download_failed') })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media }, headers: forced('quota_exceeded') })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media }, headers: forced('rate_limited') })],
      ['POST', '/v1/detect', http(base, 'POST', '/v1/detect', { key, json: { media }, headers: forced('internal_error') })],
    ];
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const [method, path, pending] of cases) {
      const r = await pending;
      if (r.body?.error) seen.add(r.body.error.type);
      for (const p of conformance(method, path, r)) problems.push(`${method} ${path} ${r.status} ${r.body?.error?.type ?? ''}: ${p}`);
    }
    expect(problems).toEqual([]);
    // Every error type but service_unavailable (only while the daemon shuts down) was answered.
    expect([...seen].sort()).toEqual(ERROR_TYPES.filter((e) => e !== 'service_unavailable').sort());
  }, 60_000);

  it('a response that breaks the schema is caught (the check is not vacuous)', () => {
    const fake: HttpResult = { status: 200, headers: { 'request-id': 'nope' }, body: { status: 'fine' }, text: '' };
    expect(conformance('GET', '/healthz', fake)).toEqual([expect.stringMatching(/^body: /), expect.stringMatching(/^header request-id=nope/)]);
  });
});

describe('a typed client generated from the document', () => {
  it('openapi-typescript output type-checks a small program, and catches a wrong one', async () => {
    const dir = join(work.dir, 'client');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(structuredClone(doc))));
    const program = (body: string) => `import type { paths } from './api.js';
type DetectBody = paths['/v1/detect']['post']['requestBody']['content']['application/json'];
type Detection = paths['/v1/detect']['post']['responses'][200]['content']['application/json'];
type ApiError = paths['/v1/detect']['post']['responses'][429]['content']['application/json'];
export async function detect(base: string, key: string, body: DetectBody): Promise<Detection> {
  const response = await fetch(base + '/v1/detect', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) {
    const { error } = (await response.json()) as ApiError;
    throw new Error(error.type + ': ' + error.message);
  }
  return (await response.json()) as Detection;
}
${body}
`;
    writeFileSync(
      join(dir, 'good.ts'),
      program(`export async function main(): Promise<string[]> {
  const result = await detect('http://127.0.0.1:8787', 'prv_x', { upload: 'upl_1', checks: ['c2pa'] });
  const found: number = result.matches.filter((m) => m.result === 'found').length;
  return [...result.checks_run, String(found), result.media.sha256];
}`),
    );
    writeFileSync(
      join(dir, 'bad.ts'),
      program(`export async function main(): Promise<number> {
  const result = await detect('http://127.0.0.1:8787', 'prv_x', { checks: ['no_such_detector'] });
  return result.media.sha256;
}`),
    );
    const tsc = (file: string) =>
      spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types'), join(dir, file)],
        { encoding: 'utf8', cwd: dir, timeout: 120_000 },
      );
    const good = tsc('good.ts');
    expect(good.stdout + good.stderr).toBe('');
    expect(good.status).toBe(0);
    const bad = tsc('bad.ts');
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toMatch(/"no_such_detector"/);
    expect(bad.stdout).toMatch(/Type 'string' is not assignable to type 'number'/);
  }, 120_000);
});
