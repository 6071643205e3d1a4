// Security review of the pages (issue 26), over real HTTP on 127.0.0.1:
// 1. login CSRF: a sign-in link opens a page; only its button's POST (with this browser's CSRF
//    token) uses the link up and signs in, and it lands where the sign-in began (/verify too);
// 2. --trust-proxy names the proxies (a hop count or addresses): the per-client sign-in limit
//    counts the proxy's last hop, not the client's own X-Forwarded-For entries; IPv6 by /64;
// 3. the pages answer only Host values this daemon serves (DNS rebinding): else 421;
// 4. an https --public-url makes every cookie Secure, whatever the proxy forwards.
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hostAllowed, parseHostHeader } from '../../src/daemon/web/host-check.js';
import { SESSION_COOKIE } from '../../src/daemon/web/sessions.js';
import { clientKey } from '../../src/daemon/web/signin-limits.js';
import { parseTrustProxy, TrustProxyError } from '../../src/daemon/http/trust-proxy.js';
import { storeKind, tempDir } from './helpers.js';
import { startDaemonProcess } from './process.js';
import { csrfOf, fieldOf, openLink, requestLink, signIn, WebClient, webAppsClosedAfterEach } from './signin-helpers.js';

const fresh = webAppsClosedAfterEach();

const pathOf = (link: string) => link.replace(/^https?:\/\/[^/]+/, '');
const sessionSet = (setCookies: string[]) => setCookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`));

describe('login CSRF: a sign-in link signs in only by its page’s POST', () => {
  it('another site sending a signed-in browser to its own link swaps nothing: GET shows a button, a foreign POST is refused', async () => {
    const t = await fresh();
    const victim = t.client();
    await signIn(t, victim, 'victim@example.com');
    const victimSession = victim.cookies.get(SESSION_COOKIE)!;
    // The attacker asks for a link to their own account, in their own browser.
    const attacker = t.client();
    const link = await requestLink(t, attacker, 'attacker@example.com');
    const attackerCsrf = attacker.cookies.get('prv_csrf')!;

    // A page elsewhere sends the victim's browser to the link (a GET): a page, no session.
    const page = await victim.get(pathOf(link));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sign in as attacker@example.com');
    expect(page.text).toContain('<form method="post" action="/signin/verify"');
    expect(page.text).toContain('This browser is signed in as <strong>victim@example.com</strong>');
    expect(sessionSet(page.setCookies)).toBeUndefined();
    expect(victim.cookies.get(SESSION_COOKIE)).toBe(victimSession);
    expect((await victim.get('/dashboard')).text).toContain('<span>victim@example.com</span>');
    // ...nor is the link used up by it (a mail scanner opening it does not spend it either).
    expect((await t.client().get(pathOf(link))).status).toBe(200);

    // The other site's form, posted from the victim's browser: it cannot know this browser's
    // CSRF token (its own, or none) -> 403, still no session, the link still unused.
    for (const csrf of [attackerCsrf, '', 'A'.repeat(43)]) {
      const forged = await victim.post('/signin/verify', { token: fieldOf(page.text, 'token')!, csrf });
      expect(forged.status).toBe(403);
      expect(sessionSet(forged.setCookies)).toBeUndefined();
      expect(forged.text).toContain('Sign in as attacker@example.com');
    }
    expect(victim.cookies.get(SESSION_COOKIE)).toBe(victimSession);
    expect((await victim.get('/dashboard')).text).toContain('<span>victim@example.com</span>');
    expect(await t.app.services.accounts.findByEmail('attacker@example.com')).toBeUndefined();

    // The attacker's own browser, pressing the button, signs in (once).
    const { signedIn } = await openLink(attacker, link);
    expect(signedIn?.status).toBe(303);
    expect(sessionSet(signedIn!.setCookies)).toBeDefined();
    expect((await t.client().get(pathOf(link))).status).toBe(410);
  });

  it('the button uses the link once; a POST with a used, expired or unknown token signs no one in', async () => {
    const t = await fresh();
    const c = t.client();
    const link = await requestLink(t, c, 'once@example.com');
    const page = await c.get(pathOf(link));
    const form = { token: fieldOf(page.text, 'token')!, csrf: csrfOf(page.text) };
    expect(form.token).toBe(new URL(link).searchParams.get('token'));
    expect((await c.post('/signin/verify', form)).status).toBe(303);
    const again = await t.client().post('/signin/verify', form, { cookie: `prv_csrf=${form.csrf}` });
    expect(again.status).toBe(410);
    expect(sessionSet(again.setCookies)).toBeUndefined();
    const unknown = await c.post('/signin/verify', { token: 'B'.repeat(43), csrf: form.csrf });
    expect(unknown.status).toBe(404);
    // Opened in time, pressed too late: expired.
    const other = t.client();
    const late = await requestLink(t, other, 'late@example.com');
    const latePage = await other.get(pathOf(late));
    t.clock.advance(15 * 60 * 1000);
    const pressed = await other.post('/signin/verify', { token: fieldOf(latePage.text, 'token')!, csrf: csrfOf(latePage.text) });
    expect(pressed.status).toBe(410);
    expect(pressed.text).toContain('has expired');
  });

  it('a sign-in begun on /verify lands on /verify, not on the dashboard', async () => {
    const t = await fresh();
    const c = t.client();
    const start = await c.get('/verify');
    expect(start.status).toBe(303);
    expect(start.location).toBe('/signin?next=/verify');
    const form = await c.get(start.location!);
    expect(fieldOf(form.text, 'next')).toBe('/verify');
    const sent = await c.post('/signin', { email: 'verify-next@example.com', csrf: csrfOf(form.text), next: fieldOf(form.text, 'next')! });
    expect(sent.status).toBe(200);
    const { signedIn } = await openLink(c, t.mailer.last().link);
    expect(signedIn?.location).toBe('/verify');
    const landed = await c.follow(signedIn!.location!);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('<h1>Verify files</h1>');
  });
});

/** 40 sign-in requests, each with a client-chosen X-Forwarded-For entry before the real hop. */
async function spoofedPosts(base: string, realHop: string, n = 40, first = 0): Promise<number[]> {
  const c = new WebClient(base);
  const csrf = csrfOf((await c.get('/signin')).text);
  const statuses: number[] = [];
  for (let i = first; i < first + n; i++) {
    // What a client sends plus what its proxy appends: "<forged>, <the client's real address>".
    const r = await c.post('/signin', { email: `spoof${i}@example.com`, csrf }, { 'x-forwarded-for': `198.51.100.${i % 250}, ${realHop}` });
    statuses.push(r.status);
  }
  return statuses;
}

describe('--trust-proxy names the proxies: the sign-in limit counts the real last hop', () => {
  // The built CLI's daemons keep the embedded store: run once, in the file store's project.
  const cli = it.skipIf(storeKind() === 'postgres');

  cli('the built CLI: --trust-proxy 1 and a bare --trust-proxy (one proxy) limit 40 spoofed posts after 30', async () => {
    for (const flag of [['--trust-proxy', '1'], ['--trust-proxy']]) {
      const dir = tempDir();
      const daemon = await startDaemonProcess(['--data-dir', dir.dir, ...flag, '--public-url', 'https://provenance.example.com']);
      try {
        const statuses = await spoofedPosts(daemon.url, '203.0.113.7');
        expect(statuses.slice(0, 30).every((s) => s === 200), flag.join(' ')).toBe(true);
        expect(statuses.slice(30).every((s) => s === 429), flag.join(' ')).toBe(true);
      } finally {
        daemon.child.kill('SIGTERM');
        await daemon.exited;
        dir.cleanup();
      }
    }
  }, 60_000);

  cli('the built CLI refuses a --trust-proxy value that is neither a hop count nor addresses (exit 2)', async () => {
    const dir = tempDir();
    try {
      const bad = await startDaemonProcess(['--data-dir', dir.dir, '--trust-proxy', 'true', '--public-url', 'https://p.example.com']).catch((e: Error) => e);
      expect(bad).toBeInstanceOf(Error);
      expect((bad as Error).message).toMatch(/exited with 2[\s\S]*--trust-proxy: "true" is not an IP address, a CIDR range or a hop count/);
    } finally {
      dir.cleanup();
    }
  });

  it('a hop count keys each client by its last hop: another real client keeps its own window', async () => {
    const t = await fresh({ publicUrl: 'https://provenance.example.com' }, { trustProxy: 1 });
    const statuses = await spoofedPosts(t.base, '203.0.113.7');
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    expect(await spoofedPosts(t.base, '203.0.113.8', 1, 40)).toEqual([200]);
  });

  it('proxy addresses: entries those proxies added are skipped from the right, the first other is the client', async () => {
    const t = await fresh({ publicUrl: 'https://provenance.example.com' }, { trustProxy: ['127.0.0.1', '10.0.0.0/8'] });
    // Client -> 10.1.2.3 (an inner proxy, trusted) -> this daemon (from 127.0.0.1, trusted).
    const c = t.client();
    const csrf = csrfOf((await c.get('/signin')).text);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const r = await c.post('/signin', { email: `list${i}@example.com`, csrf }, { 'x-forwarded-for': `192.0.2.${i}, 203.0.113.9, 10.1.2.3` });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  it('IPv6 clients by their /64 (a pure function); IPv4 as it is', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    const a = clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(a).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2::1', '2001:0DB8:0001:0002:ffff::', '2001:db8:1:2:0:0:0:0', '2001:db8:1:2::1%eth0', '[2001:db8:1:2::9]', '2001:db8:1:2::192.0.2.1']) {
      expect(clientKey(same), same).toBe(a);
    }
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
    // Not an address: kept as it is (never two different junk values as one key).
    for (const junk of ['junk', '1:2:3:4:5:6:7:8:9', '2001:db8::1::2', 'gggg::1', '1:2:3:4:5:6:7']) expect(clientKey(junk)).toBe(junk);
  });

  it('parseTrustProxy: hop counts, addresses and CIDRs, proxy-addr names; clear errors otherwise', () => {
    expect(parseTrustProxy(true)).toBe(1);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8,127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(parseTrustProxy(' 10.0.0.1 , ::1, fd00::/8 ,loopback')).toEqual(['10.0.0.1', '::1', 'fd00::/8', 'loopback']);
    for (const [bad, says] of [
      ['0', 'the number of proxies in front is 1 to 10'],
      ['11', 'the number of proxies in front is 1 to 10'],
      ['true', 'is not an IP address, a CIDR range or a hop count'],
      ['proxy.example.com', 'is not an IP address'],
      ['10.0.0.0/33', 'no valid prefix length (0 to 32'],
      ['::/129', 'no valid prefix length (0 to 128'],
      ['10.0.0.1,', 'give the number of proxies'],
      ['', 'give the number of proxies'],
      ['*', 'is not an IP address'],
    ] as const) {
      expect(() => parseTrustProxy(bad), bad).toThrow(TrustProxyError);
      expect(() => parseTrustProxy(bad), bad).toThrow(says);
    }
  });
});

/** One request with a raw Host header (fetch does not let a page set it), over 127.0.0.1. */
function rawRequest(port: number, method: string, path: string, host: string | undefined, body?: string): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (host !== undefined) headers.host = host;
    if (body !== undefined) headers['content-type'] = method === 'POST' && path === '/verify/detect' ? 'application/octet-stream' : 'application/x-www-form-urlencoded';
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: host !== undefined }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the pages answer only Host values this daemon serves (DNS rebinding)', () => {
  const PAGES: [string, string, string?][] = [
    ['GET', '/signin'],
    ['POST', '/signin', 'email=a%40example.com&csrf=x'],
    ['GET', '/signin/verify?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['POST', '/signin/verify', 'token=x&csrf=y'],
    ['POST', '/signout', 'csrf=x'],
    ['GET', '/dashboard'],
    ['POST', '/dashboard/keys', 'csrf=x'],
    ['GET', '/verify'],
    ['GET', '/assets/style.css'],
    ['GET', '/assets/verify.js'],
  ];

  it('a foreign Host gets 421 on every page; the daemon’s own address, localhost and a port-less Host are served', async () => {
    const t = await fresh();
    const port = Number(new URL(t.base).port);
    for (const [method, path, body] of PAGES) {
      for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `127.0.0.1:${port + 1 === 65536 ? 1 : port + 1}`, `[::1]:${port}`]) {
        const r = await rawRequest(port, method, path, host, body);
        expect(r.status, `${method} ${path} Host: ${host}`).toBe(421);
        expect(r.type).toMatch(/^text\/html/);
        expect(r.text).toContain('does not serve the host name');
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, '127.0.0.1', 'localhost']) {
        const r = await rawRequest(port, method, path, host, body);
        expect(r.status, `${method} ${path} Host: ${host}`).not.toBe(421);
      }
    }
    const detect = await rawRequest(port, 'POST', '/verify/detect', 'evil.example', 'x');
    expect(detect.status).toBe(421);
    expect(JSON.parse(detect.text).error.message).toContain('does not serve the host name');
    // No Host at all: Node refuses an HTTP/1.1 request without one (400) before any page.
    expect((await rawRequest(port, 'GET', '/signin', undefined)).status).toBe(400);
    // The /v1 API (keys protect it) and /healthz are not checked.
    expect((await rawRequest(port, 'GET', '/v1/detectors', 'evil.example')).status).toBe(200);
    expect((await rawRequest(port, 'GET', '/healthz', 'evil.example')).status).toBe(200);
  });

  it('--public-url’s host is served (as a proxy may pass it on), with its own port only', async () => {
    const t = await fresh({ publicUrl: 'https://provenance.example.com' });
    const port = Number(new URL(t.base).port);
    for (const host of ['provenance.example.com', 'provenance.example.com:443', `127.0.0.1:${port}`]) {
      expect((await rawRequest(port, 'GET', '/signin', host)).status, host).toBe(200);
    }
    for (const host of ['provenance.example.com:8443', `provenance.example.com:${port}`, 'example.com', 'other.example.com']) {
      expect((await rawRequest(port, 'GET', '/signin', host)).status, host).toBe(421);
    }
  });

  it('hostAllowed / parseHostHeader (pure functions)', () => {
    const loop = { localAddress: '127.0.0.1', localPort: 8787 };
    expect(hostAllowed('127.0.0.1:8787', loop)).toBe(true);
    expect(hostAllowed('127.1:8787', loop)).toBe(true);
    expect(hostAllowed('localhost:8787', loop)).toBe(true);
    expect(hostAllowed('localhost', loop)).toBe(true);
    expect(hostAllowed('localhost:8788', loop)).toBe(false);
    expect(hostAllowed('evil.example:8787', loop)).toBe(false);
    expect(hostAllowed('localhost.evil.example:8787', loop)).toBe(false);
    expect(hostAllowed(undefined, loop)).toBe(false);
    expect(hostAllowed('', loop)).toBe(false);
    expect(hostAllowed('127.0.0.1:8787/x', loop)).toBe(false);
    expect(hostAllowed('user@127.0.0.1:8787', loop)).toBe(false);
    // IPv6 loopback, and an IPv4 client on a dual-stack socket.
    expect(hostAllowed('[::1]:8787', { localAddress: '::1', localPort: 8787 })).toBe(true);
    expect(hostAllowed('[0:0::1]:8787', { localAddress: '::1', localPort: 8787 })).toBe(true);
    expect(hostAllowed('localhost:8787', { localAddress: '::1', localPort: 8787 })).toBe(true);
    expect(hostAllowed('127.0.0.1:8787', { localAddress: '::ffff:127.0.0.1', localPort: 8787 })).toBe(true);
    // A LAN address: that address, never localhost (the request did not come over loopback).
    const lan = { localAddress: '192.168.1.5', localPort: 8787 };
    expect(hostAllowed('192.168.1.5:8787', lan)).toBe(true);
    expect(hostAllowed('localhost:8787', lan)).toBe(false);
    expect(hostAllowed('myserver.lan:8787', lan)).toBe(false);
    expect(hostAllowed('myserver.lan:8787', { ...lan, publicUrl: 'http://myserver.lan:8787/' })).toBe(true);
    expect(hostAllowed('MyServer.LAN', { ...lan, publicUrl: 'http://myserver.lan' })).toBe(true);
    expect(hostAllowed('myserver.lan:81', { ...lan, publicUrl: 'http://myserver.lan' })).toBe(false);
    expect(parseHostHeader('Example.COM:8080')).toEqual({ hostname: 'example.com', port: 8080 });
    expect(parseHostHeader('[::1]')).toEqual({ hostname: '::1', port: undefined });
    expect(parseHostHeader('example.com:99999')).toBeUndefined();
    expect(parseHostHeader('a b')).toBeUndefined();
  });
});

describe('an https --public-url makes every cookie Secure', () => {
  it('behind a trusted proxy that sends no X-Forwarded-Proto, and without --trust-proxy too', async () => {
    for (const extra of [{ trustProxy: 1 }, {}]) {
      const t = await fresh({ publicUrl: 'https://provenance.example.com' }, extra);
      const c = t.client();
      const form = await c.get('/signin');
      expect(form.setCookies.find((l) => l.startsWith('prv_csrf='))).toMatch(/; Secure$/);
      const link = await requestLink(t, c, 'secure@example.com');
      const { page, signedIn } = await openLink(c, link);
      expect(page.status).toBe(200);
      const session = sessionSet(signedIn!.setCookies)!;
      expect(session.split('; ')).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Secure']));
      const dash = await c.follow(signedIn!.location!);
      const out = await c.post('/signout', { csrf: csrfOf(dash.text) });
      expect(sessionSet(out.setCookies)).toMatch(/Max-Age=0; Secure$/);
      // A stale session cookie is cleared Secure too.
      const stale = t.client();
      stale.cookies.set(SESSION_COOKIE, 'A'.repeat(43));
      expect(sessionSet((await stale.get('/dashboard')).setCookies)).toMatch(/; Secure$/);
    }
  });

  it('an http --public-url (or none) leaves cookies as the request came: not Secure over http', async () => {
    const t = await fresh({ publicUrl: 'http://127.0.0.1:8787' });
    expect((await t.client().get('/signin')).setCookies[0]).not.toMatch(/Secure/);
  });
});
