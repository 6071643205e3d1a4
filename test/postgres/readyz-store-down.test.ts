// GET /readyz with the PostgreSQL store unreachable (issue 27): 503 `store: down`, naming no
// address, port or errno, and 200 again once the database is back, without a restart.
//
// The daemon reaches the run's PostgreSQL through a TCP relay of this test's own on 127.0.0.1
// (test/helpers/tcp-relay.ts): closing it makes the database unreachable for this daemon alone
// (every connection cut, new ones refused), without touching the shared server.
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { PG_TIMEOUTS_MS } from '../../src/daemon/store/pg-store.js';
import { createTestSchema } from '../helpers/postgres.js';
import { relayTo, type Relay } from '../helpers/tcp-relay.js';
import { makeApp, workersUp, type TestApp } from '../daemon/helpers.js';

let relay: Relay;
let schema: { url: string; drop(): Promise<void> };
let t: TestApp;

beforeAll(async () => {
  schema = await createTestSchema(inject('pgDatabaseUrl'));
  const relayed = await relayTo(schema.url);
  relay = relayed.relay;
  t = await makeApp({ storeUrl: relayed.url });
  // The suite's daemons run the worker pool: ready only once it has loaded.
  await workersUp(t);
});

afterAll(async () => {
  await relay?.open().catch(() => {});
  await t?.close();
  await relay?.close();
  await schema?.drop();
});

const readyz = async () => {
  const r = await t.app.inject({ method: 'GET', url: '/readyz' });
  return { status: r.statusCode, body: r.json(), text: r.body };
};

describe('/readyz with PostgreSQL unreachable', () => {
  it('503 store:down naming nothing of the database, then 200 again once it is back', async () => {
    expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready', store: 'up', workers: 'up', draining: false } });
    await relay.close();
    const started = performance.now();
    const down = await readyz();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'not_ready', store: 'down', workers: 'up', draining: false });
    expect(down.text).not.toMatch(/postgres|ECONNREFUSED|ECONNRESET|127\.0\.0\.1|Connection terminated/i);
    expect(down.text).not.toContain(String(relay.port));
    // Bounded by the store's own timeouts (a connection, then the probe), with slack for a busy machine.
    expect(performance.now() - started).toBeLessThan(PG_TIMEOUTS_MS.connect + PG_TIMEOUTS_MS.health + 4_000);
    await relay.open();
    // The pool reconnects by itself; bounded at 50 probes.
    let back = await readyz();
    for (let i = 0; i < 50 && back.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await readyz();
    }
    expect(back).toMatchObject({ status: 200, body: { status: 'ready', store: 'up' } });
  });
});
