// GET /readyz (issue 27), in-process: 200 while the store answers, a detection worker is up and
// no stop has begun; 503 naming the check that failed otherwise. Runs on both stores (a contract
// file in vitest.config.ts); the store going down is test/postgres/readyz-store-down.test.ts, and
// the drain on a real process is drain.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/corpus.js';
import { makeApp, workersUp, type TestApp } from './helpers.js';

const built = existsSync(join(ROOT, 'dist', 'detect-worker.js'));
// A worker whose code throws as it loads (test/helpers/workers/broken.mjs): the pool replaces it
// again and again, and not one ever comes up.
const BROKEN_WORKER = pathToFileURL(join(ROOT, 'test', 'helpers', 'workers', 'broken.mjs'));

let apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.map((t) => t.close()));
  apps = [];
});
async function app(options: Parameters<typeof makeApp>[0] = {}): Promise<TestApp> {
  const t = await makeApp(options);
  apps.push(t);
  return t;
}

const readyz = async (t: TestApp) => {
  const r = await t.app.inject({ method: 'GET', url: '/readyz' });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
};

describe('GET /readyz', () => {
  it('is 200 and public while the store answers, detection can run and no stop has begun', async () => {
    const t = await app();
    await workersUp(t);
    const r = await readyz(t);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', store: 'up', workers: 'up', draining: false });
    expect(r.headers['request-id']).toMatch(/^req_/);
    expect(r.headers.connection).not.toBe('close');
  });

  it('is 503 draining:true from the moment a stop begins, with Connection: close; /healthz stays 200', async () => {
    const t = await app();
    await workersUp(t);
    t.app.services.drain.begin();
    const r = await readyz(t);
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: 'not_ready', store: 'up', workers: 'up', draining: true });
    expect(r.headers.connection).toBe('close');
    // Liveness is not readiness: a daemon that is draining is alive and must not be restarted.
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.headers.connection).toBe('close');
  });

  it('is 503 workers:down while no detection worker has started (one that fails as it loads)', async () => {
    const t = await app({ workers: 1, workerUrl: BROKEN_WORKER });
    // Many probes over half a second: the pool keeps replacing the worker, and a worker that is
    // only starting must not count as up in between.
    for (let i = 0; i < 10; i++) {
      const r = await readyz(t);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'not_ready', store: 'up', workers: 'down', draining: false });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it.skipIf(!built)('turns 200 once the built workers have loaded, and 503 workers:down once the pool is closed', async () => {
    const t = await app({ workers: 2 });
    let r = await readyz(t);
    for (let i = 0; i < 200 && r.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      r = await readyz(t);
    }
    expect(r).toMatchObject({ status: 200, body: { status: 'ready', workers: 'up' } });
    await t.app.services.pool.close();
    expect(await readyz(t)).toMatchObject({ status: 503, body: { status: 'not_ready', store: 'up', workers: 'down', draining: false } });
  });

  it('is in the OpenAPI document beside /healthz, public, with both answers described', async () => {
    const t = await app();
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const op = doc.paths['/readyz'].get;
    expect(op.operationId).toBe('ready');
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '503']);
    expect(op.responses['503'].content['application/json'].schema.properties.status.enum).toEqual(['not_ready']);
  });
});
