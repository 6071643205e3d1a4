// GET /v1/detectors (SPEC 4.2): public, free, the catalogue as the engine has it.
import type { FastifyInstance } from 'fastify';
import { detectorsBody } from '../../detectors/catalogue.js';
import { detectorsBodySchema } from './schemas.js';

export async function detectorsRoute(app: FastifyInstance): Promise<void> {
  const body = JSON.stringify(detectorsBody());
  app.get(
    '/v1/detectors',
    { schema: { summary: 'The detector catalogue', tags: ['detection'], response: { 200: detectorsBodySchema } } },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(body),
  );
}
