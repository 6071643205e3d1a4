// The hooks of test mode and the request log: every response carries a Request-Id header (the
// id the request log keeps), every /v1 request is logged after its answer, and the
// Provenance-Test-Response header is read (refused outside test mode, and where the route could
// never really answer that way) and acted on: at once on a route without a key, else after
// authentication and the burst gate (see forcedAnswerHook), so a real 401 or a real burst 429
// still wins and the forced refusal carries the account's quota and burst headers as a real one
// would. The log marks a request forced only when the forced answer is what it got.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from './context.js';
import { forcedRefusal, parseForcedAnswer, TEST_RESPONSE_HEADER } from '../testing/forced-answers.js';
import { periodOf } from '../contract/time.js';
import { requestPath } from './request-path.js';

/** By the parsed path: an absolute-form target (`http://host/v1/detect`) is a /v1 request too. */
const isV1 = (url: string) => requestPath(url).startsWith('/v1/');

export function installTestHooks(app: FastifyInstance, services: Services): void {
  app.decorateRequest('forcedAnswer', null);
  app.decorateRequest('forcedAnswerError', null);
  app.decorateRequest('forcedApplied', null);
  app.decorateRequest('logInfo', null);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('request-id', request.id);
    if (!isV1(request.url)) return;
    request.logInfo = { at: services.now().toISOString(), errorType: null };
    const config = request.routeOptions.config;
    const afterAuth = config?.forcedAfterAuth ?? false;
    const route = `${request.method} ${request.routeOptions.url ?? requestPath(request.url).slice(0, 100)}`;
    try {
      request.forcedAnswer = parseForcedAnswer(request.headers[TEST_RESPONSE_HEADER], services.testing.enabled, config?.forcedAnswers, route) ?? null;
    } catch (err) {
      // On a route with a key the refusal waits for the key too, so it carries the limit headers.
      if (!afterAuth) throw err;
      request.forcedAnswerError = err as Error;
      return;
    }
    // Routes with a key act on it after authentication (their own onRequest hooks run later).
    if (request.forcedAnswer && !afterAuth) await applyForcedAnswer(request, services);
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (request.logInfo && reply.statusCode >= 400 && typeof payload === 'string') {
      try {
        request.logInfo.errorType = (JSON.parse(payload) as { error?: { type?: string } }).error?.type ?? null;
      } catch {
        // Not a CONTRACT body: logged without a type.
      }
    }
    return payload;
  });

  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.logInfo) return;
    const used = reply.getHeader('x-quota-used');
    services.testing.log.add({
      time: request.logInfo.at,
      method: request.method,
      path: requestPath(request.url).slice(0, 200),
      status: reply.statusCode,
      error_type: request.logInfo.errorType,
      key_prefix: request.auth?.key.prefix ?? null,
      account: request.auth?.account.email ?? null,
      quota_used: used === undefined ? null : Number(used),
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      request_id: request.id,
      forced: request.forcedApplied,
    });
  });
}

/** Route-level onRequest hook after authenticate (and the burst gate, where there is one). */
export function forcedAnswerHook(services: Services) {
  return async function forcedAnswer(request: FastifyRequest): Promise<void> {
    if (request.forcedAnswerError) throw request.forcedAnswerError;
    if (request.forcedAnswer) await applyForcedAnswer(request, services);
  };
}

/** A delay waits and lets the request run for real; an error answer is thrown, counting nothing. */
async function applyForcedAnswer(request: FastifyRequest, services: Services): Promise<void> {
  const forced = request.forcedAnswer!;
  request.forcedApplied = forced.value;
  if (forced.kind === 'delay') {
    await sleep(forced.ms);
    return;
  }
  const at = services.now();
  const { error, state } = forcedRefusal(forced.kind, request.auth?.account, at);
  if (request.auth && state.quotaUsed !== undefined) {
    // The limit headers then show the month used up, as on a real refusal; no call was taken,
    // and this reservation is never released (nothing was reserved).
    request.reservation = { accountId: request.auth.account.id, period: periodOf(at), used: state.quotaUsed, released: false };
  }
  if (state.burst) request.burstState = state.burst;
  throw error;
}
