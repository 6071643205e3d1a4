import { randomFillSync } from 'node:crypto';

const ID_BYTES = 18;
/** Random bytes drawn 256 ids at a time: one call per id cost 20 µs, 10 ms per worker in a 1,100-file scan. */
const pool = Buffer.alloc(ID_BYTES * 256);
let next = pool.length;

/** `chk_` + 24 URL-safe random characters (CONTRACT "Detection result"). */
export function newCheckId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const id = `chk_${pool.toString('base64url', next, next + ID_BYTES)}`;
  next += ID_BYTES;
  return id;
}
