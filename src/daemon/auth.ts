// Bearer-key authentication (SPEC 5, CONTRACT 401 row) and the per-key burst gate. Both run as
// onRequest hooks, before the body is read: a request that will be refused costs no upload.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from './context.js';
import { ApiError } from './errors.js';
import { isWellFormedKey } from './key-format.js';
import { limitsOf } from './plans.js';

const HOW = 'Send your API key in the header "Authorization: Bearer <API_KEY>".';

export function authenticateHook(services: Services) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (!header) throw new ApiError('authentication_error', `No API key was sent. ${HOW}`);
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match) throw new ApiError('authentication_error', `The Authorization header is not a Bearer key. ${HOW}`);
    const value = match[1]!;
    if (!isWellFormedKey(value)) {
      throw new ApiError(
        'authentication_error',
        'The API key is malformed (a key is "prv_" and 38 letters or digits, with a checksum); check that it was copied whole.',
      );
    }
    const found = services.accounts.authenticate(value);
    if (!found) throw new ApiError('authentication_error', 'The API key is unknown or has been revoked; create a new key.');
    request.auth = found;
    found.key.last_used_at = services.now().toISOString();
    // Not awaited: last_used_at is informational and rides along with the next write.
    services.store.commit().catch((err) => request.log.error({ err }, 'store write failed'));
  };
}

export function burstHook(services: Services) {
  return async function burstGate(request: FastifyRequest): Promise<void> {
    const { key, account } = request.auth!;
    const decision = services.burst.take(key.id, limitsOf(account).requestsPerMinute, services.now().getTime());
    request.burstState = decision;
    if (!decision.allowed) {
      throw new ApiError(
        'rate_limited',
        `This key made ${decision.limit} requests in the last 60 seconds, its plan's burst limit; retry in ${decision.retryAfter} seconds.`,
        undefined,
        decision.retryAfter,
      );
    }
  };
}
