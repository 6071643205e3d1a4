// The dashboard's "Recent requests" and test-mode notice (issue 15), over real HTTP on
// 127.0.0.1: a signed-in account sees its own /v1 requests (matching their Request-Id) and no
// one else's; and its session cookie opens no admin action.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { b64, expectError, http } from './helpers.js';
import { requestLink, shownKey, signIn, webApp, type WebApp } from './signin-helpers.js';

const ADMIN = { 'x-provenance-admin-token': 'admin-token-dashboard-test' };
const advance = (by: string) => http(t.base, 'POST', '/admin/v1/clock', { headers: ADMIN, json: { action: 'advance', by } });

let t: WebApp;
beforeAll(async () => {
  t = await webApp({}, { testMode: true, adminTokenSha256: sha256Hex('admin-token-dashboard-test') });
});
afterAll(() => t.close());

/** Request ids of the Recent requests rows, top (newest) first. */
const rowIds = (html: string) => [...html.matchAll(/<tr data-request-id="([^"]+)">/g)].map((m) => m[1]);

describe('Recent requests', () => {
  it('lists the account\'s own requests, newest first, forced ones marked; says test mode', async () => {
    const mine = t.client();
    const myKey = shownKey((await signIn(t, mine, 'mine@example.com')).text)!;
    const theirs = t.client();
    const theirKey = shownKey((await signIn(t, theirs, 'theirs@example.com')).text)!;

    const empty = (await mine.get('/dashboard')).text;
    expect(empty).toContain('Recent requests');
    expect(empty).toContain('No API requests with this account');
    expect(empty).toMatch(/<p class="notice" role="note" data-test-mode><strong>Test mode\.<\/strong>/);

    const media = b64(tinyJpeg());
    const a = await http(t.base, 'POST', '/v1/detect', { key: myKey, json: { media } });
    const b = await http(t.base, 'POST', '/v1/detect', { key: myKey, json: { media }, headers: { 'provenance-test-response': 'quota_exceeded' } });
    const other = await http(t.base, 'POST', '/v1/detect', { key: theirKey, json: { media } });
    expect([a.status, b.status, other.status]).toEqual([200, 429, 200]);

    const page = (await mine.get('/dashboard')).text;
    expect(rowIds(page)).toEqual([b.headers['request-id'], a.headers['request-id']]);
    expect(page).not.toContain(other.headers['request-id']!);
    expect(page).not.toContain(myKey);
    const forcedRow = page.slice(page.indexOf(`data-request-id="${b.headers['request-id']}"`));
    expect(forcedRow.slice(0, forcedRow.indexOf('</tr>'))).toMatch(/429 <span class="muted small">quota_exceeded<\/span> <span class="badge">forced<\/span>/);
    expect(rowIds((await theirs.get('/dashboard')).text)).toEqual([other.headers['request-id']]);
  });

  it('a signed-in session cookie opens no admin action', async () => {
    const c = t.client();
    await signIn(t, c, 'admin-probe@example.com');
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const [method, path] of [
      ['GET', '/clock'],
      ['POST', '/clock'],
      ['POST', '/seed'],
      ['GET', '/export'],
      ['POST', '/import'],
      ['POST', '/reset'],
      ['GET', '/requests'],
      ['GET', '/accounts'],
    ]) {
      expectError(await http(t.base, method!, `/admin/v1${path}`, { headers: { cookie }, json: method === 'POST' ? {} : undefined }), 401, 'authentication_error');
    }
  });
});

describe('sign-in link and session expiry follow the test clock', () => {
  it('a link is expired after 16 minutes, a session after 13 hours', async () => {
    const c = t.client();
    const link = await requestLink(t, c, 'late@example.com');
    expect((await advance('16m')).status).toBe(200);
    const late = await c.follow(link.replace(/^http:\/\/[^/]+/, ''));
    expect(late.text).toMatch(/expired/i);

    const s = t.client();
    await signIn(t, s, 'session@example.com');
    expect((await s.get('/dashboard')).status).toBe(200);
    expect((await advance('13h')).status).toBe(200);
    const after = await s.get('/dashboard');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/signin?expired');
  });
});

describe('daemon reset', () => {
  it('forgets the sign-in limits too', async () => {
    const c = t.client();
    // 5 mails per address per 15 minutes: the sixth request is refused...
    for (let i = 0; i < 5; i++) await requestLink(t, c, 'limited@example.com');
    await expect(requestLink(t, c, 'limited@example.com')).rejects.toThrow(/sign-in request: 429/);
    // ...until a reset.
    expect((await http(t.base, 'POST', '/admin/v1/reset', { headers: ADMIN, json: { keep_accounts: true } })).status).toBe(200);
    await expect(requestLink(t, c, 'limited@example.com')).resolves.toMatch(/\/signin\/verify\?token=/);
  });
});
