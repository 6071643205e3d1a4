// GET /healthz: answers from the main thread without touching the workers, so it stays fast
// while detection runs (issue 3: within 50 ms under load). The embedded store cannot be
// unreachable, so it is not asked; a database store is asked with a bounded ping, and a store
// that does not answer makes the daemon unhealthy (503), so a load balancer routes around it.
// GET /readyz (issue 27): ready to take traffic, which /healthz (alive) does not say: the store
// answers, detection workers are up, and the daemon is not draining for a stop. A load balancer
// or an orchestrator's readiness probe asks it; /healthz stays the liveness probe, 200 while
// draining, so the daemon is not restarted in the middle of its own stop.
import type { FastifyInstance } from 'fastify';
import { requestIdHeader } from './schemas.js';

/** /readyz's body: each check by name, and nothing of the internals (no address, no errno). */
const readinessProperties = {
  store: { type: 'string', enum: ['up', 'down'], description: 'the store answers (a PostgreSQL store: a bounded query; the embedded store: always up)' },
  workers: { type: 'string', enum: ['up', 'down'], description: 'at least one detection worker has started and is alive' },
  draining: { type: 'boolean', description: 'true once a stop has begun (SIGTERM, SIGINT, `provenance daemon stop`)' },
} as const;

function readinessResponse(status: 'ready' | 'not_ready', description: string, example: object) {
  return {
    description,
    headers: { 'Request-Id': requestIdHeader },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['status', 'store', 'workers', 'draining'],
          additionalProperties: false,
          properties: { status: { type: 'string', enum: [status] }, ...readinessProperties },
        },
        example,
      },
    },
  };
}

export async function healthRoute(app: FastifyInstance): Promise<void> {
  const store = app.services.store;
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        summary: 'Liveness',
        description: 'Public; answers without touching the workers. 503 while a PostgreSQL store does not answer.',
        tags: ['daemon'],
        security: [],
        response: {
          200: {
            description: 'The daemon is up',
            headers: { 'Request-Id': requestIdHeader },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['status', 'test_mode'],
                  additionalProperties: false,
                  properties: {
                    status: { type: 'string', enum: ['ok'] },
                    test_mode: { type: 'boolean', description: 'true when the daemon runs with --test-mode (test clock, forced answers)' },
                  },
                },
                example: { status: 'ok', test_mode: false },
              },
            },
          },
          503: {
            description: 'The store does not answer (a PostgreSQL server down or restarting)',
            headers: { 'Request-Id': requestIdHeader },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['status', 'store', 'test_mode'],
                  additionalProperties: false,
                  properties: {
                    status: { type: 'string', enum: ['unavailable'] },
                    store: { type: 'string', enum: ['down'] },
                    test_mode: { type: 'boolean' },
                  },
                },
                example: { status: 'unavailable', store: 'down', test_mode: false },
              },
            },
          },
        },
      },
    },
    async (_request, reply) => {
      const testMode = app.services.testing.enabled;
      if (store.healthy && !(await store.healthy())) return reply.code(503).send({ status: 'unavailable', store: 'down', test_mode: testMode });
      return { status: 'ok', test_mode: testMode };
    },
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'ready',
        summary: 'Readiness',
        description:
          'Public. 200 while the daemon takes traffic: the store answers, detection workers are up, and no stop has begun. 503 names the check that failed; from the moment a stop begins (SIGTERM) it is 503 with `draining: true` while requests in flight finish (docs/DAEMON.md, "Health, readiness and stopping").',
        tags: ['daemon'],
        security: [],
        response: {
          200: readinessResponse('ready', 'Ready to take traffic', { status: 'ready', store: 'up', workers: 'up', draining: false }),
          503: readinessResponse('not_ready', 'Not ready: the store does not answer, no detection worker is up, or the daemon is stopping', {
            status: 'not_ready',
            store: 'up',
            workers: 'up',
            draining: true,
          }),
        },
      },
    },
    async (_request, reply) => {
      const { drain, pool } = app.services;
      drain.noteProbe();
      // Every check is made and named, so an operator sees each one that fails, not the first.
      const draining = drain.draining;
      const workers = pool.workersUp() ? 'up' : 'down';
      const storeUp = !store.healthy || (await store.healthy());
      const body = { store: storeUp ? 'up' : 'down', workers, draining };
      // Draining may have begun while the store was asked: the answer must not say ready then.
      if (storeUp && workers === 'up' && !draining && !drain.draining) return { status: 'ready', ...body };
      return reply.code(503).send({ status: 'not_ready', ...body, draining: drain.draining });
    },
  );
}
