// engine/read-budget.ts ReadBudget: S3 objects held in this thread at once, bounded by count and by bytes,
// taken in arrival order; an object larger than the whole budget goes alone.
import { describe, expect, it } from 'vitest';
import { ReadBudget, type ReadHold } from '../src/engine/read-budget.js';

const MB = 1024 * 1024;

const tick = () => new Promise((r) => setImmediate(r));

describe('ReadBudget', () => {
  it('holds at most `count` at once, and lets the next in once one is released', async () => {
    const budget = new ReadBudget(2, 1000);
    const a = await budget.take(10);
    const b = await budget.take(10);
    let third: (() => void) | undefined;
    void budget.take(10).then((r) => (third = r));
    await tick();
    expect(third).toBeUndefined();
    a();
    await tick();
    expect(third).toBeTypeOf('function');
    b();
    third!();
  });

  it('holds at most `bytes` by size, and lets an object larger than the budget go alone', async () => {
    const budget = new ReadBudget(10, 100);
    const a = await budget.take(60);
    const order: string[] = [];
    const big = budget.take(500).then((r) => (order.push('big'), r));
    const small = budget.take(1).then((r) => (order.push('small'), r));
    await tick();
    // The small one waits behind the big one (first come, first served), which waits for `a`.
    expect(order).toEqual([]);
    a();
    const releaseBig = await big;
    await tick();
    expect(order).toEqual(['big']);
    releaseBig();
    (await small)();
    expect(order).toEqual(['big', 'small']);
  });

  it('a release given twice counts once', async () => {
    const budget = new ReadBudget(1, 100);
    const a = await budget.take(1);
    a();
    a();
    const b = await budget.take(1);
    let c: (() => void) | undefined;
    void budget.take(1).then((r) => (c = r));
    await tick();
    expect(c).toBeUndefined();
    b();
  });
});

// Issue 40 item 8: a read's hold grows with what it actually holds (a HEAD without a size, or
// refused, counted 0), waiting for room ahead of new reads; reads that all wait to grow never
// wait on each other for ever (the oldest goes on past the budget, as a large object alone).
describe('ReadBudget: holds grown by what is read', () => {
  it('a hold taken at 0 bytes grows to what its read holds, and counts it until released', async () => {
    const budget = new ReadBudget(4, 10 * MB);
    const a = await budget.take(0);
    await a.room(3 * MB);
    expect(budget.inUse).toEqual({ objects: 1, bytes: 3 * MB });
    await a.room(2 * MB); // less than held: nothing changes
    expect(budget.inUse.bytes).toBe(3 * MB);
    a();
    expect(budget.inUse).toEqual({ objects: 0, bytes: 0 });
  });

  it('a read that outgrows the room left waits for another to end, ahead of new reads', async () => {
    const budget = new ReadBudget(4, 10 * MB);
    const a = await budget.take(0);
    const b = await budget.take(0);
    await a.room(8 * MB);
    let grown = false;
    const growing = b.room(4 * MB).then(() => (grown = true));
    let fresh: ReadHold | undefined;
    void budget.take(0).then((h) => (fresh = h));
    await tick();
    expect(grown).toBe(false);
    expect(fresh).toBeUndefined(); // a new read waits behind the one growing
    a();
    await growing;
    expect(budget.inUse.bytes).toBe(4 * MB);
    await tick();
    expect(fresh).toBeTypeOf('function');
    b();
    fresh!();
  });

  it('reads that each outgrow the budget go one after another, never all waiting on each other', async () => {
    const budget = new ReadBudget(4, 1 * MB);
    const holds = await Promise.all([budget.take(0), budget.take(0), budget.take(0)]);
    const order: number[] = [];
    // Each read wants 3 MB, three times the budget; each releases once it has all of it.
    let peak = 0;
    const reads = holds.map(async (hold, i) => {
      for (let have = 1; have <= 3; have++) {
        await hold.room(have * MB);
        peak = Math.max(peak, budget.inUse.bytes);
      }
      order.push(i);
      hold();
    });
    await Promise.race([Promise.all(reads), new Promise((_, no) => setTimeout(() => no(new Error('deadlock')), 5000))]);
    expect(order).toHaveLength(3);
    // One went on alone at a time: its 3 MB, with at most the budget's 1 MB held by another.
    expect(peak).toBeLessThanOrEqual(4 * MB);
    expect(budget.inUse).toEqual({ objects: 0, bytes: 0 });
  });

  it('a read waiting for room gives up when its signal (the read deadline) aborts', async () => {
    const budget = new ReadBudget(4, 1 * MB);
    const a = await budget.take(0);
    const b = await budget.take(0);
    await a.room(1 * MB);
    const deadline = new AbortController();
    const waiting = b.room(1 * MB, deadline.signal);
    deadline.abort(new Error('past the deadline'));
    await expect(waiting).rejects.toThrow('past the deadline');
    b();
    a();
    expect(budget.inUse).toEqual({ objects: 0, bytes: 0 });
  });
});
