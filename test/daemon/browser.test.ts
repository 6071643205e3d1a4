// The pages in a real browser: playwright-core driving Debian's Chromium (/usr/bin/chromium,
// installed by .ci/run; never a downloaded browser). Signs in through the outbox link, sees the
// first key once, calls /v1/detect with it, creates a second key, revokes the first (its next
// call is 401) and saves full-page screenshots of the dashboard in test/.tmp/. A second run
// with JavaScript off shows the pages work without it. Everything stays on 127.0.0.1.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/daemon/web/outbox.js';
import { ROOT } from '../helpers/corpus.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, http, listen, makeApp, storeKind, type TestApp } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
// The file store's run keeps test/.tmp/ itself; the runs on PostgreSQL and in test mode (the
// contract suite again, vitest.config.ts) at the same time write theirs into folders of their own.
const SHOTS = join(ROOT, 'test', '.tmp', storeKind() === 'postgres' ? 'postgres' : process.env.PROVENANCE_SUITE_TEST_MODE === '1' ? 'test-mode' : '');
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[browser.test] SKIPPED: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it).`);

let t: TestApp;
let base: string;
const profiles: string[] = [];

async function launch(options: { javaScriptEnabled: boolean }): Promise<BrowserContext> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'prov-chromium-'));
  profiles.push(profile);
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1100, height: 900 },
    javaScriptEnabled: options.javaScriptEnabled,
  });
}

const detect = (key: string) => http(base, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg()) } });

function latestLink(): string {
  const link = listOutbox(t.dir).at(-1)?.link;
  if (!link) throw new Error('no link in the outbox');
  return link;
}

async function signInThroughOutbox(page: Page, email: string, shots = false): Promise<void> {
  await page.goto(`${base}/signin`);
  await page.fill('#email', email);
  if (shots) await page.screenshot({ path: join(SHOTS, 'signin.png'), fullPage: true });
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:text("Check your inbox")');
  expect(await page.textContent('main')).toContain(email);
  if (shots) await page.screenshot({ path: join(SHOTS, 'signin-sent.png'), fullPage: true });
  // The link opens a page; its "Sign in as" button signs in (a GET alone never does).
  await page.goto(latestLink());
  expect(new URL(page.url()).pathname).toBe('/signin/verify');
  if (shots) await page.screenshot({ path: join(SHOTS, 'signin-confirm.png'), fullPage: true });
  await page.click(`button:text("Sign in as ${email}")`);
  await page.waitForURL((url) => url.pathname === '/dashboard');
  expect(new URL(page.url()).pathname).toBe('/dashboard');
}

beforeAll(async () => {
  if (!available) return;
  mkdirSync(SHOTS, { recursive: true });
  // The default mailer: .eml files in <data-dir>/outbox/, as `provenance daemon start` has it.
  t = await makeApp({ web: {} });
  base = await listen(t.app);
});

afterAll(async () => {
  await t?.close();
  for (const p of profiles) rmSync(p, { recursive: true, force: true });
});

describe.skipIf(!available)('dashboard in Chromium', () => {
  it('sign in, first key once, use it, create a second, revoke the first, screenshot', async () => {
    const context = await launch({ javaScriptEnabled: true });
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      const page = await context.newPage();
      await signInThroughOutbox(page, 'browser@example.com', true);

      // The first key, shown once, with a working copy button.
      const first = await page.inputValue('#new-key');
      expect(first).toMatch(/^prv_[A-Za-z0-9]{38}$/);
      expect(await page.isVisible('text=it is shown only this once')).toBe(true);
      const copy = page.locator('button[data-copy="new-key"]');
      expect(await copy.isVisible()).toBe(true);
      expect(await page.isVisible('text=Select the key and copy it')).toBe(false);
      await copy.click();
      await page.waitForSelector('button[data-copy="new-key"]:text("Copied")');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);

      await page.reload();
      expect(await page.locator('#new-key').count()).toBe(0);
      expect(await page.content()).not.toContain(first);

      // The key works on the API; the dashboard counts the call.
      expect((await detect(first)).status).toBe(200);
      await page.reload();
      expect(await page.textContent('.stats')).toContain('1 of 500');

      // A second key.
      await page.fill('#key-name', 'second key');
      await page.click('button:text("Create key")');
      await page.waitForSelector('#new-key');
      const second = await page.inputValue('#new-key');
      expect(second).not.toBe(first);
      expect(await page.textContent('#newkey-title')).toContain('second key');
      await page.screenshot({ path: join(SHOTS, 'dashboard-new-key.png'), fullPage: true });
      expect((await detect(second)).status).toBe(200);

      // Revoke the first (the script asks for confirmation first).
      page.once('dialog', (dialog) => void dialog.accept());
      await page.click('tr:has-text("first key") button:text("Revoke")');
      await page.waitForSelector('text=Requests with it now get 401');
      expect((await detect(first)).status).toBe(401);
      expect((await detect(second)).status).toBe(200);
      expect(await page.textContent('tr:has-text("first key")')).toContain('Revoked');
      expect(await page.locator('tr:has-text("first key") button').count()).toBe(0);
      // Reload the dashboard to see the final state: 3 calls counted, no key shown, one revoked.
      await page.reload();
      expect(await page.textContent('.stats')).toContain('3 of 500');
      expect(await page.locator('#new-key').count()).toBe(0);

      await page.screenshot({ path: join(SHOTS, 'dashboard.png'), fullPage: true });

      // Readable on a phone: nothing wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(SHOTS, 'dashboard-phone.png'), fullPage: true });

      // Sign out ends the session.
      await page.click('button:text("Sign out")');
      await page.waitForSelector('text=You have signed out');
      await page.goto(`${base}/dashboard`);
      expect(new URL(page.url()).pathname).toBe('/signin');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the Content-Security-Policy blocks nothing the pages or /docs use (no violation reported)', async () => {
    const context = await launch({ javaScriptEnabled: true });
    try {
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(`${new URL(page.url()).pathname}: ${m.text()}`);
      });
      await signInThroughOutbox(page, 'csp@example.com');
      expect(await page.isVisible('button[data-copy="new-key"]')).toBe(true); // the script ran
      await page.goto(`${base}/signin`);
      // Swagger UI renders the operations from its own files and fetches the document from here.
      await page.goto(`${base}/docs/`);
      await page.waitForSelector('.opblock-summary-path:has-text("/v1/detect")', { timeout: 20_000 });
      const font = await page.evaluate(() => getComputedStyle(document.querySelector('.swagger-ui .info .title')!).fontFamily);
      expect(font).toBeTruthy();
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('works without JavaScript: forms post, the key is selectable, no copy button', async () => {
    const context = await launch({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await signInThroughOutbox(page, 'nojs@example.com');
      const key = await page.inputValue('#new-key');
      expect(key).toMatch(/^prv_/);
      expect(await page.isVisible('button[data-copy="new-key"]')).toBe(false);
      expect(await page.isVisible('text=Select the key and copy it')).toBe(true);
      await page.click('button:text("Create key")');
      await page.waitForSelector('#new-key');
      expect(await page.inputValue('#new-key')).not.toBe(key);
      // Without the script there is no confirmation dialog: the form posts at once.
      await page.click('tr:has-text("first key") button:text("Revoke")');
      await page.waitForSelector('text=Requests with it now get 401');
      expect((await detect(key)).status).toBe(401);
    } finally {
      await context.close();
    }
  }, 60_000);
});
