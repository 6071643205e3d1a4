// GET /v1/detectors (SPEC 4.2): public, free, the catalogue as the engine has it (the hosted
// five with --catalogue hosted).
import type { FastifyInstance } from 'fastify';
import { detectorsBody } from '../../../detectors/catalogue.js';
import { INTERNAL_ERROR_MESSAGE } from '../../contract/errors.js';
import { FORCED_ANYWHERE } from '../../testing/forced-answers.js';
import { detectorsBodySchema, errorResponse, requestIdHeader, testResponseHeaders } from './schemas.js';

export async function detectorsRoute(app: FastifyInstance): Promise<void> {
  const body = JSON.stringify(detectorsBody(app.services.catalogue));
  app.get(
    '/v1/detectors',
    {
      schema: {
        operationId: 'listDetectors',
        summary: 'The detector catalogue',
        description: 'Public and free: no key needed.',
        tags: ['detection'],
        security: [],
        headers: testResponseHeaders(FORCED_ANYWHERE),
        response: {
          200: { description: 'The detectors this daemon runs', headers: { 'Request-Id': requestIdHeader }, content: { 'application/json': { schema: detectorsBodySchema, example: detectorsBody(app.services.catalogue) } } },
          '4XX': errorResponse('not_found (another path) or invalid_request', { not_found: { message: 'There is no route GET /v1/detector; see /docs for the API.' } }),
          500: errorResponse('internal_error', { internal_error: { message: INTERNAL_ERROR_MESSAGE } }),
        },
      },
    },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(body),
  );
}
