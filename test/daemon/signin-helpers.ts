// Shared by the sign-in, dashboard and browser tests: a daemon app with the pages on 127.0.0.1,
// a mailer that records what it would send, and a small cookie-keeping HTTP client that
// behaves like a browser without JavaScript (forms, cookies, no automatic redirects).
import { afterEach } from 'vitest';
import type { Mailer, SigninMail } from '../../src/daemon/web/mailer.js';
import type { WebOptions } from '../../src/daemon/http/routes/web.js';
import type { AppOptions } from '../../src/daemon/http/app.js';
import { listen, makeApp, testClock, type TestApp, type TestClock } from './helpers.js';

export interface RecordingMailer extends Mailer {
  sent: SigninMail[];
  last(): SigninMail;
}

export function recordingMailer(): RecordingMailer {
  const sent: SigninMail[] = [];
  return {
    kind: 'custom',
    sent,
    last() {
      const mail = sent[sent.length - 1];
      if (!mail) throw new Error('no mail was sent');
      return mail;
    },
    async send(mail) {
      sent.push(mail);
    },
    async close() {},
  };
}

export interface WebApp extends TestApp {
  base: string;
  clock: TestClock;
  mailer: RecordingMailer;
  client(): WebClient;
}

export async function webApp(
  web: WebOptions = {},
  extra: Pick<AppOptions, 'trustProxy' | 'logger' | 'testMode' | 'adminTokenSha256' | 'workers' | 'detectTimeoutMs' | 'testDetectHold' | 'trust'> & { dir?: string } = {},
): Promise<WebApp> {
  const clock = testClock('2026-11-15T12:00:00Z');
  const mailer = recordingMailer();
  const { dir, ...options } = extra;
  const t = await makeApp({ now: clock, web: { mailer, ...web }, ...options }, dir);
  const base = await listen(t.app);
  return Object.assign(t, { base, clock, mailer: (web.mailer as RecordingMailer | undefined) ?? mailer, client: () => new WebClient(base) });
}

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookies: string[];
}

/** A browser without JavaScript: keeps cookies, submits forms, never follows redirects by itself. */
export class WebClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, init: { form?: Record<string, string>; headers?: Record<string, string>; body?: string } = {}): Promise<Page> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const response = await fetch(url, { method, headers, body, redirect: 'manual' });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/;\s*Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location'), setCookies };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  post(path: string, form: Record<string, string>, headers?: Record<string, string>) {
    return this.request('POST', path, { form, headers });
  }

  /** GET, then follow redirects on this origin (as a browser would), up to 5. */
  async follow(path: string): Promise<Page & { url: string }> {
    let url = path;
    for (let i = 0; i < 5; i++) {
      const page = await this.get(url);
      if (page.status < 300 || page.status >= 400 || !page.location) return { ...page, url };
      url = page.location;
    }
    throw new Error('too many redirects');
  }
}

/** The first CSRF token in a page's forms. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no csrf field in: ${html.slice(0, 400)}`);
  return m[1]!;
}

/** The API key shown once on a dashboard, if any. */
export function shownKey(html: string): string | undefined {
  return /id="new-key"[^>]*value="(prv_[A-Za-z0-9]{38})"/.exec(html)?.[1];
}

/** Asks for a link on the form and returns the link the mailer got. */
export async function requestLink(t: WebApp, client: WebClient, email: string, extra: Record<string, string> = {}): Promise<string> {
  const form = await client.get('/signin');
  const sent = await client.post('/signin', { email, csrf: csrfOf(form.text), ...extra });
  if (sent.status !== 200) throw new Error(`sign-in request: ${sent.status} ${sent.text.slice(0, 300)}`);
  return t.mailer.last().link;
}

/** The form field `name` of a page, if any. */
export function fieldOf(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/**
 * Opens a sign-in link as a browser does: the GET shows the "Sign in as" page (and signs no one
 * in), its button POSTs the token with the page's CSRF token. Returns both answers; the POST's is
 * the 303 to where the sign-in goes, or undefined when the GET showed no button (a bad link).
 */
export async function openLink(client: WebClient, link: string, headers?: Record<string, string>): Promise<{ page: Page; signedIn?: Page }> {
  const page = await client.get(link.replace(/^https?:\/\/[^/]+/, ''), headers);
  const token = fieldOf(page.text, 'token');
  if (page.status !== 200 || !token) return { page };
  const signedIn = await client.post('/signin/verify', { csrf: csrfOf(page.text), token }, headers);
  return { page, signedIn };
}

/** Signs in through the link (GET, then its button's POST) and returns the dashboard page it lands on. */
export async function signIn(t: WebApp, client: WebClient, email: string): Promise<Page & { url: string }> {
  const link = await requestLink(t, client, email);
  const { page, signedIn } = await openLink(client, link);
  if (!signedIn) throw new Error(`sign-in link: ${page.status} ${page.text.slice(0, 300)}`);
  if (signedIn.status !== 303 || !signedIn.location) throw new Error(`sign-in: ${signedIn.status} ${signedIn.text.slice(0, 300)}`);
  const landed = await client.follow(signedIn.location);
  if (landed.status !== 200) throw new Error(`sign-in: ${landed.status} ${landed.url}`);
  return landed;
}

/**
 * `webApp`, each one closed after the test that made it: call once at a test file's top level
 * (it registers the afterEach there) and make the file's daemons with what it returns.
 */
export function webAppsClosedAfterEach(): (...args: Parameters<typeof webApp>) => Promise<WebApp> {
  const apps: WebApp[] = [];
  afterEach(async () => {
    while (apps.length) await apps.pop()!.close();
  });
  return async (...args) => {
    const t = await webApp(...args);
    apps.push(t);
    return t;
  };
}
