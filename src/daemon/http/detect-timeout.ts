// A detect stopped at its time limit, as POST /v1/detect and the Verify page answer it: the
// call stays spent (the work was done: a worker's whole time limit), on disk before the answer,
// one log line says so (the account's id, the file's size and the limit: never a key or the
// file), and the answer is the 413 naming the field that carried the file.
import type { FastifyBaseLogger } from 'fastify';
import { DetectTimeoutError } from '../media/detect-pool.js';
import type { Store } from '../store/store.js';

export async function keepTimedOutCall(
  err: DetectTimeoutError,
  at: { log: FastifyBaseLogger; store: Store; account: string; bytes: number; param: string },
): Promise<never> {
  at.log.warn({ account: at.account, bytes: at.bytes, limit_s: err.limitMs / 1000 }, 'detect stopped at its time limit');
  await at.store.commit();
  throw new DetectTimeoutError(err.limitMs, at.param);
}
