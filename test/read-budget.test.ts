// engine/read-budget.ts ReadBudget: S3 objects held in this thread at once, bounded by count and by bytes,
// taken in arrival order; an object larger than the whole budget goes alone.
import { describe, expect, it } from 'vitest';
import { ReadBudget } from '../src/engine/read-budget.js';

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
