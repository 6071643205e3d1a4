// A detect stopped at its time limit, as POST /v1/detect and the Verify page answer it: the
// call stays spent (the work was done: a worker's whole time limit), on disk before the answer,
// one log line says so (the account's id, the file's size and the limit: never a key or the
// file), and the answer is the 413 naming the field that carried the file. Should that write
// fail, the answer is the 500 of a failed store and the call is given back, as for a download.
import type { FastifyBaseLogger } from 'fastify';
import { DetectTimeoutError } from '../media/detect-pool.js';
import type { Store } from '../store/store.js';

export async function keepTimedOutCall(
  err: DetectTimeoutError,
  at: { log: FastifyBaseLogger; store: Store; account: string; bytes: number; param: string; giveBack(): Promise<void> },
): Promise<never> {
  at.log.warn({ account: at.account, bytes: at.bytes, limit_s: err.limitMs / 1000 }, 'detect stopped at its time limit');
  try {
    await at.store.commit();
  } catch (writeError) {
    await at.giveBack();
    at.store.commit().catch((e) => at.log.error({ err: e }, 'store write failed'));
    throw writeError;
  }
  throw new DetectTimeoutError(err.limitMs, at.param);
}
