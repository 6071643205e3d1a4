// The daemon's Prometheus metrics (issue 27; docs/METRICS.md lists every name). Loaded only by
// buildApp, through import(), so prom-client is never read by `provenance check` or any other
// command: it is external in the build (scripts/build.mjs) and this module has a lazy bundle.
//
// Label values are bounded and never come from a request: the route is fastify's pattern (or
// `unmatched`), a method outside the standard set is `OTHER`, error types, check ids, results and
// store operations are checked against the daemon's own fixed lists. No account, key, e-mail
// address, upload id or URL can become a label, so a client cannot grow the series without end.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_TYPES } from '../contract/api-types.js';
import { ApiError } from '../contract/errors.js';
import { adminTokenMatcher } from './admin-auth.js';
import { CounterCells, HistogramCells, type HistogramCell } from './metric-cells.js';
import { DETECTOR_IDS } from '../../types.js';
import type { Services } from './context.js';
import type { Store } from '../store/store.js';
import type { StoreOperation, StoreTimer } from '../store/timed-store.js';

const PREFIX = 'provenance_';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const DETECTORS = new Set<string>(DETECTOR_IDS);
const RESULTS = new Set(['found', 'not_found', 'unavailable']);
const ERRORS = new Set<string>(ERROR_TYPES);
/** The error type as the daemon's own serializer writes it first in every error body. */
const ERROR_TYPE_AT_START = /^\{"error":\{"type":"([a-z_]{1,40})"/;

export type DetectSource = 'inline' | 'multipart' | 'upload' | 'url';
export type StoreKind = 'file' | 'postgres';

/**
 * Process metrics (CPU, memory, event loop lag, GC, handles) are the process's, not one app's:
 * collected once per process into a private registry (never prom-client's global one, which a
 * library user's own metrics may share), and added to every app's answer. Per app they would
 * leave one event-loop monitor and one GC observer behind for each app a test process builds.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: PREFIX });
  }
  return processRegistry;
}

/** The route label: fastify's pattern, never the path the client sent. */
function routeOf(request: FastifyRequest): string {
  return request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
}

/** Which of the four ways a 200 detect got its media. */
function detectSource(request: FastifyRequest): DetectSource | undefined {
  if (request.isMultipart?.()) return 'multipart';
  const body = request.body as Record<string, unknown> | null | undefined;
  if (!body || typeof body !== 'object') return undefined;
  if (body.url !== undefined) return 'url';
  if (body.upload !== undefined) return 'upload';
  if (body.media !== undefined) return 'inline';
  return undefined;
}

/**
 * Counting never fails or holds up a request: a defect in it loses a count, not the answer.
 * Called with the method and its arguments rather than a closure: nothing allocated per hook.
 */
function guarded(
  metrics: DaemonMetrics,
  count: (this: DaemonMetrics, request: FastifyRequest, reply: FastifyReply, payload: unknown) => void,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): void {
  try {
    count.call(metrics, request, reply, payload);
  } catch {
    // Nothing to do: the answer goes on.
  }
}

export class DaemonMetrics implements StoreTimer {
  readonly registry = new Registry();
  private readonly requests: CounterCells<'method' | 'route' | 'status'>;
  private readonly errors: CounterCells<'route' | 'type'>;
  private readonly detectSeconds: HistogramCells<'source'>;
  private readonly detections: CounterCells<'check' | 'result'>;
  private readonly storeSeconds: HistogramCells<'store' | 'operation'>;
  private readonly storeErrors: CounterCells<'store' | 'operation'>;
  /** Each store operation's timing series, found once (operations are a fixed list). */
  private readonly storeCells = new Map<StoreOperation, HistogramCell>();

  constructor(readonly storeKind: StoreKind) {
    const registers = [this.registry];
    processMetrics();
    this.requests = new CounterCells({
      name: `${PREFIX}http_requests_total`,
      help: 'Requests answered, by method, route pattern (unmatched: no route) and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.errors = new CounterCells({
      name: `${PREFIX}http_errors_total`,
      help: 'Error answers by route pattern and the error type of their body (quota_exceeded, rate_limited, upload_limit_exceeded, storage_full, server_busy, ...).',
      labelNames: ['route', 'type'],
      registers,
    });
    this.detectSeconds = new HistogramCells({
      name: `${PREFIX}detect_duration_seconds`,
      help: 'POST /v1/detect answered 200, from request to answer, by where the media came from (inline, multipart, upload, url).',
      labelNames: ['source'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.detections = new CounterCells({
      name: `${PREFIX}detections_total`,
      help: 'Check results in 200 detect answers, by check id and result (found, not_found, unavailable).',
      labelNames: ['check', 'result'],
      registers,
    });
    this.storeSeconds = new HistogramCells({
      name: `${PREFIX}store_operation_duration_seconds`,
      help: 'Store calls by store (file, postgres) and operation (the Store method), failed ones included.',
      labelNames: ['store', 'operation'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.storeErrors = new CounterCells({
      name: `${PREFIX}store_operation_errors_total`,
      help: 'Store calls that failed (threw), by store and operation.',
      labelNames: ['store', 'operation'],
      registers,
    });
  }

  observeStore(operation: StoreOperation, seconds: number, failed: boolean): void {
    let cell = this.storeCells.get(operation);
    if (!cell) {
      cell = this.storeSeconds.cell(operation, () => ({ store: this.storeKind, operation }));
      this.storeCells.set(operation, cell);
    }
    cell.observe(seconds);
    if (failed) this.storeErrors.cell(operation, () => ({ store: this.storeKind, operation })).value += 1;
  }

  /**
   * The gauges read at scrape time from what already keeps them (no bookkeeping per request):
   * the media budget, the detect pool, PostgreSQL's pool, the store's live uploads. `store` is
   * the store itself, not the timed one: a scrape is not a store call of any request.
   */
  watch(services: Services, store: Store): void {
    const registers = [this.registry];
    const { mediaBudget, pool } = services;
    /** A gauge set from `read()` on each scrape. */
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge(`${PREFIX}media_budget_bytes`, 'The budget for media bytes held in memory at once (--media-memory).', () => mediaBudget.capacity);
    gauge(`${PREFIX}media_budget_in_use_bytes`, 'Media bytes held in memory now, over every request.', () => mediaBudget.inUse);
    gauge(`${PREFIX}media_budget_waiting_requests`, 'Requests waiting now for room in the media budget.', () => mediaBudget.waiting);
    gauge(`${PREFIX}detect_workers`, 'Detection worker threads (0: detection runs on the main thread).', () => pool.size);
    gauge(`${PREFIX}detect_workers_busy`, 'Workers holding at least one task now (main thread: detections running).', () => pool.load().busy);
    gauge(`${PREFIX}detect_tasks_queued`, 'Tasks (detections, inline base64 decodes) waiting for a worker now.', () => pool.load().queued);
    gauge(`${PREFIX}detect_turns_waiting`, "Detections waiting for their account's turn on the workers now (one account holds at most every worker but one).", () => pool.waitingTurns());
    // A counter the runner keeps (one addition per stopped detect), read at scrape time.
    const timeouts = new CounterCells({
      name: `${PREFIX}detect_timeouts_total`,
      help: 'Detections stopped at the time limit per file (--detect-timeout): the worker was replaced, the answer a 413 media_too_large, the call counted.',
      registers,
      collect() {
        timeouts.cell('', () => ({})).value = pool.timeouts();
      },
    });
    // Before the uploads' query below starts: the pool as the requests left it, not that query.
    const poolStats = (store as Partial<{ poolStats(): { total: number; idle: number; waiting: number } }>).poolStats?.bind(store);
    if (poolStats) {
      gauge(`${PREFIX}pg_pool_connections`, 'Connections in the PostgreSQL pool, open in all.', () => poolStats().total);
      gauge(`${PREFIX}pg_pool_idle_connections`, 'Connections in the PostgreSQL pool that are idle.', () => poolStats().idle);
      gauge(`${PREFIX}pg_pool_waiting_clients`, 'Store calls waiting for a free connection of the PostgreSQL pool.', () => poolStats().waiting);
    }
    // Read from the store on each scrape (one query on PostgreSQL): exact across daemons, and
    // nothing to keep in step with uploads, expiry sweeps and resets. One read serves both
    // gauges (the registry collects them together). A store that does not answer gives NaN
    // (unknown) for that scrape rather than a stale number.
    let reading: Promise<{ count: number; bytes: number }> | undefined;
    const read = () =>
      (reading ??= store.liveUploadTotals(services.now().getTime()).catch(() => ({ count: NaN, bytes: NaN })));
    new Gauge({
      name: `${PREFIX}uploads_live`,
      help: 'Live (unexpired) uploads in the store, over every account (every daemon on a shared database).',
      registers,
      async collect() {
        this.set((await read()).count);
      },
    });
    new Gauge({
      name: `${PREFIX}uploads_live_bytes`,
      help: 'Bytes of those live uploads.',
      registers,
      async collect() {
        const totals = read();
        reading = undefined;
        this.set((await totals).bytes);
      },
    });
  }

  /** The hooks that count every answer. Installed before the routes, at the app's root. */
  install(app: FastifyInstance): void {
    // Callback-style hooks: no promise per hook per request (the cost is measured by
    // `npm run bench:daemon`, docs/PERFORMANCE.md).
    app.addHook('preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      guarded(this, this.countDetections, request, reply, payload);
      done(null, payload);
    });
    app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      guarded(this, this.countError, request, reply, payload);
      done(null, payload);
    });
    app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      guarded(this, this.countAnswer, request, reply, undefined);
      done();
    });
  }

  private countDetections(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    if (reply.statusCode === 200 && request.method === 'POST' && routeOf(request) === '/v1/detect') {
      const matches = (payload as { matches?: { check?: unknown; result?: unknown }[] } | null)?.matches;
      if (Array.isArray(matches)) {
        for (const match of matches) {
          const check = typeof match.check === 'string' && DETECTORS.has(match.check) ? match.check : 'other';
          const result = typeof match.result === 'string' && RESULTS.has(match.result) ? match.result : 'other';
          this.detections.cell(`${check} ${result}`, () => ({ check, result })).value += 1;
        }
      }
    }
  }

  private countError(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      const type = ERROR_TYPE_AT_START.exec(payload)?.[1];
      // Error pages (HTML) have no type; they are counted by status in http_requests_total.
      if (type !== undefined) {
        const route = routeOf(request);
        const known = ERRORS.has(type) ? type : 'other';
        this.errors.cell(`${route} ${known}`, () => ({ route, type: known })).value += 1;
      }
    }
  }

  private countAnswer(request: FastifyRequest, reply: FastifyReply): void {
    const route = routeOf(request);
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    const status = reply.statusCode;
    this.requests.cell(`${method} ${route} ${status}`, () => ({ method, route, status: String(status) })).value += 1;
    if (route === '/v1/detect' && status === 200) {
      const source = detectSource(request);
      if (source) this.detectSeconds.cell(source, () => ({ source })).observe(reply.elapsedTime / 1000);
    }
  }

  /** GET /metrics on the daemon's own address, for the holder of the admin token only. */
  route(app: FastifyInstance, adminTokenSha256: string): void {
    const matches = adminTokenMatcher(adminTokenSha256);
    app.get(
      '/metrics',
      {
        schema: { hide: true },
        onRequest: async (request: FastifyRequest) => {
          const header = request.headers.authorization;
          const token = typeof header === 'string' && /^Bearer /i.test(header) ? header.slice(7).trim() : '';
          if (!matches(token)) {
            throw new ApiError(
              'authentication_error',
              "The metrics need the admin token: send the data dir's admin.token as Authorization: Bearer <token>, or scrape the --metrics-listen address.",
            );
          }
        },
      },
      async (_request, reply) => {
        reply.header('content-type', this.registry.contentType).header('cache-control', 'no-store');
        return this.text();
      },
    );
  }

  /** The exposition text: this app's metrics, then the process's. */
  async text(): Promise<string> {
    return (await this.registry.metrics()) + (await processMetrics().metrics());
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
