// Operator endpoints used by `provenance daemon accounts|keys ...` while a daemon holds the data
// dir (so there is never a second writer). Guarded by the token the daemon writes to a 0600
// file in the data dir at start: whoever can read the data dir could edit the store anyway.
// Hidden from the OpenAPI document: they are not part of /v1.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminError } from '../accounts.js';
import { ApiError } from '../errors.js';
import { sha256Hex } from '../key-format.js';

export const ADMIN_TOKEN_HEADER = 'x-provenance-admin-token';

interface EmailBody {
  email: string;
  plan?: string;
  quota?: number;
  name?: string;
}

export function adminRoutes(tokenSha256: string) {
  const expected = Buffer.from(tokenSha256, 'hex');
  return async function admin(app: FastifyInstance): Promise<void> {
    const { accounts, store } = app.services;

    app.addHook('onRequest', async (request: FastifyRequest) => {
      const token = request.headers[ADMIN_TOKEN_HEADER];
      const given = Buffer.from(sha256Hex(typeof token === 'string' ? token : ''), 'hex');
      if (!timingSafeEqual(given, expected)) {
        throw new ApiError('authentication_error', 'The admin token is missing or wrong; run the command on the machine that owns the data dir.');
      }
    });

    const run = async <T>(op: () => T): Promise<T> => {
      let result: T;
      try {
        result = op();
      } catch (err) {
        if (err instanceof AdminError) {
          throw new ApiError(err.code === 'not_found' ? 'not_found' : 'invalid_request', err.message);
        }
        throw err;
      }
      await store.commit();
      return result;
    };
    const body = (request: FastifyRequest) => (request.body ?? {}) as EmailBody;
    const hide = { schema: { hide: true } };

    app.post('/admin/v1/accounts', hide, async (request, reply) => {
      const { email, plan, quota } = body(request);
      return reply.code(201).send(await run(() => accounts.createAccount({ email, plan, quota })));
    });
    app.get('/admin/v1/accounts', hide, async () => ({ accounts: accounts.listAccounts() }));
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
  };
}
