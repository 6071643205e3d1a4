// buildApp: the daemon's fastify app, un-listened, so tests can `app.inject` it or listen on
// 127.0.0.1:0. It opens the store in the data dir and closes it (flushed) with the app.
// fastify and its plugins are imported dynamically: dist/cli.js is one bundle, and a static
// import would make every `provenance check` load them at start.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Accounts } from '../accounts/accounts.js';
import { BufferPool } from '../media/buffer-pool.js';
import { MediaBudget } from '../media/media-budget.js';
import { IdleCollector } from '../../engine/idle-collect.js';
import { Burst } from '../accounts/burst.js';
import type { Services } from './context.js';
import { createDetectRunner, type PoolOptions } from '../media/detect-pool.js';
import { Drain } from './drain.js';
import { clientErrorHandler } from './client-errors.js';
import { continueWhenAccepted, expectContinue, refuseEncodedBodies } from './content-encoding.js';
import { frameworkErrorHandler, installErrorHandling } from './error-handler.js';
import type { Resolver } from '../media/fetch-media.js';
import { DETECT_JSON_MAX_BODY, HEADERS_TIMEOUT_MS, INLINE_MAX_BYTES, REQUEST_TIMEOUT_MS, SMALL_BODY, UPLOAD_SWEEP_MS, UPLOAD_TTL_MS } from '../contract/limits.js';
import { Quota } from '../accounts/quota.js';
import { adminRoutes } from './routes/admin.js';
import { detectRoute } from './routes/detect.js';
import { detectorsRoute } from './routes/detectors.js';
import { registerDocsRoutes, registerOpenApi } from './routes/docs.js';
import { healthRoute } from './routes/health.js';
import { uploadsRoute } from './routes/uploads.js';
import { webPages, type WebOptions } from './routes/web.js';
import type { FileStoreOptions } from '../store/file-store.js';
import { openConfiguredStore } from '../store/open-store.js';
import { systemClock, type Clock } from '../contract/time.js';
import type { Store } from '../store/store.js';
import { timeStore } from '../store/timed-store.js';
import type { DaemonMetrics } from './metrics.js';
import { Uploads, type UploadLimits } from '../media/uploads.js';
import { TestMode } from '../testing/test-mode.js';
import { clockFilePath } from '../testing/clock-file.js';
import { seedFixtures } from '../testing/fixtures.js';
import { randomBase62 } from '../accounts/key-format.js';
import { installTestHooks } from './test-hooks.js';
import { requestPath } from './request-path.js';
import { requestLogController } from './request-log.js';
import { scrubLine, serializeError } from './log-scrub.js';
import type { LogLevel } from './log-levels.js';
import { fastifyTrustProxy, type TrustProxy } from './trust-proxy.js';
import './context.js';
import type { CatalogueName, TrustOptions } from '../../types.js';

/** Idle buffers kept per pool: as many as the bench's 16 connections keep in flight. */
const KEEP_BUFFERS = 16;

export interface AppOptions {
  dataDir: string;
  now?: Clock;
  allowPrivateUrls?: boolean;
  /** How long an upload lives (default 24 h). */
  uploadTtlMs?: number;
  /**
   * `--max-uploads-per-account`, `--max-upload-bytes-per-account`, `--storage-floor`: live
   * uploads and their bytes per account (default 100 and 1 GiB), and the free space every upload
   * must leave on the data dir's disk (default 1 GiB). See media/upload-caps.ts, disk-floor.ts.
   */
  uploadLimits?: UploadLimits;
  /** Detection worker threads (0: main thread; default one per core, at most 4). */
  workers?: PoolOptions['size'];
  /** The detection workers' script (tests only: one that cannot start, for /readyz). */
  workerUrl?: PoolOptions['workerUrl'];
  /**
   * C2PA trust anchors (the C2PA lists and the operator's, as `provenance check` uses them). Not
   * used in test mode or with the hosted catalogue, where signature_verified is always false, as
   * the hosted service answers (CONTRACT "Detection result").
   */
  trust?: TrustOptions;
  /** fastify/pino logger options, or false (default) for none. */
  logger?: FastifyServerOptions['logger'];
  /** SHA-256 of the admin token; without it the admin endpoint is not mounted. */
  adminTokenSha256?: string;
  /** DNS for `url` downloads (tests resolve names without the network). */
  resolver?: Resolver;
  /** Replaces the URL address rule (tests only: e.g. allow 127.0.0.1 and nothing else). */
  addressPolicy?: (address: string) => boolean;
  downloadTimeoutMs?: number;
  store?: FileStoreOptions;
  /**
   * A postgres:// URL: keep accounts, keys, usage, burst windows, uploads, sessions and sign-in
   * tokens in PostgreSQL, shared by every daemon on it. Absent: the embedded store in dataDir.
   */
  storeUrl?: string;
  /** Sign-in pages and dashboard: mail, links, limits (issue 4). */
  web?: WebOptions;
  /**
   * A reverse proxy is in front: take the client address and protocol from X-Forwarded-For and
   * X-Forwarded-Proto (Secure cookies behind https), believing only the hops named: a count of
   * proxies, or their addresses / CIDRs (never every hop: the leftmost entry is the client's own
   * word). Off by default: a client could forge them.
   */
  trustProxy?: TrustProxy;
  /** Slow-client bounds (defaults HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS; tests use short ones). */
  timeouts?: { headersMs?: number; requestMs?: number };
  /** `--test-mode`: the test clock and forced answers (issue 15). */
  testMode?: boolean;
  /** A fixture document (`--fixtures FILE.json`), applied once the store is open. */
  fixtures?: unknown;
  /** `--catalogue hosted`: serve and run exactly the hosted five detectors. Default `full`. */
  catalogue?: CatalogueName;
  /**
   * `--media-memory`, `--media-wait`: media bytes held in memory at once over every request
   * (default 256 MiB), and how long a request waits for room before its 503 server_busy
   * (default 10 s). See media/media-budget.ts.
   */
  media?: { memoryBytes?: number; waitMs?: number };
  /**
   * Prometheus metrics (issue 27, http/metrics.ts; default on): counted on every request, served
   * at GET /metrics to the admin token's holder (so only when `adminTokenSha256` is given) and
   * on `--metrics-listen`. false: none counted, prom-client never loaded (the bench's baseline).
   */
  metrics?: boolean;
  /** `--detect-timeout`: how long one file's checks may run on a worker (default 60 s). */
  detectTimeoutMs?: number;
  /**
   * Tests only, and only with `testMode` (refused otherwise): how long a detect of these bytes
   * holds its worker before its checks, as a file that slow would (test/daemon/detect-time-limit).
   */
  testDetectHold?: (bytes: Uint8Array) => number | undefined;
}

/**
 * Request logs without headers or bodies (one line per request: request-log.ts), and redaction
 * and scrubbing (log-scrub.ts) as second lines of defence.
 */
export function loggerOptions(stream?: NodeJS.WritableStream, level: LogLevel = 'info'): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    // Every line, whatever logged it, leaves without a key, token or URL password in it.
    hooks: { streamWrite: scrubLine },
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-provenance-admin-token"]', 'headers.authorization'],
      censor: '[redacted]',
    },
    serializers: {
      // An error's message, stack and fields may quote what a library saw (a refused recipient).
      err: serializeError,
      // Method, path (no query string: a misplaced key would land there) and peer, nothing else.
      req: (req: { method?: string; url?: string; ip?: string }) => ({
        method: req.method,
        url: typeof req.url === 'string' ? requestPath(req.url) : undefined,
        ip: req.ip,
      }),
    },
  } as FastifyServerOptions['logger'];
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { default: Fastify } = await import('fastify');
  const { default: multipart } = await import('@fastify/multipart');
  const testing = new TestMode(options.testMode ?? false, options.now ?? systemClock, clockFilePath(options.dataDir));
  if (options.testDetectHold) testing.holdDetects(options.testDetectHold);
  const now = testing.now;
  const opened = await openConfiguredStore({ dataDir: options.dataDir, url: options.storeUrl, file: options.store });
  // Metrics load prom-client here, on the daemon's start only; every store call is timed by
  // one decorator around the Store (store/timed-store.ts).
  let metrics: DaemonMetrics | undefined;
  try {
    if (options.metrics !== false) metrics = new (await import('./metrics.js')).DaemonMetrics(options.storeUrl ? 'postgres' : 'file');
  } catch (err) {
    await opened.close();
    throw err;
  }
  const store = metrics ? timeStore(opened, metrics) : opened;
  try {
    // The saved test clock first: fixtures seeded at this start are stamped with its time.
    await testing.restoreClock(store);
    if (options.fixtures !== undefined) {
      await seedFixtures(store, options.fixtures, now);
      await store.commit();
    }
  } catch (err) {
    await store.close();
    throw err;
  }

  let app: FastifyInstance;
  try {
    app = await assemble(Fastify, multipart, store, options, testing, metrics && { metrics, store: opened });
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return app;
}

async function assemble(
  Fastify: typeof import('fastify').default,
  multipart: typeof import('@fastify/multipart').default,
  store: Store,
  options: AppOptions,
  testing: TestMode,
  observed?: { metrics: DaemonMetrics; store: Store },
): Promise<FastifyInstance> {
  const now = testing.now;
  const headersMs = options.timeouts?.headersMs ?? HEADERS_TIMEOUT_MS;
  const requestMs = options.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request (request-log.ts); only with a logger: it counts each body's bytes.
    logController: options.logger ? requestLogController(Fastify.LogController) : undefined,
    bodyLimit: SMALL_BODY,
    // Bodies are never merged into other objects (routes read named fields off them), so a
    // `__proto__` key is harmless; the scan for one cost more than JSON.parse on 5 MB bodies.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // fastify's own 503 during shutdown is not the CONTRACT body; instead, requests that still
    // arrive on open connections are served and answered with Connection: close (see below).
    return503OnClosing: false,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    // Node checks both bounds on a timer (every 30 s by default, which would let a slow client
    // hold a connection up to 30 s past its bound): check every second instead.
    // (fastify sets the server's requestTimeout from its own option, so it is given there.)
    requestTimeout: requestMs,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    http: {
      headersTimeout: headersMs,
      requestTimeout: requestMs,
      connectionsCheckingInterval: Math.min(1000, headersMs),
    },
    // The id every response carries as Request-Id and the request log keeps; never the client's.
    genReqId: () => `req_${randomBase62(20)}`,
  });

  const deadMedia = new IdleCollector();
  // Inline requests reuse buffers while they keep coming; 30 s without one gives them back.
  const dropWhenQuiet = { afterMs: 30_000, onDrop: (bytes: number) => deadMedia.note(bytes) };
  const trust: TrustOptions = options.testMode || options.catalogue === 'hosted' ? {} : (options.trust ?? {});
  const services: Services = {
    store,
    accounts: new Accounts(store, now),
    quota: new Quota(store, now),
    burst: new Burst(store, now),
    uploads: new Uploads(options.dataDir, store, now, options.uploadTtlMs ?? UPLOAD_TTL_MS, options.uploadLimits, options.store?.faults),
    pool: await createDetectRunner({ size: options.workers, trust, workerUrl: options.workerUrl, timeoutMs: options.detectTimeoutMs, holdFor: (bytes) => testing.detectHold(bytes) }),
    // Up to 16 idle buffers each (about 150 MB if 16 inline requests ever ran at once; pages
    // never written stay unmapped), over shared memory: the workers decode the one into the other.
    buffers: {
      body: new BufferPool(DETECT_JSON_MAX_BODY, KEEP_BUFFERS, true, dropWhenQuiet),
      media: new BufferPool(INLINE_MAX_BYTES, KEEP_BUFFERS, true, dropWhenQuiet),
    },
    // Media given back is mostly dead buffers on this thread (download chunks, multipart parts):
    // once requests stop, their memory goes back to the system (idle-collect.ts).
    mediaBudget: new MediaBudget(options.media?.memoryBytes, options.media?.waitMs, (bytes) => deadMedia.note(bytes)),
    now,
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    resolver: options.resolver,
    addressPolicy: options.addressPolicy,
    downloadTimeoutMs: options.downloadTimeoutMs,
    testing,
    catalogue: options.catalogue ?? 'full',
    trust,
    drain: new Drain(),
  };
  app.decorate('services', services);
  app.decorateRequest('auth', null);
  app.decorateRequest('sessionAccountId', null);
  app.decorateRequest('burstState', null);
  app.decorateRequest('reservation', null);
  app.decorateRequest('storeDown', false);
  // Schemas document the API (OpenAPI); requests are checked in code with the CONTRACT's
  // error types and messages. Responses are serialised by installErrorHandling's serializer.
  app.setValidatorCompiler(() => () => true);
  installErrorHandling(app);
  app.addHook('preParsing', refuseEncodedBodies);
  app.addHook('preParsing', continueWhenAccepted);
  expectContinue(app.server);
  installTestHooks(app, services);
  app.decorate('metrics', observed?.metrics ?? null);
  if (observed) {
    observed.metrics.watch(services, observed.store);
    observed.metrics.install(app);
    // Like the admin endpoint: no token, no route (a test app serves its metrics to no one).
    if (options.adminTokenSha256) observed.metrics.route(app, options.adminTokenSha256);
  }

  // Size caps are enforced by our own byte counting (one byte over busboy's limit), not by
  // busboy's silent truncation.
  await app.register(multipart, { throwFileSizeLimit: false });
  await registerOpenApi(app);
  await app.register(healthRoute);
  await app.register(detectorsRoute);
  await app.register(detectRoute);
  await app.register(uploadsRoute);
  if (options.adminTokenSha256) await app.register(adminRoutes(options.adminTokenSha256));
  await app.register(webPages(options.web ?? {}, options.dataDir));
  await registerDocsRoutes(app);

  // Expired uploads go at start and then every 10 minutes (the timer never keeps the process up).
  await services.uploads.sweep();
  const sweeper = setInterval(() => {
    services.burst.sweep().catch((err) => app.log.error({ err }, 'burst sweep failed'));
    services.uploads.sweep().catch((err) => app.log.error({ err }, 'upload sweep failed'));
  }, UPLOAD_SWEEP_MS);
  sweeper.unref();

  // Once closing, and from the start of a stop's drain (server.ts), every response says
  // Connection: close: an idle keep-alive connection would otherwise hold the shutdown until the
  // grace period ends, and a client keeping one would not reconnect to a daemon still ready.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    // Every answer (JSON, pages, errors, docs) is served as the type it says it is: a browser
    // must not sniff an error body or an upload record into HTML or script.
    reply.header('x-content-type-options', 'nosniff');
    if (closing || services.drain.draining) reply.header('connection', 'close');
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await services.pool.close();
    await store.close();
  });
  return app;
}
