// GET/POST /signin, GET /signin/verify, POST /signout.
//
// The form answers the same for every well-formed address (CONTRACT): nothing is looked up
// before the link is opened, so neither the page nor its timing says whether an account exists.
// Opening the link creates the account (free plan, first key) at its first sign-in.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminError, normaliseEmail } from '../../accounts/accounts.js';
import { CSRF_COOKIE, isCsrfSecret, newCsrfSecret, sameToken, sessionCsrfToken } from '../../web/csrf.js';
import { errorPage, linkProblemPage, refusedPage, sentPage, signinPage } from '../../web/pages/signin.js';
import { SESSION_COOKIE } from '../../web/sessions.js';
import { baseUrlOf, clearCookie, formField, readCookies, redirect, safeNext, sendHtml, setCookie } from '../../web/web-kit.js';
import { HIDDEN, type Web } from './web-context.js';

/** The double-submit secret of a visitor who is not signed in, set as a cookie when new. */
export function anonymousCsrf(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readCookies(request)[CSRF_COOKIE];
  if (isCsrfSecret(existing)) return existing;
  const secret = newCsrfSecret();
  setCookie(request, reply, CSRF_COOKIE, secret);
  return secret;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

export function signinRoutes(app: FastifyInstance, web: Web): void {
  const { services, sessions, links, limits, mailer } = web;
  const { store, accounts, now } = services;

  app.get('/signin', HIDDEN, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const session = await sessions.find(readCookies(request)[SESSION_COOKIE]);
    if (session) return redirect(reply, safeNext(query.next), 303);
    return sendHtml(
      reply,
      200,
      signinPage({
        csrf: anonymousCsrf(request, reply),
        next: safeNext(query.next),
        notice: query.signed_out !== undefined ? 'You have signed out.' : undefined,
        error: query.expired !== undefined ? 'Your session has ended; sign in again.' : undefined,
      }),
    );
  });

  app.post('/signin', HIDDEN, async (request, reply) => {
    const typed = (formField(request, 'email') ?? '').trim().slice(0, 254);
    const cookie = readCookies(request)[CSRF_COOKIE];
    if (!isCsrfSecret(cookie) || !sameToken(formField(request, 'csrf'), cookie)) {
      return sendHtml(
        reply,
        403,
        refusedPage({
          title: 'Please send the form again',
          message:
            'This form has expired or did not come from this page (its security token did not match). Send it again; if this keeps happening, allow cookies for this site.',
          csrf: anonymousCsrf(request, reply),
          email: typed,
        }),
      );
    }
    let email: string;
    try {
      email = normaliseEmail(typed);
    } catch (err) {
      if (!(err instanceof AdminError)) throw err;
      // Control characters (NUL, ESC, BEL...) are refused by normaliseEmail and never echoed.
      const shown = typed.replace(/[\p{Cc}\p{Cf}]/gu, '');
      const message = shown === typed ? `“${typed}” is not an e-mail address.` : 'The address holds control characters; type it again.';
      return sendHtml(reply, 400, refusedPage({ title: 'Check the address', message, csrf: cookie, email: shown }));
    }

    const decision = limits.take(email, request.ip, now().getTime());
    if (!decision.allowed) {
      const wait = minutes(decision.retryAfter);
      const message =
        decision.by === 'address'
          ? `Too many sign-in links were requested for ${email} in the last few minutes. The links already sent still work for 15 minutes; you can ask for a new one in ${wait} minute${wait === 1 ? '' : 's'}.`
          : `Too many sign-in requests came from your network address. Try again in ${wait} minute${wait === 1 ? '' : 's'}.`;
      reply.header('retry-after', String(decision.retryAfter));
      return sendHtml(reply, 429, refusedPage({ title: 'Too many sign-in requests', message, csrf: cookie, email }));
    }

    const { token, expiresAt } = await links.issue(email, safeNext(formField(request, 'next')));
    await store.commit();
    const link = `${baseUrlOf(request, web.publicUrl)}/signin/verify?token=${token}`;
    try {
      await mailer.send({ to: email, link, expiresAt, date: now() });
    } catch (err) {
      // Never the link: it is a credential. The mailer's own error says what failed.
      request.log.error({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'sign-in mail not sent');
      return sendHtml(
        reply,
        503,
        errorPage({
          title: 'The sign-in mail could not be sent',
          message: 'The daemon could not hand the message to its mail server. Try again in a moment; the operator will find the reason in the daemon log.',
        }),
      );
    }
    return sendHtml(reply, 200, sentPage({ email, outbox: mailer.kind === 'outbox' }));
  });

  app.get('/signin/verify', HIDDEN, async (request, reply) => {
    const { token } = request.query as { token?: string };
    const cookies = readCookies(request);
    const outcome = await links.consume(token);
    if (!outcome.ok) {
      const signedIn = Boolean(await sessions.find(cookies[SESSION_COOKIE]));
      const page = linkProblemPage({
        problem: outcome.problem,
        csrf: anonymousCsrf(request, reply),
        email: outcome.problem === 'unknown' ? undefined : outcome.email,
        signedIn,
      });
      return sendHtml(reply, outcome.problem === 'unknown' ? 404 : 410, page);
    }
    const { account, firstKey } = await accounts.signIn(outcome.email);
    // A session already open in this browser (perhaps another account's) gives way to the new one.
    await sessions.destroy(cookies[SESSION_COOKIE]);
    const { token: sessionToken } = await sessions.create(account.id);
    if (firstKey) {
      sessions.setFlash(sessionToken, {
        newKey: firstKey,
        notice: `Welcome! Your account (${account.email}, free plan) is ready, with a first API key.`,
      });
    }
    await store.commit();
    setCookie(request, reply, SESSION_COOKIE, sessionToken, { maxAge: Math.floor(sessions.ttlMs / 1000) });
    return redirect(reply, outcome.next);
  });

  app.post('/signout', HIDDEN, async (request, reply) => {
    const token = readCookies(request)[SESSION_COOKIE];
    const session = await sessions.find(token);
    if (session && !sameToken(formField(request, 'csrf'), sessionCsrfToken(token!))) {
      const account = await accounts.accountById(session.account);
      return sendHtml(
        reply,
        403,
        errorPage({
          title: 'Sign-out refused',
          message: 'The form did not come from this dashboard (its security token did not match). Use the Sign out button on the dashboard.',
          user: account ? { email: account.email, csrf: sessionCsrfToken(token!) } : undefined,
        }),
      );
    }
    if (await sessions.destroy(token)) await store.commit();
    clearCookie(request, reply, SESSION_COOKIE);
    return redirect(reply, '/signin?signed_out');
  });
}
