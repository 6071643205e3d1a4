// GET /dashboard and its forms: create a key (shown once, on the next view), revoke a key.
// Keys are made and revoked by the same Accounts module as `provenance daemon keys ...`; a
// revocation takes effect in memory at once, so the key's very next API call gets 401.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminError, MAX_ACTIVE_KEYS } from '../../accounts/accounts.js';
import type { AccountRecord } from '../../contract/api-types.js';
import { sameToken, sessionCsrfToken } from '../../web/csrf.js';
import { dashboardPage } from '../../web/pages/dashboard.js';
import { errorPage } from '../../web/pages/signin.js';
import { limitsOf } from '../../accounts/plans.js';
import { SESSION_COOKIE } from '../../web/sessions.js';
import type { StoredSession } from '../../store/store.js';
import { baseUrlOf, clearCookie, formField, readCookies, redirect, sendHtml } from '../../web/web-kit.js';
import { HIDDEN, type Web } from './web-context.js';

export { MAX_ACTIVE_KEYS };
const NAME_MAX = 60;
/** Rows of the dashboard's "Recent requests". */
const RECENT_REQUESTS = 20;

interface Signed {
  token: string;
  session: StoredSession;
  account: AccountRecord;
  csrf: string;
}

export function dashboardRoutes(app: FastifyInstance, web: Web): void {
  const { services, sessions } = web;
  const { store, accounts, quota } = services;

  /** The signed-in account, or a redirect to the sign-in page (and the stale cookie cleared). */
  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<Signed | undefined> {
    const token = readCookies(request)[SESSION_COOKIE];
    const session = await sessions.find(token);
    const account = session && (await accounts.accountById(session.account));
    if (session && account) {
      request.sessionAccountId = account.id; // the request log's account (request-log.ts)
      return { token: token!, session, account, csrf: sessionCsrfToken(token!) };
    }
    if (token) clearCookie(request, reply, SESSION_COOKIE, { secure: web.secureCookies });
    redirect(reply, token ? '/signin?expired' : '/signin?next=/dashboard');
    return undefined;
  }

  /** A form POST of a signed-in account with its CSRF token, or the refusal already sent. */
  async function signedForm(request: FastifyRequest, reply: FastifyReply): Promise<Signed | undefined> {
    const signed = await signedIn(request, reply);
    if (!signed) return undefined;
    if (!sameToken(formField(request, 'csrf'), signed.csrf)) {
      sendHtml(
        reply,
        403,
        errorPage({
          title: 'Form refused',
          message: 'This form did not come from your dashboard, or the page is out of date (its security token did not match). Nothing was changed; reload the dashboard and try again.',
          user: { email: signed.account.email, csrf: signed.csrf },
        }),
      );
      return undefined;
    }
    return signed;
  }

  app.get('/dashboard', HIDDEN, async (request, reply) => {
    const signed = await signedIn(request, reply);
    if (!signed) return reply;
    const { account, token, csrf } = signed;
    const flash = sessions.takeFlash(token) ?? {};
    return sendHtml(
      reply,
      200,
      dashboardPage({
        account,
        usage: await quota.state(account),
        requestsPerMinute: limitsOf(account).requestsPerMinute,
        keys: await accounts.keysOfAccount(account.id),
        ...flash,
        csrf,
        baseUrl: baseUrlOf(request, web.publicUrl),
        testMode: services.testing.enabled,
        recentRequests: services.testing.log.list({ account: account.email, limit: RECENT_REQUESTS }).reverse(),
      }),
    );
  });

  app.post('/dashboard/keys', HIDDEN, async (request, reply) => {
    const signed = await signedForm(request, reply);
    if (!signed) return reply;
    const { account, token } = signed;
    const keys = await accounts.keysOfAccount(account.id);
    const name = (formField(request, 'name') ?? '').trim();
    if (name.length > NAME_MAX || /[\p{Cc}\p{Cf}]/u.test(name)) {
      sessions.setFlash(token, { error: `A key name is at most ${NAME_MAX} characters, without control characters.` });
      return redirect(reply, '/dashboard');
    }
    if (keys.filter((k) => !k.revoked_at).length >= MAX_ACTIVE_KEYS) {
      sessions.setFlash(token, { error: `An account has at most ${MAX_ACTIVE_KEYS} active keys; revoke one you no longer use first.` });
      return redirect(reply, '/dashboard');
    }
    let newKey;
    try {
      newKey = await accounts.createKey(account.email, name || `key ${keys.length + 1}`);
    } catch (err) {
      // The limit, checked again atomically by the store: another create took the last place.
      if (!(err instanceof AdminError)) throw err;
      sessions.setFlash(token, { error: `An account has at most ${MAX_ACTIVE_KEYS} active keys; revoke one you no longer use first.` });
      return redirect(reply, '/dashboard');
    }
    await store.commit();
    sessions.setFlash(token, { newKey });
    return redirect(reply, '/dashboard');
  });

  app.post('/dashboard/keys/:id/revoke', HIDDEN, async (request, reply) => {
    const signed = await signedForm(request, reply);
    if (!signed) return reply;
    const { account, token, csrf } = signed;
    const { id } = request.params as { id: string };
    let revoked;
    try {
      revoked = await accounts.revokeKeyOf(account.id, id);
    } catch (err) {
      if (!(err instanceof AdminError)) throw err;
      return sendHtml(reply, 404, errorPage({ title: 'No such key', message: 'This account has no such key.', user: { email: account.email, csrf } }));
    }
    await store.commit();
    sessions.setFlash(token, { notice: `Revoked “${revoked.name}” (${revoked.prefix}…). Requests with it now get 401.` });
    return redirect(reply, '/dashboard');
  });
}
