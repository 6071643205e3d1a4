// Response headers over real HTTP on 127.0.0.1 (issue 18, "Pages and headers"): nosniff on every
// API, docs and page response; pages with a Content-Security-Policy that allows no inline script,
// forbids framing and sends no Referer; the session cookie's attributes, and when Secure is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/daemon/web/sessions.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, http } from './helpers.js';
import { csrfOf, openLink, requestLink, signIn, webApp, type WebApp } from './signin-helpers.js';

let t: WebApp;
let key: string;
beforeAll(async () => {
  t = await webApp();
  key = (await t.account('headers')).key;
});
afterAll(() => t.close());

/** The directives of a CSP header, name -> sources. */
function csp(header: string | null): Record<string, string[]> {
  expect(header, 'no Content-Security-Policy').toBeTruthy();
  return Object.fromEntries(
    header!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** A page's policy allows no inline or evaluated script and no framing. */
function expectStrictPagePolicy(header: string | null) {
  const d = csp(header);
  const scripts = d['script-src'] ?? d['default-src']!;
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  expect(scripts.every((s) => s === "'self'" || s === "'none'")).toBe(true);
  expect(d['script-src-attr'] ?? d['script-src'] ?? d['default-src']).not.toContain("'unsafe-inline'");
  expect(d['frame-ancestors']).toEqual(["'none'"]);
  expect(d['object-src'] ?? d['default-src']).toEqual(["'none'"]);
  expect(d['base-uri']).toEqual(["'none'"]);
}

describe('X-Content-Type-Options: nosniff on every kind of response', () => {
  it.each([
    ['GET', '/v1/detectors', undefined, 200],
    ['GET', '/healthz', undefined, 200],
    ['GET', '/v1/openapi.json', undefined, 200],
    ['GET', '/v1/nope', undefined, 404],
    ['POST', '/v1/detect', undefined, 401],
    ['POST', '/v1/detect', 'key', 200],
    ['POST', '/v1/uploads', 'key', 201],
    ['GET', '/signin', undefined, 200],
    ['GET', '/dashboard', undefined, 200],
    ['GET', '/assets/pages.js', undefined, 200],
    ['GET', '/assets/style.css', undefined, 200],
    ['GET', '/docs/', undefined, 200],
  ])('%s %s (%s) -> %i', async (method, path, withKey, status) => {
    const init =
      path === '/v1/uploads' ? { key, body: tinyJpeg(), headers: { 'content-type': 'application/octet-stream' } } : method === 'POST' ? { key: withKey ? key : undefined, json: { media: b64(tinyJpeg()) } } : {};
    const r = await http(t.base, method, path, init);
    expect(r.status).toBe(status);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('pages: a strict Content-Security-Policy, no framing, no Referer', () => {
  it.each(['/signin', '/signin/verify?token=nonsense', '/dashboard'])('%s', async (path) => {
    const page = await t.client().get(path);
    expectStrictPagePolicy(page.headers.get('content-security-policy'));
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the pages that hold a sign-in token or a new key carry the same headers, and their HTML has no inline script or style', async () => {
    const c = t.client();
    const form = await c.get('/signin');
    const link = await requestLink(t, c, 'headers-page@example.com');
    // The verify page is opened with the token in its URL: the Referer must never carry it on.
    const verify = await c.get(link.replace(/^http:\/\/[^/]+/, ''));
    const dashboard = await signIn(t, t.client(), 'headers-dash@example.com');
    for (const page of [form, verify, dashboard]) {
      expectStrictPagePolicy(page.headers.get('content-security-policy'));
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      // Every <script> loads a file; no element carries an on* handler or a style attribute.
      for (const tag of page.text.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/assets\/[a-z-]+\.js"/);
      expect(page.text).not.toMatch(/<script\b[^>]*>\s*[^<\s]/);
      expect(page.text).not.toMatch(/\son[a-z]+\s*=/i);
      expect(page.text).not.toMatch(/\sstyle\s*=/i);
      expect(page.text).not.toMatch(/<style\b/i);
      expect(page.text).not.toMatch(/javascript:/i);
    }
  });

  it('/docs (Swagger UI) loads only its own files: no inline script, no framing', async () => {
    const r = await http(t.base, 'GET', '/docs/');
    expectStrictPagePolicy(r.headers['content-security-policy'] ?? null);
    expect(r.text).not.toMatch(/<script\b[^>]*>\s*[^<\s]/);
  });
});

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, and not Secure over plain http', async () => {
    const c = t.client();
    const link = await requestLink(t, c, 'cookie@example.com');
    const r = (await openLink(c, link)).signedIn!;
    const cookie = r.setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookie).toBeDefined();
    const attrs = cookie.split(';').slice(1).map((a) => a.trim());
    expect(attrs).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attrs).not.toContain('Secure');
  });

  it('is Secure when a trusted proxy says https or the public URL is https, and only then (a forged header on a direct daemon is ignored)', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const proxied = await webApp({ publicUrl: 'http://provenance.example.com' }, { trustProxy: 1 });
    try {
      const c = proxied.client();
      const form = await c.get('/signin', https);
      await c.post('/signin', { email: 'secure@example.com', csrf: csrfOf(form.text) }, https);
      const r = (await openLink(c, proxied.mailer.last().link, https)).signedIn!;
      const cookie = r.setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))!;
      expect(cookie.split(';').map((a) => a.trim())).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Secure']));
      // The same proxy forwarding plain http, with an http public URL: no Secure. (An https
      // public URL makes every cookie Secure, whatever the proxy says: web-security.test.ts.)
      const plain = proxied.client();
      const form2 = await plain.get('/signin', { 'x-forwarded-proto': 'http' });
      expect(form2.setCookies[0]).not.toMatch(/Secure/);
    } finally {
      await proxied.close();
    }
    const forged = await t.client().get('/signin', https);
    expect(forged.setCookies[0]).not.toMatch(/Secure/);
  });
});
