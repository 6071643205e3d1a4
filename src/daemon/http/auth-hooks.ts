// Bearer-key authentication (SPEC 5, CONTRACT 401 row) and the per-key burst gate. Both run as
// onRequest hooks, before the body is read: a request that will be refused costs no upload.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from './context.js';
import { ApiError } from '../contract/errors.js';
import { isWellFormedKey } from '../accounts/key-format.js';
import { rateLimitedError } from '../accounts/burst.js';

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
    const found = await services.accounts.authenticate(value);
    if (!found) throw new ApiError('authentication_error', 'The API key is unknown or has been revoked; create a new key.');
    request.auth = found;
    found.key.last_used_at = services.now().toISOString();
    await services.store.touchKey(found.key.id, found.key.last_used_at);
    // Not awaited: last_used_at is informational and rides along with the next write.
    services.store.commit().catch((err) => request.log.error({ err }, 'store write failed'));
  };
}

export function burstHook(services: Services) {
  return async function burstGate(request: FastifyRequest): Promise<void> {
    const { key, account } = request.auth!;
    // A forced error answer (test mode) takes no slot: it must count nothing, or ten forced 429s
    // would make the next real call a real one. A key really over its limit still gets the real
    // refusal, and the forced answer carries the window's headers as a real answer would.
    const forcedError = request.forcedAnswer !== null && request.forcedAnswer.kind !== 'delay';
    const decision = forcedError ? await services.burst.peek(key, account) : await services.burst.take(key, account);
    request.burstState = decision;
    if (!decision.allowed) throw rateLimitedError(decision.limit, decision.retryAfter);
  };
}
