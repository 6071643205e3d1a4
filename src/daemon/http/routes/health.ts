// GET /healthz: answers from the main thread without touching the workers, so it stays fast
// while detection runs (issue 3: within 50 ms under load). The embedded store cannot be
// unreachable, so it is not asked; a database store is asked with a bounded ping, and a store
// that does not answer makes the daemon unhealthy (503), so a load balancer routes around it.
import type { FastifyInstance } from 'fastify';
import { requestIdHeader } from './schemas.js';

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
}
