// The daemon's web pages (issue 4): sign-in by e-mail link and the dashboard. Server-rendered
// HTML, one stylesheet and one optional script from /assets/, no front-end build. Everything
// here is scoped to this plugin: the form parser, the security headers and an error handler
// that answers with a page (the /v1 routes keep the CONTRACT's JSON errors). Hidden from the
// OpenAPI document: these are not part of /v1.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../context.js';
import { createMailer, type Mailer } from '../../web/mailer.js';
import { SCRIPT, STYLESHEET } from '../../web/pages/assets.js';
import { errorPage } from '../../web/pages/signin.js';
import { Sessions } from '../../web/sessions.js';
import { SigninLimits, type SigninLimitOptions } from '../../web/signin-limits.js';
import { SigninLinks } from '../../web/signin-links.js';
import { hostAllowed } from '../../web/host-check.js';
import { httpsPublicUrl, sendHtml } from '../../web/web-kit.js';
import { dashboardRoutes } from './dashboard.js';
import { signinRoutes } from './signin.js';
import { verifyRoutes } from './verify.js';
import { HIDDEN, type Web } from './web-context.js';

export interface WebOptions {
  /** Base URL of the links in sign-in mails (behind a proxy: its public https URL). Default: the address the request reached. */
  publicUrl?: string;
  /** Send sign-in mails through this SMTP server (smtp:// or smtps://) instead of the outbox. */
  smtpUrl?: string;
  mailFrom?: string;
  /** The daemon's console: the outbox mailer says there where each mail was saved (never in the JSON log). */
  console?: NodeJS.WritableStream;
  /** true: print each link (and its address) on the console, which must be a person's terminal; otherwise only where a mail was saved. */
  linkOnConsole?: boolean;
  /** Replaces the mailer (tests). */
  mailer?: Mailer;
  signinLimits?: Partial<SigninLimitOptions>;
  sessionTtlMs?: number;
  linkTtlMs?: number;
}

const FORM_LIMIT = 8 * 1024;
const SWEEP_MS = 10 * 60 * 1000;

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export function webPages(options: WebOptions, dataDir: string) {
  return async function web(app: FastifyInstance): Promise<void> {
    const services = app.services;
    const { store, now } = services;
    const ctx: Web = {
      services,
      sessions: new Sessions(store, now, options.sessionTtlMs),
      links: new SigninLinks(store, now, options.linkTtlMs),
      limits: new SigninLimits(options.signinLimits),
      mailer:
        options.mailer ??
        createMailer({
          dataDir,
          smtpUrl: options.smtpUrl,
          mailFrom: options.mailFrom,
          console: options.console,
          linkOnConsole: options.linkOnConsole,
        }),
      publicUrl: options.publicUrl,
      secureCookies: httpsPublicUrl(options.publicUrl),
    };
    // `daemon reset` starts sign-in over too: a test suite's earlier link requests do not count.
    services.testing.onReset(() => ctx.limits.clear());

    // HTML forms only: a JSON or multipart body is refused (415) before any route reads it.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    // Only Host values this daemon serves (its address, localhost on loopback, --public-url's
    // host): a page that points its own domain at this address (DNS rebinding) gets 421.
    app.addHook('onRequest', async (request, reply) => {
      const socket = request.raw.socket;
      if (hostAllowed(request.headers.host, { localAddress: socket.localAddress, localPort: socket.localPort, publicUrl: options.publicUrl })) return;
      const message = 'This daemon does not serve the host name this request was sent to (its Host header). Open the pages at the daemon\'s own address or its public URL.';
      reply.code(421);
      if (request.url.startsWith('/verify/detect')) {
        return reply.type('application/json; charset=utf-8').send({ error: { type: 'invalid_request', message } });
      }
      return sendHtml(reply, 421, errorPage({ title: 'Wrong host name', message }));
    });

    app.addHook('onSend', async (_request, reply) => {
      // A page may set its own policy (Verify shows data: thumbnails); the rest get the default.
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
      // Pages carry one-time keys and CSRF tokens: never cached, never kept for the back button.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    });

    app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
      if (status >= 500) request.log.error({ err }, 'page failed');
      const message =
        status === 413
          ? 'The form was too large.'
          : status === 415
            ? 'This page takes HTML form posts (application/x-www-form-urlencoded).'
            : status < 500
              ? 'The request could not be read.'
              : 'The daemon failed on this page; this is a defect. The log has the details.';
      return sendHtml(reply, status, errorPage({ title: status < 500 ? 'Bad request' : 'Something went wrong', message }));
    });

    app.get('/assets/style.css', HIDDEN, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
    );
    app.get('/assets/pages.js', HIDDEN, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
    );

    signinRoutes(app, ctx);
    dashboardRoutes(app, ctx);
    verifyRoutes(app, ctx);

    // Expired sessions and old sign-in tokens leave the store at start and then every 10 minutes.
    const sweep = async () => {
      ctx.limits.sweep(now().getTime());
      const sessionsSwept = await ctx.sessions.sweep();
      const changed = (await ctx.links.sweep()) || sessionsSwept;
      if (changed) await store.commit();
    };
    const sweepLogged = () => sweep().catch((err) => app.log.error({ err }, 'session sweep failed'));
    await sweep();
    const timer = setInterval(sweepLogged, SWEEP_MS);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await ctx.mailer.close();
    });
  };
}
