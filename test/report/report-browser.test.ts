// `check --html` in a real browser: Debian's Chromium (/usr/bin/chromium) through playwright-core,
// as test/daemon/browser.test.ts drives the dashboard. The report of the shared corpus and the AI
// corpus (skipped where absent) opens from file:// with no network request, has one row per
// input, filters and search give the right rows, every thumbnail (the files' and the C2PA
// manifests' own) has loaded, and the card names the signer; axe-core finds no serious or
// critical violation; a scan stopped by SIGINT, and a file cut short, still open and list what
// was checked.
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR, CORPUS_FILES, HAS_CORPUS, loadExpected, ROOT } from '../helpers/corpus.js';
import { parseLines, runCli } from '../helpers/run-cli.js';
import { tinyJpeg } from '../fixtures/make.js';
import { disagreementLine, verdictLine } from '../../src/verdict/verdict.js';

const CHROMIUM = '/usr/bin/chromium';
const CORPUS_AI = join(CORPUS_DIR, 'ai');
const BIN = join(ROOT, 'bin', 'provenance.js');
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[report-browser.test] SKIPPED: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it).`);
const withCorpus = available && HAS_CORPUS && existsSync(CORPUS_AI);
if (available && !withCorpus) console.warn('[report-browser.test] corpus tests SKIPPED: the shared corpus (files and ai) is absent.');

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser | undefined;
let dir: string;
let report: string;
let lines: any[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-report-'));
  if (!available) return;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  if (withCorpus) {
    report = join(dir, 'corpus.html');
    // --json and --html together: the same results as NDJSON on stdout, to check the page against.
    const run = await runCli(['check', '--local', '--json', '--html', report, CORPUS_FILES, CORPUS_AI]);
    expect(run.stderr).toContain(`report written to ${report}`);
    lines = parseLines(run.stdout);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a report from disk; `requests` lists every URL the page asked for except itself and data:. */
async function open(file: string, options: { width?: number; dark?: boolean } = {}): Promise<{ page: Page; requests: string[] }> {
  const context = await browser!.newContext({ viewport: { width: options.width ?? 1100, height: 900 }, colorScheme: options.dark ? 'dark' : 'light' });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== url && !r.url().startsWith('data:')) requests.push(r.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('shown')?.textContent !== '');
  expect(errors).toEqual([]);
  return { page, requests };
}

const visibleSources = (page: Page) => page.$$eval('#rows > li:not([hidden])', (rows) => rows.map((r) => r.getAttribute('data-source')!).sort());

/** The rows a filter should show, decided from the NDJSON results on their own. */
function expectedFor(filter: string): string[] {
  return lines
    .filter((l) => {
      if (l.error) return filter === 'error';
      const m: any[] = l.matches;
      const planned = (x: any) => x.result === 'unavailable' && ['watermark_a', 'watermark_b', 'open_content_seal'].includes(x.check);
      if (filter === 'found') return m.some((x) => x.result === 'found');
      if (filter === 'camera') return m.some((x) => x.check === 'camera_reference' && x.result === 'found');
      if (filter === 'unavailable') return m.some((x) => x.result === 'unavailable' && !planned(x));
      if (filter === 'ai')
        return m.some((x) => x.result === 'found' && (x.check === 'generator_metadata' || x.check === 'invisible_watermark' || (x.check === 'c2pa' && x.claims?.ai_generated === true)));
      return false;
    })
    .map((l) => l.source)
    .sort();
}

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated, not added as a <script>: the report's policy runs no inline script but its own.
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.id}: ${v.nodes[0]?.html}`);
  });
}

describe.skipIf(!withCorpus)('the corpus report in Chromium', () => {
  it('opens from file:// with no network request, one row per input, every row whole', async () => {
    const { page, requests } = await open(report);
    expect(requests).toEqual([]);
    expect(lines.length).toBeGreaterThan(50);
    expect(await visibleSources(page)).toEqual(lines.map((l) => l.source).sort());
    // In input order, as the NDJSON lines (rows are written in order, whatever finished first).
    expect(await page.$$eval('#rows > li', (rows) => rows.map((r) => r.getAttribute('data-source')))).toEqual(lines.map((l) => l.source));
    // Each check's result is on the row, as the NDJSON has it.
    const attrs = await page.$$eval('#rows > li', (rows) =>
      Object.fromEntries(rows.map((r) => [r.getAttribute('data-source'), Object.fromEntries([...r.attributes].filter((a) => a.name.startsWith('data-result-')).map((a) => [a.name.slice(12), a.value]))])),
    );
    for (const l of lines.filter((x) => !x.error)) {
      for (const m of l.matches) if (!['watermark_a', 'watermark_b', 'open_content_seal'].includes(m.check)) expect(attrs[l.source][m.check]).toBe(m.result);
    }
    expect(await page.textContent('#scan-meta')).toMatch(new RegExp(`^${lines.length} inputs checked in [\\d.]+ s \\([\\d.]+ files/s\\)\\.$`));
    expect(await page.locator('#chart tbody tr').count()).toBeGreaterThanOrEqual(4);
    await page.context().close();
  }, 60_000);

  it('the filters and the search give the right rows; sorting keeps every row', async () => {
    const { page } = await open(report);
    for (const filter of ['found', 'ai', 'camera', 'unavailable', 'error']) {
      await page.check(`input[name=show][value=${filter}]`);
      expect(await visibleSources(page), filter).toEqual(expectedFor(filter));
    }
    expect(expectedFor('ai').length).toBeGreaterThan(5);
    await page.check('input[name=show][value=all]');
    await page.fill('#q', 'ca.JPG');
    expect(await visibleSources(page)).toEqual(lines.map((l) => l.source).filter((s) => s.toLowerCase().includes('ca.jpg')).sort());
    // The signer is searchable too.
    const expected = loadExpected();
    const signer = Object.values(expected).find((e) => e.c2pa.issuer)!.c2pa.issuer!;
    await page.fill('#q', signer);
    const signed = lines.filter((l) => l.matches?.some((m: any) => m.issuer === signer)).map((l) => l.source).sort();
    expect(signed.length).toBeGreaterThan(0);
    expect(await visibleSources(page)).toEqual(signed);
    await page.fill('#q', '');
    await page.selectOption('#sort', 'name');
    const order = await page.$$eval('#rows > li', (rows) => rows.map((r) => r.getAttribute('data-source')!.toLowerCase()));
    expect(order).toEqual([...order].sort());
    expect(order).toHaveLength(lines.length);
    expect(await page.textContent('#shown')).toBe(`${lines.length} of ${lines.length} shown`);
    await page.context().close();
  }, 60_000);

  it('every thumbnail has loaded: the files\', the claim thumbnails and the ingredients\'; the card names the signer', async () => {
    const { page } = await open(report);
    // A card is made when its row is first opened (from the comment that holds it): open every
    // row, so that the claim and ingredient thumbnails are in the page, then close them again.
    await page.$$eval('#rows details', (all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await page.waitForFunction(() => document.querySelectorAll('#rows details > .card').length === document.querySelectorAll('#rows details').length);
    await page.$$eval('#rows details', (all) => all.forEach((d) => ((d as HTMLDetailsElement).open = false)));
    const sizes = await page.$$eval('img', async (imgs) => {
      await Promise.all((imgs as HTMLImageElement[]).map((i) => i.decode().catch(() => undefined)));
      return (imgs as HTMLImageElement[]).map((i) => ({ cls: i.className, w: i.naturalWidth, row: i.closest('li[data-source]')!.getAttribute('data-source') }));
    });
    expect(sizes.filter((s) => s.w === 0)).toEqual([]);
    expect(sizes.every((s) => s.w <= 160)).toBe(true);
    const rowThumbs = sizes.filter((s) => s.cls === '').length;
    const images = lines.filter((l) => l.media?.type.startsWith('image/')).length;
    expect(rowThumbs).toBeGreaterThan(images * 0.8); // a few pictures sharp cannot read get the icon
    expect(sizes.filter((s) => s.cls === 'ing-thumb').length).toBeGreaterThan(0);
    expect(sizes.filter((s) => s.cls === 'claim-thumb').length).toBeGreaterThan(0);

    // The card of a signed file with an ingredient, opened by keyboard.
    const ca = join(CORPUS_FILES, 'CA.jpg');
    const row = page.locator(`#rows > li[data-source="${ca}"]`);
    await row.locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await row.locator('details').getAttribute('open')).not.toBeNull();
    const issuer = loadExpected()['CA.jpg']!.c2pa.issuer!;
    expect(await row.locator('.card .signer').textContent()).toContain(issuer);
    expect(await row.locator('.card .ings li').first().textContent()).toContain('A.jpg');
    expect(await row.locator('.card .ing-thumb').evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);
    await page.context().close();
  }, 60_000);

  it("every card opens with the file's verdict, the words of its --json line's verdict (issue 31)", async () => {
    const { page } = await open(report);
    await page.$$eval('#rows details', (all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await page.waitForFunction(() => document.querySelectorAll('#rows details > .card').length === document.querySelectorAll('#rows details').length);
    const shown = await page.$$eval('#rows > li[data-source]', (rows) =>
      rows.map((r) => ({ source: r.getAttribute('data-source')!, lines: [...r.querySelectorAll('.card header .verdict')].map((p) => p.textContent) })),
    );
    const expected = lines.filter((l) => !l.error).map((l) => ({ source: l.source, lines: [verdictLine(l.verdict), ...(l.verdict.disagreement ? [disagreementLine(l.verdict)] : [])] }));
    expect(shown.filter((r) => expected.some((e) => e.source === r.source))).toEqual(expected);
    // Both corpora hold AI-made files and files with no AI marker.
    expect(new Set(expected.map((e) => e.lines[0]!.split(':')[0]!.split(' (')[0]))).toEqual(new Set(['AI mark', 'AI-generated', 'No AI marker found']));
    await page.context().close();
  }, 60_000);

  it('axe-core: no serious or critical violation, light and dark; readable at 320 px', async () => {
    for (const dark of [false, true]) {
      const { page } = await open(report, { dark, width: dark ? 320 : 1100 });
      // Open a few cards, so that their markup is checked as well.
      for (const name of ['CA.jpg', 'C.jpg', 'Canon_40D.jpg']) await page.locator(`#rows > li[data-source="${join(CORPUS_FILES, name)}"] summary`).click();
      expect(await axeViolations(page)).toEqual([]);
      if (dark) {
        expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(18, 18, 18)');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      }
      await page.context().close();
    }
  }, 90_000);
});

describe.skipIf(!available)('a report cut short', () => {
  it('SIGINT during the scan: exit 130, the report is a whole document listing exactly what was checked', async () => {
    const folder = join(dir, 'many');
    mkdirSync(folder);
    const source = join(dir, 'one.jpg');
    writeFileSync(source, tinyJpeg({ width: 64, height: 48 }));
    for (let i = 0; i < 3000; i++) linkSync(source, join(folder, `s${String(i).padStart(4, '0')}.jpg`));
    const out = join(dir, 'stopped.html');
    const child = spawn(process.execPath, [BIN, 'check', '--local', '--json', '--html', out, folder], { env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let sent = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      if (!sent && stdout.split('\n').length > 200) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(sent).toBe(true);
    expect(code).toBe(130);
    const checked = parseLines(stdout).map((l) => l.source).sort();
    expect(checked.length).toBeLessThan(3000);
    const html = readFileSync(out, 'utf8');
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    const { page, requests } = await open(out);
    expect(requests).toEqual([]);
    expect(await visibleSources(page)).toEqual(checked);
    // Copies of one picture: the first row holds it, the others point at it, and all show it
    // (rows still waiting for pictures 2 s after Ctrl-C are written without one).
    expect(await page.locator('img[data-sha]').count()).toBe(1);
    const widths = await page.$$eval('#rows img', (imgs) => Promise.all((imgs as HTMLImageElement[]).map((i) => i.decode().then(() => i.naturalWidth, () => 0))));
    expect(widths.length).toBeGreaterThan(checked.length / 2);
    expect(widths.every((w) => w > 0)).toBe(true);
    expect(await page.textContent('#scan-meta')).toMatch(new RegExp(`^Stopped \\(Ctrl-C, or an error that ended the walk\\) after ${checked.length} inputs`));
    await page.context().close();

    // A file cut between two rows (the process killed outright) still opens and lists its rows.
    const rows = html.split('\n');
    const head = rows.findIndex((l) => l.includes('<ol id="rows"')) + 1;
    const cut = join(dir, 'cut.html');
    writeFileSync(cut, rows.slice(0, head + 50).join('\n'));
    const opened = await open(cut);
    expect(await opened.page.locator('#rows > li').count()).toBe(50);
    expect(await opened.page.textContent('#scan-meta')).toMatch(/^The scan did not finish .*: 50 inputs listed/);
    await opened.page.context().close();
  }, 120_000);
});
