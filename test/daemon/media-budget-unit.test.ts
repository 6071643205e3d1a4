// The media budget on its own (src/daemon/media/media-budget.ts): what it grants, in which
// order, how a wait ends (503 server_busy, or the client gone), and that every way out gives the
// bytes back exactly once. The daemon's use of it is test/daemon/media-budget.test.ts.
import { getEventListeners } from 'node:events';
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

// Pins of what a caller or a client sees (issue 34: media-budget as a mutation target): the exact
// refusals and 503 text, how sizes are rounded, what onFreed is told, and what an abort or a
// timer does once a wait has ended.
describe('MediaBudget: the exact answers', () => {
  it('its defaults: 256 MiB and 10 s', () => {
    const budget = new MediaBudget();
    expect([budget.capacity, budget.waitMs]).toEqual([256 * 1_048_576, 10_000]);
    expect(budget.busyError()).toMatchObject({
      type: 'server_busy',
      statusCode: 503,
      retryAfter: 10,
      message: "The daemon's memory for media (256 MiB) stayed full for 10 seconds; retry in 10 seconds.",
    });
  });

  it('the 503 names the capacity in MiB when whole, else in bytes, and Retry-After in whole seconds (at least 1)', () => {
    expect(new MediaBudget(1_048_576 + 1, 1500).busyError()).toMatchObject({
      retryAfter: 2,
      message: "The daemon's memory for media (1048577 bytes) stayed full for 1.5 seconds; retry in 2 seconds.",
    });
    expect(new MediaBudget(3 * 1_048_576, 0).busyError()).toMatchObject({
      retryAfter: 1,
      message: "The daemon's memory for media (3 MiB) stayed full for 0 seconds; retry in 1 seconds.",
    });
    expect(new MediaBudget(100, 1001).busyError().retryAfter).toBe(2);
    expect(new MediaBudget(100, 2000).busyError().retryAfter).toBe(2);
  });

  it('refuses a capacity that is not a whole number of bytes above 0, or a wait that is not 0 or more', () => {
    for (const capacity of [0, -1, 1.5, NaN, Infinity, 2 ** 53]) {
      expect(() => new MediaBudget(capacity, 10), String(capacity)).toThrow(new RangeError(`media budget: capacity must be a whole number of bytes above 0, not ${capacity}`));
    }
    for (const waitMs of [-1, -0.5, NaN, Infinity]) {
      expect(() => new MediaBudget(100, waitMs), String(waitMs)).toThrow(new RangeError(`media budget: wait must be 0 or more milliseconds, not ${waitMs}`));
    }
    expect(new MediaBudget(1, 0).capacity).toBe(1);
    expect(new MediaBudget(2 ** 53 - 1, 0.5).waitMs).toBe(0.5);
  });

  it('rounds a size up to whole bytes and a negative one to 0, which is granted at once even when full', async () => {
    const budget = new MediaBudget(100, 1000);
    expect((await budget.acquire(10.2)).bytes).toBe(11);
    const zero = await budget.acquire(-5);
    expect(zero.bytes).toBe(0);
    await budget.acquire(89);
    expect(budget.inUse).toBe(100);
    expect(await settled(budget.acquire(0))).toBe('resolved');
    expect(await settled(budget.acquire(0.1))).toBe('pending');
  });

  it('a full budget is exactly full: the last byte fits, one more waits', async () => {
    const budget = new MediaBudget(100, 1000);
    await budget.acquire(60);
    expect(await settled(budget.acquire(40))).toBe('resolved');
    const budget2 = new MediaBudget(100, 1000);
    await budget2.acquire(60);
    expect(await settled(budget2.acquire(41))).toBe('pending');
  });

  it('tells onFreed each release and shrink, by the bytes given back', async () => {
    const freed: number[] = [];
    const budget = new MediaBudget(100, 1000, (n) => freed.push(n));
    const hold = await budget.acquire(50);
    hold.shrink(20.5); // keeps 21
    hold.release();
    hold.release();
    (await budget.acquire(0)).release();
    expect(freed).toEqual([29, 21]);
  });

  it('a holder whose hold is larger than the budget, or negative, takes what the budget has beside it', async () => {
    const budget = new MediaBudget(100, 1000);
    const fake = { bytes: 500, shrink() {}, release() {} };
    // Beside 500 there is no room: it takes nothing, at once.
    expect((await budget.acquire(30, undefined, fake)).bytes).toBe(0);
    const negative = { bytes: -50, shrink() {}, release() {} };
    expect((await budget.acquire(300, undefined, negative)).bytes).toBe(100);
  });

  it('an abort whose reason is not an Error is refused with "aborted"; an abort after the grant changes nothing', async () => {
    const budget = new MediaBudget(100, 5000);
    const held = await budget.acquire(100);
    const gone = new AbortController();
    const waiting = budget.acquire(10, gone.signal).catch((e: unknown) => e);
    gone.abort('a string');
    const err = await waiting;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('aborted');
    // Granted, then aborted: the hold stays and nobody else is refused or granted by it.
    const late = new AbortController();
    const granted = budget.acquire(10, late.signal);
    const behind = budget.acquire(95);
    held.release();
    const hold = await granted;
    late.abort(new Error('too late'));
    expect(hold.bytes).toBe(10);
    expect(budget.inUse).toBe(10);
    expect(budget.waiting).toBe(1);
    expect(await settled(behind)).toBe('pending');
    hold.release();
    expect((await behind).bytes).toBe(95);
  });

  it('a wait that ends, granted or refused, leaves no abort listener on the signal', async () => {
    const budget = new MediaBudget(100, 30);
    const held = await budget.acquire(100);
    const granted = new AbortController();
    const first = budget.acquire(50, granted.signal);
    expect(getEventListeners(granted.signal, 'abort')).toHaveLength(1);
    held.release();
    await first;
    expect(getEventListeners(granted.signal, 'abort')).toHaveLength(0);
    const refused = new AbortController();
    await budget.acquire(60, refused.signal).catch(() => undefined); // 503 after 30 ms
    expect(getEventListeners(refused.signal, 'abort')).toHaveLength(0);
  });

  it('shrinking to what a hold has already is no release: onFreed is not told 0', async () => {
    const freed: number[] = [];
    const budget = new MediaBudget(100, 1000, (n) => freed.push(n));
    const hold = await budget.acquire(40);
    hold.shrink(40);
    hold.shrink(40.5); // 41 kept: more than it has
    expect(freed).toEqual([]);
    hold.shrink(39);
    expect(freed).toEqual([1]);
  });

  it('a request that gave back part of its bytes still holds the rest: no deadlock is broken past it', async () => {
    const budget = new MediaBudget(100, 1000);
    const a = await budget.acquire(30);
    const plain = await budget.acquire(70);
    const moreA = budget.acquire(60, undefined, a);
    plain.shrink(50); // 80 used: 60 more does not fit, and plain's 50 will come back
    expect(await settled(moreA)).toBe('pending');
    expect(budget.inUse).toBe(80);
    plain.release();
    expect((await moreA).bytes).toBe(60);
  });

  it('a hold of 0 bytes is not a hold out: it does not keep waiting holders from breaking their deadlock', async () => {
    const budget = new MediaBudget(100, 1000);
    await budget.acquire(0); // never released: it holds nothing
    const a = await budget.acquire(30);
    const b = await budget.acquire(30);
    const moreA = budget.acquire(70, undefined, a);
    const moreB = budget.acquire(70, undefined, b);
    expect((await moreA).bytes).toBe(70);
    expect(budget.inUse).toBe(130);
    expect(await settled(moreB)).toBe('pending');
  });

  it("a granted wait's timer is cleared: no 503 comes later, and the one behind keeps its place", async () => {
    const budget = new MediaBudget(100, 60);
    const held = await budget.acquire(100);
    const first = budget.acquire(50);
    held.release();
    const hold = await first;
    await new Promise((r) => setTimeout(r, 100));
    expect([hold.bytes, budget.inUse, budget.waiting]).toEqual([50, 50, 0]);
  });

  it('holders waiting with nothing held (null) are not a deadlock: they wait for the holds out', async () => {
    const budget = new MediaBudget(100, 80);
    const running = await budget.acquire(100);
    const a = budget.acquire(50, undefined, null).catch((e: unknown) => e);
    const b = budget.acquire(50, undefined, null).catch((e: unknown) => e);
    expect(await settled(a)).toBe('pending');
    expect(budget.inUse).toBe(100);
    expect(await a).toMatchObject({ type: 'server_busy' });
    expect(await b).toMatchObject({ type: 'server_busy' });
    running.release();
  });

  it('a holder waiting behind a plain request that holds its bytes is not run past the capacity', async () => {
    const budget = new MediaBudget(100, 80);
    const mine = await budget.acquire(40);
    const plain = await budget.acquire(60); // a running request, not waiting
    const more = budget.acquire(30, undefined, mine).catch((e: unknown) => e);
    expect(await settled(more)).toBe('pending');
    expect(budget.inUse).toBe(100);
    expect(await more).toMatchObject({ type: 'server_busy' });
    plain.release();
    mine.release();
  });

  it('a hold given back to 0 no longer counts as out: the waiting holders then break the deadlock', async () => {
    const budget = new MediaBudget(100, 1000);
    const a = await budget.acquire(30);
    const b = await budget.acquire(30);
    const other = await budget.acquire(40); // a plain request, running
    const moreA = budget.acquire(70, undefined, a);
    const moreB = budget.acquire(70, undefined, b);
    expect(await settled(moreA)).toBe('pending'); // other's 40 will come back: no deadlock yet
    other.shrink(0); // 40 back: 60 used, 70 does not fit, and only the waiting holders' bytes are out
    expect((await moreA).bytes).toBe(70);
    expect(budget.inUse).toBe(130);
    expect(await settled(moreB)).toBe('pending');
    a.release();
  });
});

describe('--media-memory and --media-wait: edges and messages', () => {
  it('1 MiB is the least memory; the refusal quotes the text', () => {
    expect(parseMediaMemory('1MiB')).toBe(1_048_576);
    expect(parseMediaMemory('1048576')).toBe(1_048_576);
    expect(() => parseMediaMemory('1048575')).toThrow(new RangeError('--media-memory must be a size of at least 1 MiB, e.g. 256MiB or 268435456 (bytes), not "1048575"'));
  });

  it('0 to 600 seconds, spaces around allowed, rounded to whole milliseconds; the refusal quotes the text', () => {
    expect(parseMediaWait('0')).toBe(0);
    expect(parseMediaWait('600')).toBe(600_000);
    expect(parseMediaWait(' 2.5 ')).toBe(2500);
    expect(parseMediaWait('0.0004')).toBe(0);
    expect(parseMediaWait('0.0006')).toBe(1);
    for (const bad of ['600.001', '1.', '.5', '1e2', '0x10', '5s', '5 5']) {
      expect(() => parseMediaWait(bad), bad).toThrow(new RangeError(`--media-wait must be a number of seconds from 0 to 600, e.g. 10, not "${bad}"`));
    }
  });
});
