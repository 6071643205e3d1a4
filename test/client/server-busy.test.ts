// The library's client on 503 server_busy (CONTRACT "Error body"): the daemon's memory budget for
// media stayed full and the reserved call was given back, so the client waits Retry-After and
// sends the request again (a few times), then throws ServerBusyError. Against the real daemon on
// 127.0.0.1 with a 1 MiB budget that the test itself holds.
import { describe, expect, it } from 'vitest';
import { ProvenanceClient, ServerBusyError } from '../../src/index.js';
import { tinyJpeg } from '../fixtures/make.js';
import { listen, makeApp } from '../daemon/helpers.js';

const MB = 1_048_576;
/** Over 64 KiB, so its multipart body takes room from the budget. */
const file = new Uint8Array(Buffer.concat([Buffer.from(tinyJpeg({ seed: 27 })), Buffer.alloc(200 * 1024, 3)]));

async function busyDaemon() {
  const t = await makeApp({ media: { memoryBytes: MB, waitMs: 100 } });
  const base = await listen(t.app);
  const { key } = await t.account('client-busy', 'growth');
  return { t, base, key, budget: t.app.services.mediaBudget };
}

describe('ProvenanceClient and 503 server_busy', () => {
  it('waits Retry-After and sends again: the detect succeeds once the budget frees, one call counted', async () => {
    const { t, base, key, budget } = await busyDaemon();
    try {
      const hold = await budget.acquire(MB);
      // The budget frees while the client waits out its first Retry-After (1 s).
      setTimeout(() => hold.release(), 400);
      const client = new ProvenanceClient({ apiKey: key, baseUrl: base });
      const started = Date.now();
      const result = await client.detect({ bytes: file, checks: ['c2pa'] });
      expect(result.media.bytes).toBe(file.length);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(result.quota?.used).toBe(1);

    } finally {
      await t.close();
    }
  });

  it('gives up after maxRetries waits with ServerBusyError (status, type, retryAfter); nothing counted', async () => {
    const { t, base, key, budget } = await busyDaemon();
    try {
      const hold = await budget.acquire(MB);
      const client = new ProvenanceClient({ apiKey: key, baseUrl: base, maxRetries: 1 });
      const started = Date.now();
      const err = await client.detect({ bytes: file, checks: ['c2pa'] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      const took = Date.now() - started;
      expect(err).toBeInstanceOf(ServerBusyError);
      expect(err).toMatchObject({ status: 503, type: 'server_busy', retryAfter: 1 });
      // One wait of Retry-After (1 s) between the two refusals, not three.
      expect(took).toBeGreaterThanOrEqual(1000);
      expect(took).toBeLessThan(2000);
      // The refused calls were given back: the next detect is the account's first.
      hold.release();
      expect((await client.detect({ bytes: file, checks: ['c2pa'] })).quota?.used).toBe(1);
    } finally {
      await t.close();
    }
  });
});
