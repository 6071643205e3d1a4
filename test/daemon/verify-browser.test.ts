// The Verify page in Chromium (/usr/bin/chromium through playwright-core, as browser.test.ts):
// sign in through the outbox link, drop a file on the page, see its card (the same renderer as
// `check --html`), and see the dashboard's usage move by one; the file picker does the same by
// keyboard; axe-core finds no serious or critical violation; readable at 320 px.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/daemon/web/outbox.js';
import { CORPUS_FILES, HAS_CORPUS, loadExpected } from '../helpers/corpus.js';
import { tinyJpeg } from '../fixtures/make.js';
import { listen, makeApp, type TestApp } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[verify-browser.test] SKIPPED: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it).`);
const require = createRequire(import.meta.url);

let t: TestApp;
let base: string;
let browser: Browser | undefined;
const tmp = mkdtempSync(join(tmpdir(), 'prov-verify-'));

beforeAll(async () => {
  if (!available) return;
  t = await makeApp({ web: {} });
  base = await listen(t.app);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-quic'] });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${base}/signin`);
  await page.fill('#email', email);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:text("Check your inbox")');
  const link = listOutbox(t.dir).at(-1)?.link;
  if (!link) throw new Error('no link in the outbox');
  await page.goto(link);
  // The link's page: its button signs in (a GET alone never does).
  await page.click(`button:text("Sign in as ${email}")`);
  await page.waitForURL((url) => url.pathname !== '/signin/verify');
}

const callsThisMonth = async (page: Page) => {
  await page.goto(`${base}/dashboard`);
  return (await page.textContent('.stats'))!.replace(/\s+/g, ' ');
};

/** Drops `bytes` on the drop box as a browser's drag and drop would (a DataTransfer with a File). */
async function drop(page: Page, name: string, bytes: Uint8Array, type: string): Promise<void> {
  await page.evaluate(
    ({ name, data, type }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], name, { type }));
      const box = document.getElementById('drop')!;
      box.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { name, data: Buffer.from(bytes).toString('base64'), type },
  );
}

describe.skipIf(!available)('Verify in Chromium', () => {
  it('a dropped file gets its card; the dashboard counts one call; the picker works by keyboard', async () => {
    const context = await browser!.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const csp: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) csp.push(m.text());
    });
    try {
      await signIn(page, 'verify@example.com');
      expect(await callsThisMonth(page)).toContain('0 of 500');
      await page.click('a[href="/verify"]');
      expect(await page.textContent('#cost')).toContain('Each file you check costs one call');

      const signed = HAS_CORPUS ? join(CORPUS_FILES, 'CA.jpg') : undefined;
      const bytes = signed ? readFileSync(signed) : tinyJpeg({ width: 300, height: 200 });
      await drop(page, 'dropped.jpg', bytes, 'image/jpeg');
      const card = page.locator('#results .card').first();
      await card.waitFor();
      expect(await card.locator('h3').textContent()).toBe('dropped.jpg');
      expect(await card.locator('img.file-thumb').evaluate((i: HTMLImageElement) => i.decode().then(() => i.naturalWidth))).toBeGreaterThan(0);
      if (signed) {
        expect(await card.locator('.signer').textContent()).toContain(loadExpected()['CA.jpg']!.c2pa.issuer!);
        expect(await card.locator('img.ing-thumb').evaluate((i: HTMLImageElement) => i.decode().then(() => i.naturalWidth))).toBeGreaterThan(0);
      }
      expect(await page.textContent('#quota')).toBe('499 of 500 calls left');

      // The picker, reached and used by keyboard (Tab from the link before it).
      await page.focus('a[href="/dashboard"]');
      let focused = '';
      for (let i = 0; i < 6 && focused !== 'files'; i++) {
        await page.keyboard.press('Tab');
        focused = await page.evaluate(() => document.activeElement?.id ?? '');
      }
      expect(focused).toBe('files');
      await page.setInputFiles('#files', { name: 'picked.jpg', mimeType: 'image/jpeg', buffer: Buffer.from(tinyJpeg({ seed: 3 })) });
      await page.waitForSelector('#results .card h3:text("picked.jpg")');
      expect(await page.locator('#results .card').count()).toBe(2);

      const violations = await (async () => {
        // Evaluated through the DevTools protocol: the page's policy allows no inline script, rightly.
        await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
        return page.evaluate(async () => {
          const axe = (window as any).axe;
          if (!axe) return ['axe-core could not be loaded into the page'];
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.id}: ${v.nodes[0]?.html}`);
        });
      })();
      expect(violations).toEqual([]);

      await page.setViewportSize({ width: 320, height: 800 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

      // Two files, two calls, on the dashboard as on the page.
      expect(await callsThisMonth(page)).toContain('2 of 500');
      expect(csp).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
