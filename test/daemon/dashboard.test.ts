// The dashboard over real HTTP on 127.0.0.1, as a browser without JavaScript uses it: the first
// key shown once, plan / usage / reset / burst, keys and their states, creating and revoking
// keys (CSRF-checked, through the same Accounts module as `daemon keys`), and a revoked key
// failing on its very next API call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, expectError, http } from './helpers.js';
import { csrfOf, shownKey, signIn, webApp, type WebApp, type WebClient } from './signin-helpers.js';

let t: WebApp;
beforeAll(async () => {
  t = await webApp();
});
afterAll(() => t.close());

const detect = (key: string) => http(t.base, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg()) } });

/** Rows of the key table: id -> the row's text (tags stripped). */
function keyRows(html: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of html.matchAll(/<tr class="(?:active|revoked)" data-key-id="([^"]+)">([\s\S]*?)<\/tr>/g)) {
    rows.set(m[1]!, m[2]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
  }
  return rows;
}

async function dashboard(c: WebClient): Promise<string> {
  const r = await c.get('/dashboard');
  expect(r.status).toBe(200);
  return r.text;
}

describe('access', () => {
  it('without a session, /dashboard leads to the sign-in page', async () => {
    const c = t.client();
    const r = await c.get('/dashboard');
    expect(r.status).toBe(303);
    expect(r.location).toBe('/signin?next=/dashboard');
    for (const [path, form] of [
      ['/dashboard/keys', { name: 'x' }],
      ['/dashboard/keys/key_x/revoke', {}],
    ] as const) {
      const post = await c.post(path, form);
      expect(post.status).toBe(303);
      expect(post.location).toMatch(/^\/signin/);
    }
  });

  it('a forged session cookie is no session', async () => {
    const c = t.client();
    c.cookies.set('prv_session', 'A'.repeat(43));
    expect((await c.get('/dashboard')).status).toBe(303);
  });
});

describe('first sign-in', () => {
  let c: WebClient;
  let first: string;
  let key: string;

  beforeAll(async () => {
    c = t.client();
    const landed = await signIn(t, c, 'first@example.com');
    expect(landed.url).toBe('/dashboard');
    first = landed.text;
    key = shownKey(first)!;
  });

  it('lands on the dashboard with the first key, shown once, with a copy button', () => {
    expect(key).toMatch(/^prv_[A-Za-z0-9]{38}$/);
    expect(first).toContain('it is shown only this once');
    expect(first).toContain('<button type="button" data-copy="new-key" hidden>Copy</button>');
    expect(first).toMatch(/<input id="new-key" type="text" readonly/);
    expect(first).toContain('Select the key and copy it');
    expect(first).toContain('Welcome!');
  });

  it('a reload no longer shows it', async () => {
    const again = await dashboard(c);
    expect(shownKey(again)).toBeUndefined();
    expect(again).not.toContain(key);
    expect(again).not.toContain(key.slice(8));
    expect(again).toContain(`<code>${key.slice(0, 8)}…</code>`);
  });

  it('shows plan, calls used / limit, the reset date and the burst limit', () => {
    expect(first).toContain('<dt>Plan</dt><dd>Free</dd>');
    expect(first).toContain('<dt>Calls this month</dt><dd>0 <small>of 500</small></dd>');
    expect(first).toContain('<dt>Quota resets</dt><dd>1 Dec 2026 <small>00:00 UTC</small></dd>');
    expect(first).toContain('<dt>Burst limit</dt><dd>10 <small>requests / min, per key</small></dd>');
    expect(first).toContain('500 calls left this month');
    expect(first).toContain('<span>first@example.com</span>');
  });

  it('lists the key: name, first characters, created, last used, active', () => {
    const rows = [...keyRows(first).values()];
    expect(rows).toEqual([`first key ${key.slice(0, 8)}… 15 Nov 2026, 12:00 never Active Revoke`]);
    expect(first).toContain('<th>Created (UTC)</th><th>Last used (UTC)</th>');
  });

  it('the key works on the API, and the dashboard counts the call and its time', async () => {
    t.clock.advance(60_000);
    const r = await detect(key);
    expect(r.status).toBe(200);
    const page = await dashboard(c);
    expect(page).toContain('<dt>Calls this month</dt><dd>1 <small>of 500</small></dd>');
    expect([...keyRows(page).values()][0]).toContain('15 Nov 2026, 12:01 Active');
  });
});

describe('keys', () => {
  let c: WebClient;
  let firstKey: string;
  let csrf: string;

  beforeAll(async () => {
    c = t.client();
    const landed = await signIn(t, c, 'keys@example.com');
    firstKey = shownKey(landed.text)!;
    csrf = csrfOf(landed.text);
  });

  it('"Create key" makes a key with the same Accounts module as `daemon keys create`, shown once', async () => {
    const r = await c.post('/dashboard/keys', { csrf, name: 'ci runner' });
    expect(r.status).toBe(303);
    expect(r.location).toBe('/dashboard');
    const page = await dashboard(c);
    const second = shownKey(page)!;
    expect(second).toMatch(/^prv_/);
    expect(second).not.toBe(firstKey);
    expect(page).toContain('Your new API key “ci runner”');
    expect(shownKey(await dashboard(c))).toBeUndefined();
    // The operator's view (`daemon keys list`) has it.
    const listed = await t.app.services.accounts.listKeys('keys@example.com');
    expect(listed.map((k) => [k.name, k.prefix])).toEqual([
      ['first key', firstKey.slice(0, 8)],
      ['ci runner', second.slice(0, 8)],
    ]);
    expect((await detect(second)).status).toBe(200);
  });

  it('an empty name gets a numbered default; a long or control-character name is refused', async () => {
    await c.post('/dashboard/keys', { csrf, name: '  ' });
    expect(shownKey(await dashboard(c))).toBeDefined();
    expect((await t.app.services.accounts.listKeys('keys@example.com')).map((k) => k.name)).toContain('key 3');
    await c.post('/dashboard/keys', { csrf, name: 'x'.repeat(61) });
    const page = await dashboard(c);
    expect(shownKey(page)).toBeUndefined();
    expect(page).toContain('A key name is at most 60 characters');
    await c.post('/dashboard/keys', { csrf, name: 'a\u0000b' });
    expect(await t.app.services.accounts.listKeys('keys@example.com')).toHaveLength(3);
  });

  it('names are escaped in the page', async () => {
    await c.post('/dashboard/keys', { csrf, name: '<img src=x onerror=alert(1)>' });
    const page = await dashboard(c);
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('"Revoke": the key fails on its very next API call (401), and is listed as revoked', async () => {
    const page = await dashboard(c);
    const firstId = [...keyRows(page).entries()].find(([, text]) => text.startsWith('first key'))![0];
    expect((await detect(firstKey)).status).toBe(200);
    const r = await c.post(`/dashboard/keys/${firstId}/revoke`, { csrf });
    expect(r.status).toBe(303);
    expectError(await detect(firstKey), 401, 'authentication_error');
    const after = await dashboard(c);
    expect(after).toContain(`Revoked “first key” (${firstKey.slice(0, 8)}…). Requests with it now get 401.`);
    const row = keyRows(after).get(firstId)!;
    expect(row).toContain('Revoked 15 Nov 2026, 12:01');
    expect(row).not.toContain('Revoke ');
    expect(after).not.toContain(`action="/dashboard/keys/${firstId}/revoke"`);
    expect((await t.app.services.accounts.listKeys('keys@example.com')).find((k) => k.id === firstId)!.revoked_at).toBe('2026-11-15T12:01:00.000Z');
  });

  it('refuses forms without the CSRF token, or with another session\'s (403, nothing changes)', async () => {
    const before = (await t.app.services.accounts.listKeys('keys@example.com')).length;
    const noToken = await c.post('/dashboard/keys', { name: 'forged' });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('Nothing was changed');
    const other = t.client();
    const otherCsrf = csrfOf((await signIn(t, other, 'other@example.com')).text);
    expect((await c.post('/dashboard/keys', { csrf: otherCsrf, name: 'forged' })).status).toBe(403);
    expect(await t.app.services.accounts.listKeys('keys@example.com')).toHaveLength(before);

    const active = (await t.app.services.accounts.listKeys('keys@example.com')).find((k) => !k.revoked_at)!;
    expect((await c.post(`/dashboard/keys/${active.id}/revoke`, {})).status).toBe(403);
    expect((await c.post(`/dashboard/keys/${active.id}/revoke`, { csrf: otherCsrf })).status).toBe(403);
    expect((await t.app.services.accounts.listKeys('keys@example.com')).find((k) => k.id === active.id)!.revoked_at).toBeNull();
  });

  it('cannot revoke another account\'s key (404), even with its own valid token', async () => {
    const victim = await t.account('victim@example.com');
    const r = await c.post(`/dashboard/keys/${victim.keyId}/revoke`, { csrf });
    expect(r.status).toBe(404);
    expect((await detect(victim.key)).status).toBe(200);
  });
});

describe('accounts made by the operator', () => {
  it('sign in without a new key, and see their plan and usage', async () => {
    const made = await t.account('ops@example.com', 'custom', 2000);
    expect((await detect(made.key)).status).toBe(200);
    const c = t.client();
    const landed = await signIn(t, c, 'OPS@example.com');
    expect(shownKey(landed.text)).toBeUndefined();
    expect(landed.text).not.toContain('Welcome!');
    expect(landed.text).toContain('<dt>Plan</dt><dd>Custom</dd>');
    expect(landed.text).toContain('<dt>Calls this month</dt><dd>1 <small>of 2,000</small></dd>');
    expect(landed.text).toContain('<dt>Burst limit</dt><dd>300 <small>requests / min, per key</small></dd>');
    expect(keyRows(landed.text).size).toBe(1);
  });

  it('with every key revoked, the page says so and offers "Create key"', async () => {
    const made = await t.account('allrevoked@example.com');
    await t.app.services.accounts.revokeKey(made.keyId);
    const c = t.client();
    const landed = await signIn(t, c, 'allrevoked@example.com');
    expect(landed.text).toContain('No active key. Create one to call the API.');
    expect(landed.text).toContain('<button type="submit">Create key</button>');
  });
});
