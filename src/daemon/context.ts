// What the route plugins share: the app's services and the per-request state the hooks set.
// Declared once here so every route and hook agrees on names and types.
import type { AccountRecord } from './api-types.js';
import type { Accounts } from './accounts.js';
import type { BufferPool, Lease } from './buffer-pool.js';
import type { BurstLimiter, BurstState } from './burst.js';
import type { DetectRunner } from './detect-pool.js';
import type { Resolver } from './fetch-media.js';
import type { Quota, Reservation } from './quota.js';
import type { Store, StoredKey } from './store.js';
import type { Clock } from './time.js';
import type { Uploads } from './uploads.js';

export interface Services {
  store: Store;
  accounts: Accounts;
  quota: Quota;
  burst: BurstLimiter;
  uploads: Uploads;
  pool: DetectRunner;
  /** Reused buffers for inline detect requests: JSON bodies, and the files workers decode from them. */
  buffers: { body: BufferPool; media: BufferPool };
  now: Clock;
  allowPrivateUrls: boolean;
  resolver?: Resolver;
  addressPolicy?: (address: string) => boolean;
  downloadTimeoutMs?: number;
}

/** Route config read by the error handler to word size and content-type refusals. */
export interface RouteMessages {
  tooLarge?: string;
  unsupported?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: { key: StoredKey; account: AccountRecord } | null;
    burstState: BurstState | null;
    reservation: Reservation | null;
    /** The pooled buffer a JSON detect body was read into, held until its media is decoded. */
    bodyLease: Lease | null;
  }
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyContextConfig extends RouteMessages {}
}
