// The media budget on its own (src/daemon/media/media-budget.ts): what it grants, in which
// order, how a wait ends (503 server_busy, or the client gone), and that every way out gives the
// bytes back exactly once. The daemon's use of it is test/daemon/media-budget.test.ts.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/daemon/contract/errors.js';
import { MediaBudget, parseMediaMemory, parseMediaWait } from '../../src/daemon/media/media-budget.js';

const settled = async <T>(p: Promise<T>) => {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  // Two turns of the microtask queue are enough for a promise that is already settled.
  await Promise.resolve();
  await Promise.resolve();
  return state;
};

describe('MediaBudget', () => {
  it('grants at once while the bytes fit, and counts them', async () => {
    const budget = new MediaBudget(100, 1000);
    const a = await budget.acquire(60);
    const b = await budget.acquire(40);
    expect(budget.inUse).toBe(100);
    expect([a.bytes, b.bytes]).toEqual([60, 40]);
    a.release();
    b.release();
    expect(budget.inUse).toBe(0);
  });

  it('a request that holds bytes and needs more (its pixels) waits ahead of new arrivals, behind earlier such ones', async () => {
    const budget = new MediaBudget(100, 1000);
    const body = await budget.acquire(30); // a request's file, in hand
    const other = await budget.acquire(60); // another request, running
    const granted: string[] = [];
    const newcomer = budget.acquire(20).then(() => granted.push('newcomer')); // holds nothing yet: queues
    expect(await settled(newcomer)).toBe('pending');
    // 10 free: the first holder's 40 more must wait, but ahead of the newcomer.
    const more = budget.acquire(40, undefined, body).then(() => granted.push('more'));
    const later = budget.acquire(5, undefined, null).then(() => granted.push('later')); // another (holding nothing), after it
    expect(budget.waiting).toBe(3);
    expect(await settled(more)).toBe('pending');
    other.release(); // 70 free: more (40), then later (5), then the newcomer (20)
    await Promise.all([more, later, newcomer]);
    expect(granted).toEqual(['more', 'later', 'newcomer']);
    expect(budget.inUse).toBe(95);
  });

  it('a holder that needs room while new arrivals queue, and room is free, is granted at once', async () => {
    const budget = new MediaBudget(100, 1000);
    const body = await budget.acquire(30);
    const big = await budget.acquire(50);
    const queued = budget.acquire(60);
    expect(await settled(queued)).toBe('pending');
    expect(await settled(budget.acquire(20, undefined, body))).toBe('resolved');
    big.release();
  });

  it("a holder's extra is capped at the budget beside what it holds, so that alone it fits", async () => {
    const budget = new MediaBudget(100, 1000);
    const body = await budget.acquire(30);
    const more = await budget.acquire(1000, undefined, body);
    expect(more.bytes).toBe(70);
    expect(budget.inUse).toBe(100);
  });

  it('holders that each wait for room the others hold: the first runs past the capacity, then the next', async () => {
    const budget = new MediaBudget(100, 1000);
    const a = await budget.acquire(30);
    const b = await budget.acquire(30);
    const order: string[] = [];
    const moreA = budget.acquire(70, undefined, a).then((h) => (order.push('a'), h)); // 40 free: waits on b
    expect(await settled(moreA)).toBe('pending');
    const moreB = budget.acquire(70, undefined, b).then((h) => (order.push('b'), h)); // now each waits on the other
    const heldA = await moreA;
    expect(budget.inUse).toBe(130); // past the capacity by b's 30, which b holds while it waits
    expect(await settled(moreB)).toBe('pending');
    heldA.release();
    a.release();
    const heldB = await moreB;
    expect(order).toEqual(['a', 'b']);
    expect(budget.inUse).toBe(100);
    heldB.release();
    b.release();
    expect(budget.inUse).toBe(0);
  });

  it('a holder waiting on a request that will finish (holding, not waiting) is not run past the capacity', async () => {
    const budget = new MediaBudget(100, 1000);
    const running = await budget.acquire(60);
    const body = await budget.acquire(30);
    const more = budget.acquire(50, undefined, body);
    expect(await settled(more)).toBe('pending');
    running.release();
    expect((await more).bytes).toBe(50);
    expect(budget.inUse).toBe(80);
  });

  it('a request larger than the whole budget takes all of it (runs alone) rather than never', async () => {
    const budget = new MediaBudget(100, 1000);
    const big = await budget.acquire(1000);
    expect(big.bytes).toBe(100);
    const next = budget.acquire(1);
    expect(await settled(next)).toBe('pending');
    big.release();
    expect((await next).bytes).toBe(1);
  });

  it('waiters are served in arrival order: a small one does not overtake a large one at the head', async () => {
    const budget = new MediaBudget(100, 5000);
    const first = await budget.acquire(70);
    const order: string[] = [];
    const large = budget.acquire(80).then((h) => (order.push('large'), h));
    // 30 bytes are free, enough for this one, but the large request came first.
    const small = budget.acquire(20).then((h) => (order.push('small'), h));
    expect(await settled(small)).toBe('pending');
    first.release();
    const l = await large;
    const s = await small;
    expect(order).toEqual(['large', 'small']);
    expect(budget.inUse).toBe(100);
    l.release();
    s.release();
    expect(budget.inUse).toBe(0);
  });

  it('a wait past the bound is 503 server_busy with Retry-After, and takes nothing', async () => {
    const budget = new MediaBudget(100, 50);
    const held = await budget.acquire(100);
    const started = Date.now();
    const err = await budget.acquire(10).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ type: 'server_busy', statusCode: 503, retryAfter: 1 });
    expect(budget.waiting).toBe(0);
    held.release();
    expect(budget.inUse).toBe(0);
  });

  it('a timed-out head lets the smaller waiters behind it through', async () => {
    const short = new MediaBudget(100, 40);
    // 50 held; the head (80) does not fit and times out; the one behind it (30) then fits.
    const h2 = await short.acquire(50);
    const head = short.acquire(80).catch((e: unknown) => e);
    const behind = short.acquire(30);
    expect(await settled(behind)).toBe('pending');
    expect(await head).toMatchObject({ type: 'server_busy' });
    expect((await behind).bytes).toBe(30);
    expect(short.inUse).toBe(80);
    h2.release();
  });

  it('an aborted wait leaves the queue with the abort reason and takes nothing', async () => {
    const budget = new MediaBudget(100, 5000);
    const held = await budget.acquire(100);
    const gone = new AbortController();
    const waiting = budget.acquire(10, gone.signal).catch((e: unknown) => e);
    expect(budget.waiting).toBe(1);
    gone.abort(new Error('client gone'));
    expect(await waiting).toMatchObject({ message: 'client gone' });
    expect(budget.waiting).toBe(0);
    held.release();
    expect(budget.inUse).toBe(0);
    // Already aborted: refused without queueing.
    await expect(budget.acquire(10, gone.signal)).rejects.toThrow('client gone');
    expect(budget.inUse).toBe(0);
  });

  it('release and shrink give bytes back once; the count never goes below zero or grows by shrinking', async () => {
    const budget = new MediaBudget(100, 5000);
    const hold = await budget.acquire(60);
    hold.shrink(80); // never grows
    expect(budget.inUse).toBe(60);
    hold.shrink(25);
    expect([hold.bytes, budget.inUse]).toEqual([25, 25]);
    hold.release();
    hold.release();
    hold.shrink(0);
    expect([hold.bytes, budget.inUse]).toEqual([0, 0]);
  });

  it('shrinking a hold lets waiters in at once', async () => {
    const budget = new MediaBudget(100, 5000);
    const hold = await budget.acquire(100);
    const next = budget.acquire(40);
    hold.shrink(60);
    expect((await next).bytes).toBe(40);
  });

  it('refuses a nonsense size or wait', () => {
    expect(() => new MediaBudget(0, 10)).toThrow(RangeError);
    expect(() => new MediaBudget(100, -1)).toThrow(RangeError);
  });
});

describe('--media-memory and --media-wait', () => {
  it('read sizes in bytes or binary units, and seconds', () => {
    expect(parseMediaMemory('256MiB')).toBe(256 * 1_048_576);
    expect(parseMediaMemory('1g')).toBe(1024 * 1_048_576);
    expect(parseMediaMemory('2097152')).toBe(2_097_152);
    // The same sizes as the upload flags take (contract/byte-size.ts): decimals, any binary unit.
    expect(parseMediaMemory('1.5MiB')).toBe(1.5 * 1_048_576);
    expect(parseMediaWait('10')).toBe(10_000);
    expect(parseMediaWait('0.25')).toBe(250);
  });

  it('refuse what is not one', () => {
    for (const bad of ['', 'lots', '-5MiB', '0.5MiB', '1000', '12XB']) expect(() => parseMediaMemory(bad), bad).toThrow(/--media-memory/);
    for (const bad of ['', '-1', 'ten', '601']) expect(() => parseMediaWait(bad), bad).toThrow(/--media-wait/);
  });
});
