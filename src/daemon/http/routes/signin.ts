// GET/POST /signin, GET/POST /signin/verify, POST /signout.
//
// The form answers the same for every well-formed address (CONTRACT): nothing is looked up
// before the link is opened, so neither the page nor its timing says whether an account exists.
// Opening the link (GET) shows a "Sign in as <address>" button and changes nothing; the button's
// POST, with the double-submit CSRF token, uses the link up and signs in (issue 26: a GET that
// signed in let another site swap a browser into the other site's own account). The first
// sign-in creates the account (free plan, first key).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminError, normaliseEmail } from '../../accounts/accounts.js';
import { CSRF_COOKIE, isCsrfSecret, newCsrfSecret, sameToken, sessionCsrfToken } from '../../web/csrf.js';
import { confirmPage, errorPage, linkProblemPage, refusedPage, sentPage, signinPage } from '../../web/pages/signin.js';
import { SESSION_COOKIE } from '../../web/sessions.js';
import { clientKey } from '../../web/signin-limits.js';
import type { LinkOutcome } from '../../web/signin-links.js';
import { baseUrlOf, clearCookie, formField, readCookies, redirect, safeNext, sendHtml, setCookie } from '../../web/web-kit.js';
import { HIDDEN, type Web } from './web-context.js';
import { scrubText } from '../log-scrub.js';

/** The double-submit secret of a visitor who is not signed in, set as a cookie when new. */
export function anonymousCsrf(request: FastifyRequest, reply: FastifyReply, secure = false): string {
  const existing = readCookies(request)[CSRF_COOKIE];
  if (isCsrfSecret(existing)) return existing;
  const secret = newCsrfSecret();
  setCookie(request, reply, CSRF_COOKIE, secret, { secure });
  return secret;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

export function signinRoutes(app: FastifyInstance, web: Web): void {
  const { services, sessions, links, limits, mailer, secureCookies: secure } = web;
  const { store, accounts, now } = services;
  const csrfOf = (request: FastifyRequest, reply: FastifyReply) => anonymousCsrf(request, reply, secure);

  app.get('/signin', HIDDEN, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const session = await sessions.find(readCookies(request)[SESSION_COOKIE]);
    if (session) return redirect(reply, safeNext(query.next), 303);
    return sendHtml(
      reply,
      200,
      signinPage({
        csrf: csrfOf(request, reply),
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
          csrf: csrfOf(request, reply),
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

    // The client's address (a trusted proxy's last hop; an IPv6 client by its /64).
    const decision = limits.take(email, clientKey(request.ip), now().getTime());
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
      // Never the link: it is a credential. The mailer's own error says what failed, with the
      // recipient's address masked (nodemailer names it: "<me@example.com>: Recipient rejected").
      request.log.error({ err: { message: scrubText((err as Error).message), code: (err as { code?: string }).code } }, 'sign-in mail not sent');
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

  /** The page of a link that cannot be used (unknown 404; used or expired 410), with a form for a new one. */
  async function linkProblem(request: FastifyRequest, reply: FastifyReply, outcome: Exclude<LinkOutcome, { ok: true }>) {
    const signedIn = Boolean(await sessions.find(readCookies(request)[SESSION_COOKIE]));
    const page = linkProblemPage({
      problem: outcome.problem,
      csrf: csrfOf(request, reply),
      email: outcome.problem === 'unknown' ? undefined : outcome.email,
      signedIn,
    });
    return sendHtml(reply, outcome.problem === 'unknown' ? 404 : 410, page);
  }

  /** The link's page: "Sign in as <address>". The link stays unused, no session is made. */
  async function confirm(request: FastifyRequest, reply: FastifyReply, token: string, email: string, status: number) {
    const session = await sessions.find(readCookies(request)[SESSION_COOKIE]);
    const current = session && (await accounts.accountById(session.account));
    return sendHtml(reply, status, confirmPage({ email, token, csrf: csrfOf(request, reply), signedInAs: current?.email }));
  }

  app.get('/signin/verify', HIDDEN, async (request, reply) => {
    const { token } = request.query as { token?: unknown };
    const outcome = await links.peek(token);
    if (!outcome.ok) return linkProblem(request, reply, outcome);
    return confirm(request, reply, token as string, outcome.email, 200);
  });

  app.post('/signin/verify', HIDDEN, async (request, reply) => {
    const token = formField(request, 'token');
    const cookies = readCookies(request);
    const cookie = cookies[CSRF_COOKIE];
    if (!isCsrfSecret(cookie) || !sameToken(formField(request, 'csrf'), cookie)) {
      // Not this browser's own form (another site's, or a cookie lost): the link stays unused,
      // and the page asks again, with this browser's token, whose address it would sign in as.
      const outcome = await links.peek(token);
      if (!outcome.ok) return linkProblem(request, reply, outcome);
      return confirm(request, reply, token!, outcome.email, 403);
    }
    const outcome = await links.consume(token);
    if (!outcome.ok) return linkProblem(request, reply, outcome);
    const { account, firstKey } = await accounts.signIn(outcome.email);
    request.sessionAccountId = account.id; // the request log's account (request-log.ts)
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
    setCookie(request, reply, SESSION_COOKIE, sessionToken, { maxAge: Math.floor(sessions.ttlMs / 1000), secure });
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
    clearCookie(request, reply, SESSION_COOKIE, { secure });
    return redirect(reply, '/signin?signed_out');
  });
}
