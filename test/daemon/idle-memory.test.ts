// Memory given back once the daemon goes quiet (issue 26): the idle collection of dead large
// buffers (src/engine/idle-collect.ts), and the inline buffer pools dropping what they kept
// (src/daemon/media/buffer-pool.ts).
import { describe, expect, it } from 'vitest';
import { IdleCollector } from '../../src/engine/idle-collect.js';
import { BufferPool } from '../../src/daemon/media/buffer-pool.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('IdleCollector', () => {
  it('after enough dead bytes and a quiet spell, one full collection frees them', async () => {
    const collector = new IdleCollector(1000, 50);
    let big: Uint8Array | undefined = new Uint8Array(8 * 1024 * 1024);
    const ref = new WeakRef(big);
    big = undefined;
    collector.note(600);
    await sleep(80);
    expect(collector.collections).toBe(0); // under the threshold: left to V8
    collector.note(600);
    await sleep(20);
    collector.note(10); // a new note moves the collection out
    await sleep(40);
    expect(collector.collections).toBe(0);
    await sleep(60);
    expect(collector.collections).toBe(1);
    expect(ref.deref()).toBeUndefined();
  });
});

describe('BufferPool: dropping kept buffers when quiet', () => {
  it('drops its idle buffers once nothing was leased for the quiet time, and says how many bytes', async () => {
    const dropped: number[] = [];
    const pool = new BufferPool(1000, 4, false, { afterMs: 40, onDrop: (n) => dropped.push(n) });
    const a = pool.take();
    const b = pool.take();
    a.release();
    await sleep(60);
    expect(pool.idleCount).toBe(1); // b still leased: nothing dropped
    b.release();
    await sleep(20);
    const c = pool.take(); // a request within the quiet time keeps the pool
    expect(pool.idleCount).toBe(1);
    c.release();
    await sleep(60);
    expect(pool.idleCount).toBe(0);
    expect(dropped).toEqual([2000]);
    expect(pool.take().buffer.length).toBe(1000);
  });

  it('without the option it keeps its buffers', async () => {
    const pool = new BufferPool(1000, 4);
    pool.take().release();
    await sleep(30);
    expect(pool.idleCount).toBe(1);
  });
});
