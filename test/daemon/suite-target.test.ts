// Which daemon the contract suite runs on (issue 34): from src/ with detection on the main thread
// in the `file` project; the built bundles of dist/, with the worker pool on as users run it, in
// the `dist` and `postgres` projects (PROVENANCE_SUITE_DIST, vitest.config.ts). A project that
// silently fell back to src/ would test a different program from the one that ships.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp as srcBuildApp } from '../../src/daemon/http/app.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, buildApp, http, listen, makeApp, SUITE_DIST, type TestApp } from './helpers.js';

describe(`the daemon under test (${SUITE_DIST ? 'dist/, workers on' : 'src/, main thread'})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeApp();
  });
  afterAll(() => t?.close());

  it('is built by the bundle the project names', () => {
    expect(buildApp === srcBuildApp).toBe(!SUITE_DIST);
  });

  it('checks files on the worker pool when it runs on dist/, and on the main thread from src/', async () => {
    const pool = t.app.services.pool;
    if (SUITE_DIST) expect(pool.size).toBeGreaterThan(0);
    else expect(pool.size).toBe(0);
    const { key } = await t.account('target');
    const base = await listen(t.app);
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg({ width: 640, height: 480 })) } });
    expect(r.status).toBe(200);
    expect(r.body.media.type).toBe('image/jpeg');
  });
});
