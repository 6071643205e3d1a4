// Sign-in by e-mail link (issue 4, CONTRACT "Sign-in links"), over real HTTP on 127.0.0.1:
// the form and its CSRF token, the same answer for every address, single-use 15-minute links
// stored hashed, the session cookie's attributes, rate limits, no open redirect, session expiry
// and sign-out, and that neither tokens nor sessions reach the log or the store in clear.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/daemon/http/app.js';
import { sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { SESSION_COOKIE } from '../../src/daemon/web/sessions.js';
import { SigninLimits, SlidingWindow } from '../../src/daemon/web/signin-limits.js';
import { safeNext } from '../../src/daemon/web/web-kit.js';
import { readStoreFiles } from '../../src/daemon/store/file-store.js';
import { storeDiskText, storedText, tempDir } from './helpers.js';
import { csrfOf, fieldOf, openLink, requestLink, shownKey, signIn, webApp, webAppsClosedAfterEach, type WebApp } from './signin-helpers.js';

/** The same token with its last character changed (to a different one: a fixed letter would
 * sometimes be the one already there, 1 time in 64). */
function withLastCharChanged(token: string): string {
  return `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
}

const fresh = webAppsClosedAfterEach();

const pathOf = (link: string) => link.replace(/^https?:\/\/127\.0\.0\.1:\d+/, '');
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

describe('the sign-in form', () => {
  it('is a plain HTML form with a CSRF token in an HttpOnly, SameSite=Lax cookie', async () => {
    const t = await fresh();
    const c = t.client();
    const page = await c.get('/signin');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
    expect(page.text).toContain('<form method="post" action="/signin"');
    expect(page.text).toContain('name="viewport" content="width=device-width, initial-scale=1"');
    expect(page.text).toContain('href="/assets/style.css"');
    const cookie = page.setCookies.find((l) => l.startsWith('prv_csrf='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(csrfOf(page.text)).toBe(c.cookies.get('prv_csrf'));
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // The pages are not part of /v1 and stay out of its OpenAPI document.
    const doc = (await (await fetch(`${t.base}/v1/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(doc.paths).some((p) => /signin|dashboard|assets/.test(p))).toBe(false);
  });

  it('serves its stylesheet and script (small, cacheable, readable on a phone)', async () => {
    const t = await fresh();
    const css = await t.client().get('/assets/style.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.text).toContain('@media (max-width: 640px)');
    expect(css.text.length).toBeLessThan(8000);
    const js = await t.client().get('/assets/pages.js');
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('refuses a POST without the CSRF token, with a wrong one, or without the cookie (403, no mail)', async () => {
    const t = await fresh();
    const c = t.client();
    const token = csrfOf((await c.get('/signin')).text);
    expect((await c.post('/signin', { email: 'a@example.com' })).status).toBe(403);
    expect((await c.post('/signin', { email: 'a@example.com', csrf: withLastCharChanged(token) })).status).toBe(403);
    const stranger = t.client();
    const refused = await stranger.post('/signin', { email: 'a@example.com', csrf: token });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('security token did not match');
    // The pages take HTML form posts only.
    const json = await c.request('POST', '/signin', { body: JSON.stringify({ email: 'a@example.com', csrf: token }), headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    expect(json.headers.get('content-type')).toMatch(/^text\/html/);
    expect(t.mailer.sent).toHaveLength(0);
    // The refusal page carries a fresh form that works.
    expect((await stranger.post('/signin', { email: 'a@example.com', csrf: csrfOf(refused.text) })).status).toBe(200);
    expect(t.mailer.sent).toHaveLength(1);
  });

  it('says when the address is not an e-mail address', async () => {
    const t = await fresh();
    const c = t.client();
    const r = await c.post('/signin', { email: 'not-an-address', csrf: csrfOf((await c.get('/signin')).text) });
    expect(r.status).toBe(400);
    expect(r.text).toContain('is not an e-mail address');
    expect(t.mailer.sent).toHaveLength(0);
  });

  it('answers the same whether or not the address has an account', async () => {
    const t = await fresh();
    await t.account('known@example.com');
    const c = t.client();
    const csrf = csrfOf((await c.get('/signin')).text);
    const known = await c.post('/signin', { email: 'known@example.com', csrf });
    const unknown = await c.post('/signin', { email: 'nobody@example.com', csrf });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.text).toContain('Check your inbox');
    expect(unknown.text.replaceAll('nobody@example.com', 'known@example.com')).toBe(known.text);
    expect(known.setCookies).toEqual(unknown.setCookies);
    expect(t.mailer.sent.map((m) => m.to)).toEqual(['known@example.com', 'nobody@example.com']);
    // No account is created before the link is opened.
    expect(await t.app.services.accounts.findByEmail('nobody@example.com')).toBeUndefined();
  });
});

describe('the sign-in link', () => {
  it('opens a "Sign in as" page; its button creates the account on the free plan, sets the session cookie and redirects to the dashboard', async () => {
    const t = await fresh();
    const c = t.client();
    const link = await requestLink(t, c, 'New.User@Example.com');
    expect(link).toMatch(new RegExp(`^${t.base}/signin/verify\\?token=[A-Za-z0-9_-]{43}$`));
    expect(t.mailer.last().to).toBe('new.user@example.com');
    expect(t.mailer.last().expiresAt.toISOString()).toBe('2026-11-15T12:15:00.000Z');

    // The GET only shows the button: no session, no account yet.
    const { page, signedIn } = await openLink(c, link);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<button type="submit">Sign in as new.user@example.com</button>');
    expect(page.setCookies.some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    const r = signedIn!;
    expect(r.status).toBe(303);
    expect(r.location).toBe('/dashboard');
    const cookie = r.setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=43200/);
    expect(cookie).not.toMatch(/Secure/);
    const account = (await t.app.services.accounts.findByEmail('new.user@example.com'))!;
    expect(account.plan).toBe('free');
    expect(await t.app.services.accounts.keysOfAccount(account.id)).toHaveLength(1);

    // Token and session are on disk only as SHA-256.
    await t.app.services.store.commit();
    const disk = await storedText(t.app.services.store.location);
    const session = c.cookies.get(SESSION_COOKIE)!;
    expect(disk).not.toContain(tokenOf(link));
    expect(disk).toContain(sha256Hex(tokenOf(link)));
    expect(disk).not.toContain(session);
    expect(disk).toContain(sha256Hex(session));
    expect(disk).not.toContain(shownKey((await c.get('/dashboard')).text)!);
  });

  it('works once: opened twice it does not sign in, and offers a new link', async () => {
    const t = await fresh();
    const link = await requestLink(t, t.client(), 'twice@example.com');
    const first = t.client();
    expect((await openLink(first, link)).signedIn?.status).toBe(303);
    const second = t.client();
    const again = await second.get(pathOf(link));
    expect(again.status).toBe(410);
    expect(again.text).toContain('already been used');
    expect(again.setCookies.some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    expect(again.text).toContain('Send me a new link');
    expect(again.text).toContain('value="twice@example.com"');
    // The offered form works.
    const resent = await second.post('/signin', { email: 'twice@example.com', csrf: csrfOf(again.text) });
    expect(resent.status).toBe(200);
    expect(t.mailer.sent).toHaveLength(2);
    // Even in the browser that used it, a second opening says so (and points to the dashboard).
    const replay = await first.get(pathOf(link));
    expect(replay.status).toBe(410);
    expect(replay.text).toContain('go to your dashboard');
  });

  it('of two requests racing with one link, exactly one signs in', async () => {
    const t = await fresh();
    const link = await requestLink(t, t.client(), 'race@example.com');
    const clients = Array.from({ length: 8 }, () => t.client());
    const pages = await Promise.all(clients.map((c) => c.get(pathOf(link))));
    expect(pages.every((p) => p.status === 200)).toBe(true);
    const results = await Promise.all(clients.map((c, i) => c.post('/signin/verify', { token: fieldOf(pages[i]!.text, 'token')!, csrf: csrfOf(pages[i]!.text) })));
    expect(results.filter((r) => r.status === 303)).toHaveLength(1);
    expect(results.filter((r) => r.status === 410)).toHaveLength(7);
  });

  it('expires after 15 minutes', async () => {
    const t = await fresh();
    const c = t.client();
    const early = await requestLink(t, c, 'late@example.com');
    t.clock.advance(15 * 60 * 1000 - 1000);
    expect((await openLink(t.client(), early)).signedIn?.status).toBe(303);

    const late = await requestLink(t, c, 'late@example.com');
    t.clock.advance(15 * 60 * 1000);
    const r = await t.client().get(pathOf(late));
    expect(r.status).toBe(410);
    expect(r.text).toContain('has expired');
    expect(r.text).toContain('Send me a new link');
    expect(r.setCookies.some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
  });

  it('an unknown or malformed token shows a page offering a new link', async () => {
    const t = await fresh();
    for (const q of ['?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '?token=%3Cscript%3E', '']) {
      const r = await t.client().get(`/signin/verify${q}`);
      expect(r.status).toBe(404);
      expect(r.text).toContain('not valid');
      expect(r.text).toContain('<form method="post" action="/signin"');
      expect(r.text).not.toContain('<script>');
    }
  });

  it('points at the address the request reached, never at a Host header, or at --public-url', async () => {
    const t = await fresh();
    const c = t.client();
    const csrf = csrfOf((await c.get('/signin')).text);
    await c.post('/signin', { email: 'host@example.com', csrf }, { host: 'evil.example' });
    expect(t.mailer.last().link.startsWith(`${t.base}/signin/verify?token=`)).toBe(true);

    const p = await fresh({ publicUrl: 'https://provenance.example.com/' });
    const pc = p.client();
    await pc.post('/signin', { email: 'host@example.com', csrf: csrfOf((await pc.get('/signin')).text) });
    expect(p.mailer.last().link).toMatch(/^https:\/\/provenance\.example\.com\/signin\/verify\?token=/);
  });

  it('the cookie is Secure behind https only when the operator trusts the proxy', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const trusted = await fresh({}, { trustProxy: 1 });
    const tc = trusted.client();
    const form = await tc.get('/signin', https);
    expect(form.setCookies[0]).toMatch(/; Secure/);
    await tc.post('/signin', { email: 'tls@example.com', csrf: csrfOf(form.text) }, https);
    const r = (await openLink(tc, trusted.mailer.last().link, https)).signedIn!;
    expect(r.setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))).toMatch(/; Secure/);

    const direct = await fresh();
    const dc = direct.client();
    const form2 = await dc.get('/signin', https);
    expect(form2.setCookies[0]).not.toMatch(/Secure/);
    await dc.post('/signin', { email: 'tls@example.com', csrf: csrfOf(form2.text) }, https);
    const r2 = (await openLink(dc, direct.mailer.last().link, https)).signedIn!;
    expect(r2.setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))).not.toMatch(/Secure/);
  });
});

describe('no open redirect', () => {
  it('safeNext keeps only paths of the dashboard and the Verify page', () => {
    expect(safeNext('/dashboard')).toBe('/dashboard');
    expect(safeNext('/dashboard#keys')).toBe('/dashboard#keys');
    expect(safeNext('/verify')).toBe('/verify');
    for (const bad of [
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      '/dashboard//evil.example',
      '/dashboard/..%2F..%2Fevil',
      '/dashboard%2F%2Fevil.example',
      '/signin',
      '/verify/detect',
      '/verify//evil.example',
      '/verifyx',
      ' /dashboard',
      '/dashboard\n',
      'dashboard',
      '',
      undefined,
      42,
    ]) {
      expect(safeNext(bad), String(bad)).toBe('/dashboard');
    }
  });

  it('a hostile next on the form or the link still lands on /dashboard', async () => {
    const t = await fresh();
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const c = t.client();
      const link = await requestLink(t, c, 'redirect@example.com', { next });
      const r = (await openLink(c, `${pathOf(link)}&next=${encodeURIComponent(next)}`)).signedIn!;
      expect(r.status).toBe(303);
      expect(r.location).toBe('/dashboard');
      // Signed in, /signin?next=... redirects too, and only within the dashboard.
      const again = await c.get(`/signin?next=${encodeURIComponent(next)}`);
      expect(again.location).toBe('/dashboard');
    }
    const c = t.client();
    const link = await requestLink(t, c, 'redirect@example.com', { next: '/dashboard#keys' });
    expect((await openLink(c, link)).signedIn?.location).toBe('/dashboard#keys');
  });
});

describe('rate limits', () => {
  it('20 sign-in requests for one address in a minute send 5 mails; the rest get a clear 429', async () => {
    const t = await fresh();
    const c = t.client();
    const csrf = csrfOf((await c.get('/signin')).text);
    const statuses: number[] = [];
    let refusal = '';
    let retryAfter: string | null = null;
    for (let i = 0; i < 20; i++) {
      const r = await c.post('/signin', { email: 'flood@example.com', csrf });
      statuses.push(r.status);
      if (r.status === 429) {
        refusal = r.text;
        retryAfter = r.headers.get('retry-after');
      }
      t.clock.advance(3000);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(t.mailer.sent).toHaveLength(5);
    expect(refusal).toContain('Too many sign-in links were requested for flood@example.com');
    expect(refusal).toContain('The links already sent still work');
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // Another address is not held up by it...
    expect((await c.post('/signin', { email: 'other@example.com', csrf })).status).toBe(200);
    // ...and the address may ask again once its window has passed.
    t.clock.advance(15 * 60 * 1000);
    expect((await c.post('/signin', { email: 'flood@example.com', csrf })).status).toBe(200);
    expect(t.mailer.sent).toHaveLength(7);
  });

  it('one client asking for many addresses is limited too (30 requests per 15 minutes)', async () => {
    const t = await fresh();
    const c = t.client();
    const csrf = csrfOf((await c.get('/signin')).text);
    for (let i = 0; i < 30; i++) expect((await c.post('/signin', { email: `spray${i}@example.com`, csrf })).status).toBe(200);
    const r = await c.post('/signin', { email: 'spray-last@example.com', csrf });
    expect(r.status).toBe(429);
    expect(r.text).toContain('Too many sign-in requests came from your network address');
    expect(t.mailer.sent).toHaveLength(30);
  });

  it('the limiter counts sent mails per address and attempts per client (unit)', () => {
    const w = new SlidingWindow({ limit: 2, windowMs: 1000 });
    expect(w.take('a', 0).allowed).toBe(true);
    expect(w.take('a', 10).allowed).toBe(true);
    expect(w.take('a', 20)).toEqual({ allowed: false, retryAfter: 1 });
    expect(w.take('a', 1001).allowed).toBe(true);
    const limits = new SigninLimits({ perAddress: { limit: 1, windowMs: 60_000 }, perClient: { limit: 3, windowMs: 60_000 } });
    expect(limits.take('x@e.test', '10.0.0.1', 0).allowed).toBe(true);
    expect(limits.take('x@e.test', '10.0.0.1', 1)).toMatchObject({ allowed: false, by: 'address' });
    expect(limits.take('y@e.test', '10.0.0.1', 2).allowed).toBe(true);
    expect(limits.take('z@e.test', '10.0.0.1', 3)).toMatchObject({ allowed: false, by: 'client' });
    expect(limits.take('z@e.test', '10.0.0.2', 4).allowed).toBe(true);
  });
});

describe('sessions', () => {
  it('expire (12 hours), after which the dashboard asks to sign in again', async () => {
    const t = await fresh();
    const c = t.client();
    await signIn(t, c, 'expiry@example.com');
    t.clock.advance(12 * 60 * 60 * 1000 - 60_000);
    expect((await c.get('/dashboard')).status).toBe(200);
    t.clock.advance(60_000);
    const r = await c.get('/dashboard');
    expect(r.status).toBe(303);
    expect(r.location).toBe('/signin?expired');
    expect(c.cookies.has(SESSION_COOKIE)).toBe(false);
    expect((await c.follow('/signin?expired')).text).toContain('Your session has ended');
  });

  it('sign-out needs the CSRF token, ends the session on the daemon, and the old cookie stops working', async () => {
    const t = await fresh();
    const c = t.client();
    const dash = await signIn(t, c, 'bye@example.com');
    const cookie = c.cookies.get(SESSION_COOKIE)!;
    expect((await c.post('/signout', {})).status).toBe(403);
    expect((await c.get('/dashboard')).status).toBe(200);
    const out = await c.post('/signout', { csrf: csrfOf(dash.text) });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/signin?signed_out');
    expect(out.setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))).toMatch(/Max-Age=0/);
    expect((await c.follow('/signin?signed_out')).text).toContain('You have signed out');
    // A copy of the cookie kept elsewhere is dead too.
    const thief = t.client();
    thief.cookies.set(SESSION_COOKIE, cookie);
    expect((await thief.get('/dashboard')).status).toBe(303);
    expect(await t.app.services.store.deleteExpiredSessions(Infinity)).toBe(0);
  });

  it('survive a restart of the daemon (they are in the store, hashed)', async () => {
    const dir = tempDir();
    try {
      const first = await webApp({}, { dir: dir.dir });
      const c = first.client();
      await signIn(first, c, 'restart@example.com');
      await first.app.close();
      const second = await webApp({}, { dir: dir.dir });
      try {
        const r = await fetch(`${second.base}/dashboard`, { headers: { cookie: `${SESSION_COOKIE}=${c.cookies.get(SESSION_COOKIE)}` }, redirect: 'manual' });
        expect(r.status).toBe(200);
        expect(await r.text()).toContain('restart@example.com');
      } finally {
        await second.app.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});

describe('logs', () => {
  let logs = '';
  let t: WebApp;
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (d) => (logs += d));
    t = await webApp({}, { logger: loggerOptions(stream) });
  });
  afterAll(() => t.close());

  it('never carry a sign-in token, a session cookie or a key', async () => {
    const c = t.client();
    const dash = await signIn(t, c, 'logs@example.com');
    const link = t.mailer.last().link;
    await c.get(pathOf(link));
    await new Promise((r) => setTimeout(r, 50));
    expect(logs).toMatch(/\/signin\/verify/);
    expect(logs).not.toContain(tokenOf(link));
    expect(logs).not.toContain(c.cookies.get(SESSION_COOKIE)!);
    expect(logs).not.toContain(shownKey(dash.text)!);
  });
});

describe('units', () => {
  it('SigninLinks: issue, use once, expire, sweep a day later; only the hash is kept', async () => {
    const { openStore } = await import('../../src/daemon/store/file-store.js');
    const { SigninLinks } = await import('../../src/daemon/web/signin-links.js');
    const { testClock } = await import('./helpers.js');
    const dir = tempDir();
    const store = await openStore(dir.dir, { durable: false });
    try {
      const clock = testClock('2026-11-15T12:00:00Z');
      const links = new SigninLinks(store, clock);
      const a = await links.issue('a@example.com', '/dashboard');
      expect(a.expiresAt.toISOString()).toBe('2026-11-15T12:15:00.000Z');
      await store.commit();
      expect(Object.keys(readStoreFiles(dir.dir).signin_tokens)).toEqual([sha256Hex(a.token)]);
      expect(storeDiskText(dir.dir)).not.toContain(a.token);
      expect(await links.consume(a.token)).toEqual({ ok: true, email: 'a@example.com', next: '/dashboard' });
      expect(await links.consume(a.token)).toEqual({ ok: false, problem: 'used', email: 'a@example.com' });
      const b = await links.issue('b@example.com', '/dashboard');
      clock.advance(15 * 60 * 1000);
      expect(await links.consume(b.token)).toEqual({ ok: false, problem: 'expired', email: 'b@example.com' });
      expect(await links.consume('short')).toEqual({ ok: false, problem: 'unknown' });
      expect(await links.consume(undefined)).toEqual({ ok: false, problem: 'unknown' });
      expect(await links.sweep()).toBe(false);
      clock.advance(24 * 60 * 60 * 1000);
      expect(await links.sweep()).toBe(true);
      await store.commit();
      expect(readStoreFiles(dir.dir).signin_tokens).toEqual({});
    } finally {
      await store.close();
      dir.cleanup();
    }
  });

  it('Sessions: hashed, expire, destroyed, swept; a flash is taken once', async () => {
    const { openStore } = await import('../../src/daemon/store/file-store.js');
    const { Sessions } = await import('../../src/daemon/web/sessions.js');
    const { testClock } = await import('./helpers.js');
    const dir = tempDir();
    const store = await openStore(dir.dir, { durable: false });
    try {
      const clock = testClock('2026-11-15T12:00:00Z');
      const sessions = new Sessions(store, clock, 1000);
      const { token } = await sessions.create('acct_x');
      await store.commit();
      expect(storeDiskText(dir.dir)).not.toContain(token);
      expect((await sessions.find(token))?.account).toBe('acct_x');
      expect(await sessions.find(withLastCharChanged(token))).toBeUndefined();
      sessions.setFlash(token, { notice: 'hi' });
      expect(sessions.takeFlash(token)).toMatchObject({ notice: 'hi' });
      expect(sessions.takeFlash(token)).toBeUndefined();
      clock.advance(1000);
      expect(await sessions.find(token)).toBeUndefined();
      expect(await sessions.sweep()).toBe(true);
      const other = (await sessions.create('acct_y')).token;
      expect(await sessions.destroy(other)).toBe(true);
      expect(await sessions.find(other)).toBeUndefined();
      expect(await sessions.destroy(other)).toBe(false);
    } finally {
      await store.close();
      dir.cleanup();
    }
  });

  it('CSRF tokens: bound to the session, compared in constant time', async () => {
    const { sessionCsrfToken, sameToken, newCsrfSecret, isCsrfSecret } = await import('../../src/daemon/web/csrf.js');
    const a = newCsrfSecret();
    const b = newCsrfSecret();
    expect(isCsrfSecret(a)).toBe(true);
    expect(sessionCsrfToken(a)).toBe(sessionCsrfToken(a));
    expect(sessionCsrfToken(a)).not.toBe(sessionCsrfToken(b));
    expect(sessionCsrfToken(a)).not.toBe(a);
    expect(sameToken(sessionCsrfToken(a), sessionCsrfToken(a))).toBe(true);
    expect(sameToken(sessionCsrfToken(b), sessionCsrfToken(a))).toBe(false);
    expect(sameToken(undefined, a)).toBe(false);
    expect(sameToken('', '')).toBe(false);
    expect(sameToken(['x'], a)).toBe(false);
  });

  it('html escapes every interpolated value', async () => {
    const { html, escapeHtml } = await import('../../src/daemon/web/pages/html.js');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${['<', html`<br>`]}${null}${false}${3}</p>`.value).toBe('<p><b>&lt;i&gt;</b>&lt;<br>3</p>');
  });
});
