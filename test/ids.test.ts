// Check ids: drawn from a pool of random bytes, refilled every 256 ids.
import { describe, expect, it } from 'vitest';
import { newCheckId } from '../src/engine/ids.js';

describe('newCheckId', () => {
  it('gives well-formed, distinct ids across several refills of its pool', () => {
    const ids = Array.from({ length: 1000 }, () => newCheckId());
    for (const id of ids) expect(id).toMatch(/^chk_[A-Za-z0-9_-]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
