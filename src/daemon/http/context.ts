// What the route plugins share: the app's services and the per-request state the hooks set.
// Declared once here so every route and hook agrees on names and types.
import type { AccountRecord } from '../contract/api-types.js';
import type { CatalogueName, TrustOptions } from '../../types.js';
import type { Accounts } from '../accounts/accounts.js';
import type { BufferPool, Lease } from '../media/buffer-pool.js';
import type { MediaBudget, MediaHold } from '../media/media-budget.js';
import type { Burst } from '../accounts/burst.js';
import type { DetectRunner } from '../media/detect-pool.js';
import type { Drain } from './drain.js';
import type { Resolver } from '../media/fetch-media.js';
import type { Quota, Reservation } from '../accounts/quota.js';
import type { BurstState, Store, StoredKey } from '../store/store.js';
import type { Clock } from '../contract/time.js';
import type { Uploads } from '../media/uploads.js';
import type { MetricsExposition } from './metrics-listen.js';
import type { TestMode } from '../testing/test-mode.js';
import type { ForcedAnswer, ForcedKind } from '../testing/forced-answers.js';

export interface Services {
  store: Store;
  accounts: Accounts;
  quota: Quota;
  burst: Burst;
  uploads: Uploads;
  pool: DetectRunner;
  /** Reused buffers for inline detect requests: JSON bodies, and the files workers decode from them. */
  buffers: { body: BufferPool; media: BufferPool };
  /** Media bytes in memory at once, over every request (downloads, bodies, uploads read back). */
  mediaBudget: MediaBudget;
  now: Clock;
  allowPrivateUrls: boolean;
  resolver?: Resolver;
  addressPolicy?: (address: string) => boolean;
  downloadTimeoutMs?: number;
  /** Test mode's clock and the request log (kept in either mode). */
  testing: TestMode;
  /** `--catalogue`: every detector (`full`, the default) or exactly the hosted five. */
  catalogue: CatalogueName;
  /** The C2PA trust anchors the checks use (none in test mode or with the hosted catalogue). */
  trust: TrustOptions;
  /** Whether a stop has begun (/readyz 503, Connection: close); server.ts begins it. */
  drain: Drain;
}

/** Route config read by the error handler to word size and content-type refusals. */
export interface RouteMessages {
  tooLarge?: string;
  unsupported?: string;
  /** The route authenticates: a forced answer waits for its key (test-hooks.ts). */
  forcedAfterAuth?: boolean;
  /** The forced answers that can really happen on the route (default: internal_error, delay). */
  forcedAnswers?: readonly ForcedKind[];
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: { key: StoredKey; account: AccountRecord } | null;
    burstState: BurstState | null;
    reservation: Reservation | null;
    /**
     * The store did not answer this request (its 500 is on the way): the hooks that finish the
     * answer ask it nothing more, or the answer would wait out a second timeout.
     */
    storeDown: boolean;
    /** The pooled buffer a JSON detect body was read into, held until its media is decoded. */
    bodyLease: Lease | null;
    /** The media bytes this request holds in the budget (media-budget.ts), until it is answered. */
    mediaHold: MediaHold | null;
    /** The Provenance-Test-Response asked for (test mode only). */
    forcedAnswer: ForcedAnswer | null;
    /** A refused Provenance-Test-Response, thrown once the key is known (test-hooks.ts). */
    forcedAnswerError: Error | null;
    /** The forced answer's value once it acted (answered, or delayed): what the request log marks. */
    forcedApplied: string | null;
    /** What the request log records beyond the request itself (/v1 requests only). */
    logInfo: { at: string; errorType: string | null } | null;
  }
  interface FastifyInstance {
    services: Services;
    /** The app's Prometheus metrics (http/metrics.ts); null when built with `metrics: false`. */
    metrics: MetricsExposition | null;
  }
  interface FastifyContextConfig extends RouteMessages {}
}
