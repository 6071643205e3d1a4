// What the fuzz's page and admin requests need from the running daemon before the run: real
// sessions (signed in through the form and the mailed link, as a person would), links not yet
// opened, the keys of each account, and an account whose keys the admin fuzz may revoke.
import { sessionCsrfToken } from '../../../src/daemon/web/csrf.js';
import { listOutbox } from '../../../src/daemon/web/outbox.js';
import type { AdminFixtures } from './admin-cases.js';
import type { WebFixtures } from './page-cases.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function cookieValue(response: Response, name: string): string {
  for (const line of response.headers.getSetCookie()) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(line);
    if (m) return m[1]!;
  }
  throw new Error(`no ${name} cookie in the answer (${response.status})`);
}

export class DaemonFixtures {
  constructor(
    private readonly base: string,
    private readonly dataDir: string,
    private readonly adminToken: string,
  ) {}

  /** An admin request with the token; throws unless it succeeds. */
  async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${this.base}${path}`, {
      method,
      headers: { 'x-provenance-admin-token': this.adminToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  }

  /** Asks for a sign-in link for `email` through the form, and reads it from the outbox. */
  async link(email: string): Promise<{ token: string; csrf: string }> {
    const page = await fetch(`${this.base}/signin`);
    await page.arrayBuffer();
    const csrf = cookieValue(page, 'prv_csrf');
    const sent = await fetch(`${this.base}/signin`, {
      method: 'POST',
      headers: { ...FORM, cookie: `prv_csrf=${csrf}` },
      body: new URLSearchParams({ email, csrf }).toString(),
    });
    if (sent.status !== 200) throw new Error(`POST /signin for ${email}: ${sent.status} ${await sent.text()}`);
    await sent.arrayBuffer();
    const mail = listOutbox(this.dataDir).filter((m) => m.to === email).at(-1);
    const token = mail?.link ? new URL(mail.link).searchParams.get('token') : null;
    if (!token) throw new Error(`no sign-in link for ${email} in the outbox`);
    return { token, csrf };
  }

  /** Signs `email` in (the link's page, then its button's POST): its session token and the dashboard's CSRF token for it. */
  async signIn(email: string): Promise<{ token: string; csrf: string; link: string }> {
    const { token: link, csrf: anon } = await this.link(email);
    const page = await fetch(`${this.base}/signin/verify?token=${link}`, { redirect: 'manual', headers: { cookie: `prv_csrf=${anon}` } });
    await page.arrayBuffer();
    if (page.status !== 200) throw new Error(`GET /signin/verify for ${email}: ${page.status}`);
    const opened = await fetch(`${this.base}/signin/verify`, {
      method: 'POST',
      headers: { ...FORM, cookie: `prv_csrf=${anon}` },
      body: new URLSearchParams({ token: link, csrf: anon }).toString(),
      redirect: 'manual',
    });
    await opened.arrayBuffer();
    if (opened.status !== 303) throw new Error(`POST /signin/verify for ${email}: ${opened.status}`);
    const token = cookieValue(opened, 'prv_session');
    return { token, csrf: sessionCsrfToken(token), link };
  }

  async keyIds(email: string): Promise<string[]> {
    return (await this.admin<{ keys: { id: string }[] }>('GET', `/admin/v1/keys?email=${encodeURIComponent(email)}`)).keys.map((k) => k.id);
  }

  async web(): Promise<WebFixtures> {
    const sessions: WebFixtures['sessions'] = [];
    const usedLinks: string[] = [];
    for (let i = 0; i < 3; i++) {
      const email = `web-${i}@example.test`;
      const { token, csrf, link } = await this.signIn(email);
      // A few keys beyond the first, so that revoking one does not leave nothing to revoke.
      for (let k = 0; k < 3; k++) await this.admin('POST', '/admin/v1/keys', { email, name: `fixture ${k}` });
      sessions.push({ token, csrf, keyIds: await this.keyIds(email) });
      usedLinks.push(link);
    }
    const disposable: WebFixtures['disposable'] = [];
    for (let i = 0; i < 6; i++) {
      const { token, csrf, link } = await this.signIn(`bye-${i}@example.test`);
      disposable.push({ token, csrf });
      usedLinks.push(link);
    }
    const links: string[] = [];
    for (let i = 0; i < 25; i++) links.push((await this.link(`link-${i}@example.test`)).token);
    const foreignKeyIds = (await Promise.all([0, 1, 2].map((i) => this.keyIds(`fuzz-${i}@example.test`)))).flat();
    const anonCsrf = (await this.link('anon@example.test')).csrf;
    return { sessions, disposable, links, usedLinks, foreignKeyIds, anonCsrf };
  }

  async adminFixtures(): Promise<AdminFixtures> {
    const email = 'admin-victim@example.test';
    await this.admin('POST', '/admin/v1/accounts', { email, plan: 'free' });
    for (let k = 0; k < 3; k++) await this.admin('POST', '/admin/v1/keys', { email });
    return { token: this.adminToken, revocable: await this.keyIds(email) };
  }
}
