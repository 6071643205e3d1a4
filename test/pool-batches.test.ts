// The pool's batching, per-task time limit and crash handling, driven with real worker threads
// running scripted stand-ins for the detect worker (test/helpers/workers/).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DetectPool, PoolTaskError, respawnDelayMs } from '../src/engine/pool.js';
import { decodeGate } from '../src/media/pixels.js';

const worker = (name: string) => new URL(`./helpers/workers/${name}.mjs`, import.meta.url);
const pools: DetectPool[] = [];
function pool(options: { size?: number; batch?: number; taskTimeoutMs?: number; startTimeoutMs?: number; script?: string }): DetectPool {
  const p = new DetectPool({ size: options.size ?? 1, batch: options.batch, taskTimeoutMs: options.taskTimeoutMs, startTimeoutMs: options.startTimeoutMs, workerUrl: worker(options.script ?? 'scripted') });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/**
 * Settles every task; a rejection becomes its PoolTaskError's info. Tasks are paths (which a
 * new worker can read again) unless `bytes`, whose memory moves to the worker it is sent to.
 */
async function settle(p: DetectPool, sources: string[], bytes = false) {
  return Promise.all(
    sources.map((source) =>
      p.run(bytes ? { source, bytes: new Uint8Array(8) } : { source, path: `/scripted/${source}` }).then(
        (checked) => ({ ok: (checked.result as { id: string }).id }),
        (err: PoolTaskError) => ({ error: err.info }),
      ),
    ),
  );
}

describe('DetectPool batches', () => {
  it('answers every task of a batch, in any batch size', async () => {
    for (const batch of [1, 3, 8]) {
      const sources = Array.from({ length: 20 }, (_, i) => `ok:${i}`);
      expect(await settle(pool({ size: 2, batch }), sources)).toEqual(sources.map((s) => ({ ok: `chk_${s}` })));
    }
  });

  it('sends fast files several at a time and slow files one at a time', async () => {
    const sizes = async (sources: string[]) => {
      const p = pool({ size: 2, batch: 8 });
      const done = await Promise.all(sources.map((source) => p.run({ source, path: `/scripted/${source}` })));
      return done.map((c) => (c.result as unknown as { batch: number }).batch);
    };
    const fast = await sizes(Array.from({ length: 200 }, (_, i) => `ok:${i}`));
    expect(Math.max(...fast)).toBe(8); // under a millisecond each: full batches
    const slow = await sizes(Array.from({ length: 12 }, () => 'slow:60'));
    // 60 ms each is past the 20 ms a batch should take: once the pool has seen one, one at a time.
    expect(slow.slice(4).every((n) => n === 1)).toBe(true);
  });

  it('times each task from its own start: 300 ms tasks queued behind each other pass a 450 ms limit', async () => {
    // One worker holds two batches at once, so the second file of each pair waits 300 ms for the
    // first: timed from when it was sent, it would pass the limit (and this test fails then).
    // The 150 ms of slack on either side absorb a busy machine's scheduling.
    for (const batch of [1, 8]) {
      const results = await settle(pool({ batch, taskTimeoutMs: 450 }), Array.from({ length: 4 }, () => 'slow:300'));
      expect(results.every((r) => 'ok' in r)).toBe(true);
    }
  });

  it('a task over the limit fails as a timeout; its batch-mates are answered by a new worker', async () => {
    const results = await settle(pool({ batch: 4, taskTimeoutMs: 400 }), ['ok:a', 'hang', 'ok:b', 'ok:c']);
    expect(results[0]).toEqual({ ok: 'chk_ok:a' });
    expect(results[1]).toMatchObject({ error: { type: 'timeout' } });
    expect(results[2]).toEqual({ ok: 'chk_ok:b' });
    expect(results[3]).toEqual({ ok: 'chk_ok:c' });
  });
});

describe('DetectPool when a worker dies', () => {
  it('blames only the task it was running: that one fails after two crashes, the rest are answered', async () => {
    const results = await settle(pool({ batch: 4 }), ['ok:a', 'crash', 'ok:b', 'ok:c', 'ok:d']);
    expect(results[1]).toMatchObject({ error: { type: 'internal_error', message: 'crash: the worker exited with code 3.' } });
    for (const i of [0, 2, 3, 4]) expect(results[i]).toHaveProperty('ok');
  });

  it('cannot retry a file whose bytes were moved to the worker that died: it fails, saying so', async () => {
    const results = await settle(pool({ batch: 4 }), ['ok:a', 'crash', 'ok:b'], true);
    expect(results[0]).toEqual({ ok: 'chk_ok:a' }); // answered before the crash
    expect(results[1]).toMatchObject({ error: { type: 'internal_error', message: 'crash: not checked: the worker exited with code 3, and the bytes sent to it went with it.' } });
    expect(results[2]).toMatchObject({ error: { type: 'internal_error', message: expect.stringMatching(/^ok:b: not checked: .*went with it\.$/) } });
  });

  it("gives back what a worker it stopped held in the process's bound on decoded pixels", async () => {
    // Stopped mid-decode (its time limit), a worker never gives its hold back itself: without the
    // pool's reclaim the gate would be 8 MiB smaller for the rest of the process.
    const p = pool({ taskTimeoutMs: 300 });
    const [late] = await settle(p, ['hold:8192']);
    expect(late).toEqual({ error: expect.objectContaining({ type: 'timeout' }) });
    const deadline = Date.now() + 3000;
    while (decodeGate().inUse !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(decodeGate().inUse).toBe(0);
    // And when the pool closes with a worker still holding.
    const q = pool({ taskTimeoutMs: 60_000 });
    void settle(q, ['hold:4096']);
    while (decodeGate().inUse !== 4096 * 1024 && Date.now() < deadline + 3000) await new Promise((r) => setTimeout(r, 20));
    expect(decodeGate().inUse).toBe(4096 * 1024);
    await q.close();
    expect(decodeGate().inUse).toBe(0);
  });

  it('fails the tasks of a worker that cannot start instead of starting it forever', async () => {
    const results = await settle(pool({ size: 2, script: 'broken' }), ['ok:a', 'ok:b', 'ok:c']);
    for (const r of results) expect(r).toMatchObject({ error: { type: 'internal_error', message: expect.stringMatching(/the worker failed: this worker cannot start/) } });
  });

  it('replaces a worker that dies as it loads after a growing wait, not in a tight loop', async () => {
    expect([0, 1, 2, 3, 9, 10, 1000].map(respawnDelayMs)).toEqual([0, 100, 200, 400, 25_600, 30_000, 30_000]);
    const dir = mkdtempSync(join(tmpdir(), 'prov-pool-starts-'));
    const starts = join(dir, 'starts');
    process.env.PROV_TEST_WORKER_STARTS = starts;
    try {
      const p = pool({ script: 'broken-counting' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await p.close();
      // Started at once, again at once, then after 100, 200 and 400 ms (the next after 800):
      // five starts in 1.5 s, fewer on a slow machine. Replaced at once each time, as before,
      // it was started 25 times in 1.5 s on this machine.
      const count = readFileSync(starts, 'utf8').length;
      expect(count).toBeGreaterThanOrEqual(3);
      expect(count).toBeLessThanOrEqual(7);
      // Closed: no replacement waiting starts after.
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(readFileSync(starts, 'utf8').length).toBe(count);
    } finally {
      delete process.env.PROV_TEST_WORKER_STARTS;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces a worker that takes tasks but starts none, and fails them after two tries', async () => {
    const started = Date.now();
    const results = await settle(pool({ script: 'deaf', taskTimeoutMs: 150, startTimeoutMs: 150 }), ['ok:a', 'ok:b']);
    for (const r of results) expect(r).toMatchObject({ error: { type: 'internal_error', message: expect.stringMatching(/the worker stopped answering/) } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
