// buildApp: the daemon's fastify app, un-listened, so tests can `app.inject` it or listen on
// 127.0.0.1:0. It opens the store in the data dir and closes it (flushed) with the app.
// fastify and its plugins are imported dynamically: dist/cli.js is one bundle, and a static
// import would make every `provenance check` load them at start.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Accounts } from './accounts.js';
import { BufferPool } from './buffer-pool.js';
import { BurstLimiter } from './burst.js';
import type { Services } from './context.js';
import { createDetectRunner, type PoolOptions } from './detect-pool.js';
import { installErrorHandling } from './error-handler.js';
import type { Resolver } from './fetch-media.js';
import { DETECT_JSON_MAX_BODY, INLINE_MAX_BYTES, SMALL_BODY, UPLOAD_TTL_MS } from './limits.js';
import { Quota } from './quota.js';
import { adminRoutes } from './routes/admin.js';
import { detectRoute } from './routes/detect.js';
import { detectorsRoute } from './routes/detectors.js';
import { registerDocsRoutes, registerOpenApi } from './routes/docs.js';
import { healthRoute } from './routes/health.js';
import { uploadsRoute } from './routes/uploads.js';
import { webPages, type WebOptions } from './routes/web.js';
import { openStore, type StoreOptions } from './store.js';
import { systemClock, type Clock } from './time.js';
import { Uploads } from './uploads.js';
import './context.js';

/** Idle buffers kept per pool: as many as the bench's 16 connections keep in flight. */
const KEEP_BUFFERS = 16;

export interface AppOptions {
  dataDir: string;
  now?: Clock;
  allowPrivateUrls?: boolean;
  /** How long an upload lives (default 24 h). */
  uploadTtlMs?: number;
  /** Detection worker threads (0: main thread; default one per core, at most 4). */
  workers?: PoolOptions['size'];
  /** PEM trust anchors for C2PA signer validation (the operator's, as `provenance check` uses). */
  trustAnchorsPem?: string;
  /** fastify/pino logger options, or false (default) for none. */
  logger?: FastifyServerOptions['logger'];
  /** SHA-256 of the admin token; without it the admin endpoint is not mounted. */
  adminTokenSha256?: string;
  /** DNS for `url` downloads (tests resolve names without the network). */
  resolver?: Resolver;
  /** Replaces the URL address rule (tests only: e.g. allow 127.0.0.1 and nothing else). */
  addressPolicy?: (address: string) => boolean;
  downloadTimeoutMs?: number;
  store?: StoreOptions;
  /** Sign-in pages and dashboard: mail, links, limits (issue 4). */
  web?: WebOptions;
  /**
   * A reverse proxy is in front: take the client address and protocol from X-Forwarded-For and
   * X-Forwarded-Proto (Secure cookies behind https). Off by default: a client could forge them.
   */
  trustProxy?: boolean;
}

/** Request logs without headers or bodies, and redaction as a second line of defence. */
export function loggerOptions(stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level: 'info',
    ...(stream ? { stream } : {}),
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-provenance-admin-token"]', 'headers.authorization'],
      censor: '[redacted]',
    },
    serializers: {
      // Method, path (no query string: a misplaced key would land there) and peer, nothing else.
      req: (req: { method?: string; url?: string; ip?: string }) => ({
        method: req.method,
        url: typeof req.url === 'string' ? req.url.split('?')[0] : undefined,
        ip: req.ip,
      }),
    },
  } as FastifyServerOptions['logger'];
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { default: Fastify } = await import('fastify');
  const { default: multipart } = await import('@fastify/multipart');
  const now = options.now ?? systemClock;
  const store = await openStore(options.dataDir, options.store);

  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: SMALL_BODY,
    // Bodies are never merged into other objects (routes read named fields off them), so a
    // `__proto__` key is harmless; the scan for one cost more than JSON.parse on 5 MB bodies.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // fastify's own 503 during shutdown is not the CONTRACT body; instead, requests that still
    // arrive on open connections are served and answered with Connection: close (see below).
    return503OnClosing: false,
    trustProxy: options.trustProxy ?? false,
  });

  const services: Services = {
    store,
    accounts: new Accounts(store, now),
    quota: new Quota(store, now),
    burst: new BurstLimiter(),
    uploads: new Uploads(options.dataDir, store, now, options.uploadTtlMs ?? UPLOAD_TTL_MS),
    pool: await createDetectRunner({ size: options.workers, trustAnchorsPem: options.trustAnchorsPem }),
    // Up to 16 idle buffers each (about 150 MB if 16 inline requests ever ran at once; pages
    // never written stay unmapped), over shared memory: the workers decode the one into the other.
    buffers: {
      body: new BufferPool(DETECT_JSON_MAX_BODY, KEEP_BUFFERS, true),
      media: new BufferPool(INLINE_MAX_BYTES, KEEP_BUFFERS, true),
    },
    now,
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    resolver: options.resolver,
    addressPolicy: options.addressPolicy,
    downloadTimeoutMs: options.downloadTimeoutMs,
  };
  app.decorate('services', services);
  app.decorateRequest('auth', null);
  app.decorateRequest('burstState', null);
  app.decorateRequest('reservation', null);
  // Schemas document the API (OpenAPI); requests are checked in code with the CONTRACT's
  // error types and messages, and responses are serialised as they are (the detection result
  // may carry additive fields a response schema would strip).
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installErrorHandling(app);

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
    services.burst.sweep(now().getTime());
    services.uploads.sweep().catch((err) => app.log.error({ err }, 'upload sweep failed'));
  }, 10 * 60 * 1000);
  sweeper.unref();

  // Once closing, every response says Connection: close: an idle keep-alive connection would
  // otherwise hold the shutdown until the grace period ends.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await services.pool.close();
    await store.close();
  });
  return app;
}
