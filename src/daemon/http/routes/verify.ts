// GET /verify and POST /verify/detect (issue 25): the Verify page of signed-in users. The page
// sends each file's bytes with the session cookie and its CSRF token (the pages never hold an
// API key); the check then follows POST /v1/detect step for step with the same services: the
// burst gate (the account's per-minute limit, in a window of the page's own, as each key has
// its own), one call reserved with quota.reserve, the detect pool, the call made durable by
// store.commit before the answer, and given back when the check fails. The card is drawn by
// src/report/card.ts, the renderer of `check --html`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitedError } from '../../accounts/burst.js';
import { ApiError, INTERNAL_ERROR_MESSAGE } from '../../contract/errors.js';
import type { StoredKey } from '../../store/store.js';
import { sameToken, sessionCsrfToken } from '../../web/csrf.js';
import { VERIFY_CSS, VERIFY_SCRIPT, verifyPage } from '../../web/pages/verify.js';
import { SESSION_COOKIE } from '../../web/sessions.js';
import { clearCookie, readCookies, redirect, sendHtml } from '../../web/web-kit.js';
import { resolveChecks } from '../../../engine/checks.js';
import { detailCard } from '../../../report/card.js';
import { cardExtras } from '../../../report/extras.js';
import { BASE_CSS, CARD_CSS } from '../../../report/styles.js';
import { HIDDEN, type Web } from './web-context.js';

/** The most a page sends at once: the /v1 limit of a file (upload + detect), 25 MB. */
export const VERIFY_MAX_BYTES = 25 * 1024 * 1024;

const CARD_STYLESHEET = `${BASE_CSS}${CARD_CSS}${VERIFY_CSS}`;

/** The page's pictures are data: URLs made by the daemon (thumbnails); nothing else changes. */
const VERIFY_CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function verifyRoutes(app: FastifyInstance, web: Web): void {
  const { services, sessions } = web;
  const { accounts, quota, store, pool } = services;

  async function signedIn(request: FastifyRequest) {
    const token = readCookies(request)[SESSION_COOKIE];
    const session = await sessions.find(token);
    const account = session && (await accounts.accountById(session.account));
    if (!session || !account) return undefined;
    request.sessionAccountId = account.id; // the request log's account (request-log.ts)
    return { token: token!, account, csrf: sessionCsrfToken(token!) };
  }

  app.get('/assets/card.css', HIDDEN, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CARD_STYLESHEET),
  );
  app.get('/assets/verify.js', HIDDEN, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(VERIFY_SCRIPT),
  );

  app.get('/verify', HIDDEN, async (request, reply) => {
    const signed = await signedIn(request);
    if (!signed) {
      if (readCookies(request)[SESSION_COOKIE]) clearCookie(request, reply, SESSION_COOKIE, { secure: web.secureCookies });
      // Signed in, the link's page brings the user back here (safeNext keeps /verify).
      return redirect(reply, '/signin?next=/verify');
    }
    reply.header('content-security-policy', VERIFY_CSP);
    return sendHtml(reply, 200, verifyPage({ email: signed.account.email, csrf: signed.csrf, usage: await quota.state(signed.account), maxBytes: VERIFY_MAX_BYTES }));
  });

  // Raw bytes, in a context of their own: the other pages keep taking HTML forms only.
  app.register(async (child) => {
    child.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: VERIFY_MAX_BYTES }, (_request, body, done) => done(null, body));

    const answer = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(body);

    child.post('/verify/detect', { ...HIDDEN, bodyLimit: VERIFY_MAX_BYTES }, async (request, reply) => {
      const signed = await signedIn(request);
      if (!signed) return answer(reply, 401, { error: { type: 'authentication_error', message: 'You are signed out; sign in again and reload this page.' } });
      if (!sameToken(request.headers['x-csrf-token'], signed.csrf)) {
        return answer(reply, 403, { error: { type: 'forbidden', message: 'This request did not come from your Verify page (its security token did not match); reload the page.' } });
      }
      const { account } = signed;
      const q = async (used?: number) => {
        const s = await quota.state(account, used);
        return { used: s.used, limit: s.limit, remaining: s.remaining };
      };
      try {
        // Burst, as the onRequest gate of /v1/detect, in a window of the page's own.
        const burst = await services.burst.take({ id: `web:${account.id}` } as StoredKey, account);
        if (!burst.allowed) throw rateLimitedError(burst.limit, burst.retryAfter);
        const bytes = request.body;
        if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new ApiError('invalid_request', 'The file is empty (zero bytes).', 'file');
        // Validated: one call reserved, then the check; the call is on disk before the answer.
        const reservation = await quota.reserve(account);
        let result;
        try {
          // keepBytes: the card's pictures are made from these bytes after the check. Copying
          // them to the worker costs the file's size for as long as the check runs; the other
          // ways cost more: pictures made before the check would be made for files without
          // any (and the manifest's own need the check's answer), and pictures made in the
          // worker would load the image library into every worker (issue 34).
          result = await pool.detect(bytes, resolveChecks(undefined, services.catalogue), { keepBytes: true });
          await store.commit();
        } catch (err) {
          await quota.release(reservation);
          store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
          throw err;
        }
        const name = fileName(request.headers['x-file-name']);
        // Without its pictures the card still tells the result (the call is counted): answer
        // it, and say in the log why they are missing.
        const extras = await cardExtras(bytes, result).catch((err: unknown) => {
          request.log.error({ err }, "verify: the card's pictures could not be made");
          return {};
        });
        return answer(reply, 200, { html: detailCard(name, result, extras, { remote: true, id: `card-${result.id}` }), result, quota: await q(reservation.used) });
      } catch (err) {
        if (err instanceof ApiError) {
          if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
          return answer(reply, err.statusCode, { ...err.body(), quota: await q().catch(() => undefined) });
        }
        request.log.error({ err }, 'verify failed');
        return answer(reply, 500, { error: { type: 'internal_error', message: INTERNAL_ERROR_MESSAGE } });
      }
    });
  });
}

/** The name the page sent (URI-encoded), for the card's heading only; never a path on this machine. */
function fileName(header: unknown): string {
  let name = 'the dropped file';
  if (typeof header === 'string' && header.length <= 1024) {
    try {
      name = decodeURIComponent(header) || name;
    } catch {
      /* not URI-encoded: keep the default */
    }
  }
  return name.slice(0, 255);
}
