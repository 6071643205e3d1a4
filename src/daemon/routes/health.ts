// GET /healthz: answers from the main thread without touching the store or the workers, so it
// stays fast while detection runs (issue 3: within 50 ms under load).
import type { FastifyInstance } from 'fastify';

export async function healthRoute(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness',
        tags: ['daemon'],
        response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } } },
      },
    },
    async () => ({ status: 'ok' }),
  );
}
