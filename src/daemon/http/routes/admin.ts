// Operator endpoints used by `provenance daemon accounts|keys ...` while a daemon holds the data
// dir (so there is never a second writer). Guarded by the token the daemon writes to a 0600
// file in the data dir at start: whoever can read the data dir could edit the store anyway.
// Hidden from the OpenAPI document: they are not part of /v1.
import { bodyEnd } from '../../media/body-end.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminError } from '../../accounts/accounts.js';
import { ApiError } from '../../contract/errors.js';
import { adminTokenMatcher } from '../admin-auth.js';
import { ADMIN_TOKEN_HEADER } from '../../admin/admin-token.js';
import { ClockError, type ClockAction } from '../../testing/test-clock.js';
import { FixtureError, seedFixtures } from '../../testing/fixtures.js';
import { importState, resetState, TestModeRequiredError } from '../../testing/test-mode.js';
import { REQUEST_LOG_SIZE } from '../../testing/request-log.js';

/** Fixture and state documents can be large (every key and upload record of a state). */
const STATE_BODY = 64 * 1024 * 1024;


interface EmailBody {
  email: string;
  plan?: string;
  quota?: number;
  name?: string;
}

/**
 * The fields of an accounts or keys body, each a string or absent: anything else (a number, an
 * object, an array) is refused here, before Accounts words a message with it. A quota that is
 * not a number goes on as NaN, so that Accounts words its refusal as for `--quota abc` (which
 * the CLI sends as null).
 */
function emailBody(raw: unknown): EmailBody {
  const body = (raw ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_request', 'The body must be a JSON object.');
  for (const field of ['email', 'plan', 'name'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'string') throw new ApiError('invalid_request', `${field} must be a string.`, field);
  }
  const quota = body.quota === undefined ? undefined : typeof body.quota === 'number' ? body.quota : NaN;
  return { email: body.email as string, plan: body.plan as string | undefined, name: body.name as string | undefined, quota };
}

export function adminRoutes(tokenSha256: string) {
  const matches = adminTokenMatcher(tokenSha256);
  return async function admin(app: FastifyInstance): Promise<void> {
    const { accounts, store, testing, uploads } = app.services;

    app.addHook('onRequest', async (request: FastifyRequest) => {
      const token = request.headers[ADMIN_TOKEN_HEADER];
      if (!matches(typeof token === 'string' ? token : '')) {
        throw new ApiError('authentication_error', 'The admin token is missing or wrong; run the command on the machine that owns the data dir.');
      }
    });

    // A change is made only once the request has arrived whole: a route that reads no body (a
    // revoke) would otherwise act on the head alone, and a body whose framing then turns out to be
    // broken (lying chunk sizes) would get its 400 after the store had changed (found by the fuzz
    // suite, seed 334134227). Parsed bodies have arrived already; the rest are read to their end.
    app.addHook('preHandler', async (request: FastifyRequest) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') await bodyEnd(request.raw);
    });

    const run = async <T>(op: () => Promise<T>): Promise<T> => {
      let result: T;
      try {
        result = await op();
      } catch (err) {
        if (err instanceof AdminError) {
          throw new ApiError(err.code === 'not_found' ? 'not_found' : 'invalid_request', err.message);
        }
        if (err instanceof ClockError || err instanceof TestModeRequiredError || err instanceof FixtureError) {
          throw new ApiError('invalid_request', err.message);
        }
        throw err;
      }
      await store.commit();
      return result;
    };
    const body = (request: FastifyRequest) => emailBody(request.body);
    const hide = { schema: { hide: true } };

    app.post('/admin/v1/accounts', hide, async (request, reply) => {
      const { email, plan, quota } = body(request);
      return reply.code(201).send(await run(() => accounts.createAccount({ email, plan, quota })));
    });
    app.get('/admin/v1/accounts', hide, async () => ({ accounts: await accounts.listAccounts() }));
    app.post('/admin/v1/accounts/plan', hide, async (request) => {
      const { email, plan, quota } = body(request);
      return { account: await run(() => accounts.setPlan(email, { plan, quota })) };
    });
    app.post('/admin/v1/keys', hide, async (request, reply) => {
      const { email, name } = body(request);
      return reply.code(201).send({ key: await run(() => accounts.createKey(email, name)) });
    });
    app.get('/admin/v1/keys', hide, async (request) => {
      const email = (request.query as { email?: string }).email;
      return { keys: await run(() => accounts.listKeys(email)) };
    });
    app.post('/admin/v1/keys/:id/revoke', hide, async (request) => {
      const { id } = request.params as { id: string };
      return { key: await run(() => accounts.revokeKey(id)) };
    });

    // Test mode and state (issue 15).
    app.get('/admin/v1/clock', hide, async () => testing.clockView());
    app.post('/admin/v1/clock', hide, async (request) => run(() => testing.moveClock(store, (request.body ?? {}) as ClockAction)));
    app.post('/admin/v1/seed', { ...hide, bodyLimit: STATE_BODY }, async (request) => run(() => seedFixtures(store, request.body, app.services.now)));
    app.get('/admin/v1/export', hide, async () => store.exportState());
    app.post('/admin/v1/import', { ...hide, bodyLimit: STATE_BODY }, async (request) => run(() => importState(store, uploads.dir, request.body, testing)));
    app.post('/admin/v1/reset', hide, async (request) => {
      const keep = Boolean((request.body as { keep_accounts?: boolean } | undefined)?.keep_accounts);
      return run(() => resetState(store, uploads.dir, keep, testing));
    });
    app.get('/admin/v1/requests', hide, async (request) => {
      const q = request.query as { after?: string; account?: string; limit?: string };
      const after = q.after === undefined ? undefined : Number(q.after);
      const limit = q.limit === undefined ? undefined : Number(q.limit);
      if ((after !== undefined && !Number.isSafeInteger(after)) || (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0 && limit <= REQUEST_LOG_SIZE))) {
        throw new ApiError('invalid_request', `after must be a whole number and limit one from 1 to ${REQUEST_LOG_SIZE}.`);
      }
      return { test_mode: testing.enabled, requests: testing.log.list({ after, account: q.account, limit }) };
    });
  };
}
