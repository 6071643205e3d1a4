// GET /verify and POST /verify/detect (issue 25): the Verify page of signed-in users. The page
// sends each file's bytes with the session cookie and its CSRF token (the pages never hold an
// API key); the check then follows POST /v1/detect step for step with the same services: the
// burst gate (the account's per-minute limit, in a window of the page's own, as each key has
// its own), one call reserved with quota.reserve, the detect pool, the call made durable by
// store.commit before the answer, and given back when the check fails. The card is drawn by
// src/report/card.ts, the renderer of `check --html`.
import { Readable } from 'node:stream';
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
import { holdMedia } from '../media-hold.js';
import { keepTimedOutCall } from '../detect-timeout.js';
import { DetectTimeoutError } from '../../media/detect-pool.js';
import { bodyErrorStatus, declaredLength, readWholeBody } from '../whole-body.js';
import type { MediaHold } from '../../media/media-budget.js';
import { tooLargeMessage } from '../../contract/limits.js';
import { pixelReservation } from '../../../engine/pixel-reservation.js';

/** The most a page sends at once: the /v1 limit of a file (upload + detect), 25 MB. */
export const VERIFY_MAX_BYTES = 25 * 1024 * 1024;

const CARD_STYLESHEET = `${BASE_CSS}${CARD_CSS}${VERIFY_CSS}`;

/** The page's pictures are data: URLs made by the daemon (thumbnails); nothing else changes. */
const VERIFY_CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Who sent a request: the session's account and the CSRF token its pages carry. */
interface Signed {
  token: string;
  account: NonNullable<Awaited<ReturnType<Web['services']['accounts']['accountById']>>>;
  csrf: string;
}

export function verifyRoutes(app: FastifyInstance, web: Web): void {
  const { services, sessions } = web;
  const { accounts, quota, store, pool, mediaBudget } = services;

  async function signedIn(request: FastifyRequest): Promise<Signed | undefined> {
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

  // Raw bytes, in a context of their own: the other pages keep taking HTML forms only. The body
  // reaches the handler unread (a stream): who sent it is settled from the headers first, and
  // only then are its bytes taken from the media budget and read (issue 34: read before the
  // session was looked at, 48 anonymous 25 MB bodies took a daemon from 107 MB to 1.3 GB).
  app.register(async (child) => {
    child.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

    const answer = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(body);
    const quotaOf = async (account: Signed['account'], used?: number) => {
      const s = await quota.state(account, used);
      return { used: s.used, limit: s.limit, remaining: s.remaining };
    };
    /** An ApiError as the page reads it: the /v1 error body, the calls left, Retry-After. */
    const refuse = async (reply: FastifyReply, err: ApiError, account?: Signed['account']) => {
      if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
      return answer(reply, err.statusCode, { ...err.body(), quota: account ? await quotaOf(account).catch(() => undefined) : undefined });
    };
    const sender = new WeakMap<FastifyRequest, Signed>();

    /**
     * Before the body: the session cookie, the CSRF token (a header the page's script sends),
     * the burst gate. A refusal here is sent with the body unread; the error hook then closes
     * the connection (error-handler.ts) instead of reading up to 25 MB to keep it open.
     */
    async function admit(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const signed = await signedIn(request);
      if (!signed) return answer(reply, 401, { error: { type: 'authentication_error', message: 'You are signed out; sign in again and reload this page.' } });
      if (!sameToken(request.headers['x-csrf-token'], signed.csrf)) {
        return answer(reply, 403, { error: { type: 'forbidden', message: 'This request did not come from your Verify page (its security token did not match); reload the page.' } });
      }
      if (declaredLength(request.headers['content-length']) > VERIFY_MAX_BYTES) {
        return refuse(reply, new ApiError('media_too_large', tooLargeMessage(VERIFY_MAX_BYTES, 'the Verify page'), 'file'), signed.account);
      }
      // Burst, as the onRequest gate of /v1/detect, in a window of the page's own.
      const burst = await services.burst.take({ id: `web:${signed.account.id}` } as StoredKey, signed.account);
      if (!burst.allowed) return refuse(reply, rateLimitedError(burst.limit, burst.retryAfter), signed.account);
      sender.set(request, signed);
      return undefined;
    }

    child.post('/verify/detect', { ...HIDDEN, onRequest: admit }, async (request, reply) => {
      const signed = sender.get(request)!;
      const { account } = signed;
      let body: MediaHold | undefined;
      let pixels: MediaHold | undefined;
      try {
        // The body's bytes are taken from the media budget before it is read: its declared
        // length, or the most a page sends when it declares none.
        const declared = declaredLength(request.headers['content-length']);
        body = await holdMedia(mediaBudget, request, Number.isNaN(declared) ? VERIFY_MAX_BYTES : declared);
        let bytes: Buffer;
        try {
          bytes = request.body instanceof Readable ? await readWholeBody(request.body, request.headers['content-length'], VERIFY_MAX_BYTES) : Buffer.alloc(0);
        } catch (err) {
          const status = bodyErrorStatus(err);
          if (status === 413) throw new ApiError('media_too_large', tooLargeMessage(VERIFY_MAX_BYTES, 'the Verify page'), 'file');
          if (status === 400) throw new ApiError('invalid_request', 'The file did not arrive whole (the body ended before its Content-Length).', 'file');
          throw err;
        }
        body.shrink(bytes.length);
        if (bytes.length === 0) throw new ApiError('invalid_request', 'The file is empty (zero bytes).', 'file');
        // Validated: one call reserved, then the check; the call is on disk before the answer.
        const checks = resolveChecks(undefined, services.catalogue);
        const reservation = await quota.reserve(account);
        let result;
        try {
          // The pixels the checks may decode count too (engine/pixel-reservation.ts).
          const decoded = pixelReservation(bytes, checks);
          if (decoded > 0) pixels = await holdMedia(mediaBudget, request, decoded, body);
          // keepBytes: the card's pictures are made from these bytes after the check. Copying
          // them to the worker costs the file's size for as long as the check runs; the other
          // ways cost more: pictures made before the check would be made for files without
          // any (and the manifest's own need the check's answer), and pictures made in the
          // worker would load the image library into every worker (issue 34).
          result = await pool.detect(bytes, checks, { keepBytes: true, account: account.id });
          await store.commit();
        } catch (err) {
          // As on POST /v1/detect: the work was done, so a file stopped at the time limit keeps its call.
          if (err instanceof DetectTimeoutError) await keepTimedOutCall(err, { log: request.log, store, account: account.id, bytes: bytes.length, param: 'file', giveBack: () => quota.release(reservation) });
          await quota.release(reservation);
          store.commit().catch((e) => request.log.error({ err: e }, 'store write failed'));
          throw err;
        } finally {
          pixels?.release();
        }
        const name = fileName(request.headers['x-file-name']);
        // The card's pictures run inside the daemon's limits, as the detect did (issue 40: eleven
        // 20,000 x 20,000 PNG thumbnails in one manifest took a daemon to 1.5 GB): a turn of the
        // account's, the time limit, each decode bounded (media/thumbnail.ts) and its bytes taken
        // from the media budget first. A picture left out is named in the card's note.
        const holdPicture = async (cost: number, make: () => Promise<string | undefined>) => {
          const hold = await holdMedia(mediaBudget, request, cost, body);
          try {
            return await make();
          } finally {
            hold.release();
          }
        };
        // Without its pictures the card still tells the result (the call is counted): answer
        // it, and say in the log why they are missing.
        const extras = await pool.pictures(account.id, (signal) => cardExtras(bytes, result, { trust: services.trust, limits: { signal, around: holdPicture } })).catch((err: unknown) => {
          request.log.error({ err }, "verify: the card's pictures could not be made");
          return {};
        });
        return answer(reply, 200, { html: detailCard(name, result, extras, { remote: true, id: `card-${result.id}` }), result, quota: await quotaOf(account, reservation.used) });
      } catch (err) {
        if (err instanceof ApiError) return refuse(reply, err, account);
        request.log.error({ err }, 'verify failed');
        return answer(reply, 500, { error: { type: 'internal_error', message: INTERNAL_ERROR_MESSAGE } });
      } finally {
        body?.release();
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
