// Turns on the detection workers (src/daemon/media/detect-turns.ts): one account's share is every
// worker but one; an idle worker is lent over the share only while no one waits; a waiter under
// its share goes before an account at its share, whatever the arrival order; and
// `--detect-timeout` takes whole seconds from 1 to 600.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDetectRunner } from '../../src/daemon/media/detect-pool.js';
import { DetectTurns, perAccountTurns } from '../../src/daemon/media/detect-turns.js';
import { tinyJpeg } from '../fixtures/make.js';
import { parseDetectTimeout } from '../../src/daemon/media/detect-timeout-flag.js';

/** A detect that runs until `finish()`; `turn` says how it started (undefined while it waits). */
function job(turns: DetectTurns, account: string, mayBorrow = true) {
  let finish!: () => void;
  const state: { turn?: 'own' | 'borrowed'; done: Promise<void>; finish(): void } = {
    done: Promise.resolve(),
    finish: () => finish(),
  };
  state.done = turns.run(
    account,
    (borrowed) => {
      state.turn = borrowed ? 'borrowed' : 'own';
      return new Promise<void>((resolve) => (finish = resolve));
    },
    mayBorrow,
  );
  return state;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('DetectTurns', () => {
  it("an account's share is every worker but one, and at least one", () => {
    expect([1, 2, 3, 4].map(perAccountTurns)).toEqual([1, 1, 2, 3]);
  });

  it('lends the idle worker to a lone account, and gives it to a newcomer when it frees', async () => {
    const turns = new DetectTurns(2);
    const a1 = job(turns, 'a');
    const a2 = job(turns, 'a');
    const a3 = job(turns, 'a');
    const b1 = job(turns, 'b');
    await tick();
    expect([a1.turn, a2.turn, a3.turn, b1.turn]).toEqual(['own', 'borrowed', undefined, undefined]);
    expect(turns.waiting).toBe(2);
    // The borrowed worker frees: b is under its share, a is at it (a1 runs), so b goes first.
    a2.finish();
    await a2.done;
    await tick();
    expect([a3.turn, b1.turn]).toEqual([undefined, 'own']);
    // a1 ends: a3 gets a turn of a's own.
    a1.finish();
    await a1.done;
    await tick();
    expect(a3.turn).toBe('own');
    expect(turns.waiting).toBe(0);
    b1.finish();
    a3.finish();
    await Promise.all([b1.done, a3.done]);
  });

  it('a detect that may not borrow waits for its own turn, and a worker no one else wants is lent again', async () => {
    const turns = new DetectTurns(2);
    const a1 = job(turns, 'a');
    const a2 = job(turns, 'a', false);
    const a3 = job(turns, 'a');
    await tick();
    expect([a1.turn, a2.turn, a3.turn]).toEqual(['own', undefined, undefined]);
    // The worker left idle goes to the first waiter that may borrow, once one frees (here a1's).
    a1.finish();
    await a1.done;
    await tick();
    expect([a2.turn, a3.turn]).toEqual(['own', 'borrowed']);
    a2.finish();
    a3.finish();
    await Promise.all([a2.done, a3.done]);
  });

  it('one worker: one turn at a time, nothing lent', async () => {
    const turns = new DetectTurns(1);
    const a1 = job(turns, 'a');
    const a2 = job(turns, 'a');
    await tick();
    expect([a1.turn, a2.turn]).toEqual(['own', undefined]);
    a1.finish();
    await a1.done;
    await tick();
    expect(a2.turn).toBe('own');
    a2.finish();
    await a2.done;
  });
});

describe('--detect-timeout', () => {
  it('takes whole seconds from 1 to 600', () => {
    expect(parseDetectTimeout('60')).toBe(60_000);
    expect(parseDetectTimeout(' 1 ')).toBe(1000);
    expect(parseDetectTimeout('600')).toBe(600_000);
    for (const bad of ['0', '601', '1.5', '-1', '', 'ten']) expect(() => parseDetectTimeout(bad), bad).toThrow(/from 1 to 600/);
  });
});

// Issue 40 item 5: the Verify page's card pictures run in a turn of the account's own, as its
// detects do, and with the detect time limit: on a real pool (the built worker), an account's
// pictures wait for its detect to end, and the signal they get aborts at --detect-timeout.
describe('DetectRunner.pictures', () => {
  it.skipIf(!existsSync(new URL('../../dist/detect-worker.js', import.meta.url)))(
    "waits for the account's turn, and aborts its signal at the time limit",
    async () => {
      const runner = await createDetectRunner({ size: 1, timeoutMs: 3000, holdFor: () => 1500 });
      try {
        const order: string[] = [];
        const detect = runner.detect(tinyJpeg(), ['c2pa'], { account: 'a' }).then(() => order.push('detect'));
        await new Promise((r) => setTimeout(r, 200)); // the detect holds the one turn
        const pictures = runner.pictures('a', async (signal) => {
          order.push('pictures');
          expect(signal.aborted).toBe(false);
          await new Promise((r) => setTimeout(r, 3500));
          return signal.aborted;
        });
        await new Promise((r) => setTimeout(r, 200));
        expect(order).toEqual([]); // still behind the detect, in the queue of turns
        expect(runner.waitingTurns()).toBe(1);
        expect(await pictures).toBe(true); // past the 3 s limit: aborted
        await detect;
        expect(order).toEqual(['pictures', 'detect']); // (the detect's turn ends before its caller hears of it)
      } finally {
        await runner.close();
      }
    },
    30_000,
  );
});
