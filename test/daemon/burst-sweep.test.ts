// The burst limiter's sweep (run every 10 minutes by the daemon's timer), driven directly with
// the clock values the timer would pass (issue 18): it forgets idle keys and never a live window.
import { describe, expect, it } from 'vitest';
import { BurstWindows } from '../../src/daemon/store/burst-window.js';

const t0 = 5_000_000;

describe('BurstWindows.sweep', () => {
  it('keeps a window whose last request is under 60 s old, and the limit with it', () => {
    const b = new BurstWindows();
    for (let i = 0; i < 3; i++) expect(b.take('k', 3, t0 + i).allowed).toBe(true);
    b.sweep(t0 + 30_000);
    expect(b.trackedKeys).toBe(1);
    expect(b.take('k', 3, t0 + 30_000)).toMatchObject({ allowed: false, retryAfter: 30 });
  });

  it('judges a window by its newest request, not its oldest', () => {
    const b = new BurstWindows();
    expect(b.take('k', 2, t0).allowed).toBe(true);
    expect(b.take('k', 2, t0 + 50_000).allowed).toBe(true);
    b.sweep(t0 + 60_000); // the oldest is a window old, the newest is not
    expect(b.trackedKeys).toBe(1);
    // The request at t0 + 50 s still holds a slot: one left, not two.
    expect(b.take('k', 2, t0 + 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(b.take('k', 2, t0 + 60_001).allowed).toBe(false);
  });

  it('drops a key exactly one window (60 s) after its last request, not a millisecond before', () => {
    const b = new BurstWindows();
    b.take('a', 5, t0);
    b.take('b', 5, t0 + 1);
    b.sweep(t0 + 59_999);
    expect(b.trackedKeys).toBe(2);
    b.sweep(t0 + 60_000);
    expect(b.trackedKeys).toBe(1);
    b.sweep(t0 + 60_001);
    expect(b.trackedKeys).toBe(0);
    // A forgotten key starts afresh with its whole limit.
    expect(b.take('a', 5, t0 + 60_001)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('drops empty windows (a key refused with no slots ever taken)', () => {
    const b = new BurstWindows();
    expect(b.take('zero', 0, t0).allowed).toBe(false);
    expect(b.trackedKeys).toBe(1);
    b.sweep(t0);
    expect(b.trackedKeys).toBe(0);
  });

  it('sweeps many keys in one pass, keeping only the live ones', () => {
    const b = new BurstWindows();
    for (let i = 0; i < 100; i++) b.take(`old-${i}`, 10, t0);
    for (let i = 0; i < 10; i++) b.take(`live-${i}`, 1, t0 + 100_000);
    b.sweep(t0 + 120_000);
    expect(b.trackedKeys).toBe(10);
    for (let i = 0; i < 10; i++) expect(b.take(`live-${i}`, 1, t0 + 120_000).allowed, `live-${i}`).toBe(false);
  });
});
