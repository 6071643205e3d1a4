// The scan report's sort in a real browser (Debian's Chromium through playwright-core, as
// report-browser.test.ts): each sort, after any other, puts every row where its own key says.
// The report's script once keyed rows by their place in the previous order, so the second sort
// of a page sorted rows by another row's name or size (issue 34, item 8).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_MEDIA, tinyJpeg, tinyPng } from '../fixtures/make.js';
import { runCli } from '../helpers/run-cli.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[report-sort.test] SKIPPED: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it).`);

let browser: Browser | undefined;
let dir: string;
let report: string;
// name -> bytes: names, sizes and types in different orders, so no sort repeats another.
const files: [string, Uint8Array][] = [
  ['d.jpg', tinyJpeg({ width: 16, height: 16, seed: 1 })],
  ['b.png', tinyPng({ seed: 2 })],
  ['f.jpg', tinyJpeg({ width: 200, height: 150, seed: 3 })],
  ['a.jpg', tinyJpeg({ width: 64, height: 48, seed: 4 })],
  ['e.png', tinyPng({ seed: 5 })],
  ['c.jpg', tinyJpeg({ width: 120, height: 90, seed: 6 })],
  ['g.txt', NOT_MEDIA],
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-report-sort-'));
  if (!available) return;
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
  report = join(dir, 'report.html');
  const run = await runCli(['check', '--local', '--json', '--html', report, ...files.map(([name]) => join(dir, name))]);
  expect(run.stderr).toContain(`report written to ${report}`);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Row {
  n: number;
  source: string;
  type: string;
  bytes: number;
  found: boolean;
}

const rowsOf = (page: Page): Promise<Row[]> =>
  page.$$eval('#rows > li', (lis) =>
    lis.map((r) => ({
      n: Number(r.getAttribute('data-n')),
      source: r.getAttribute('data-source')!,
      type: r.getAttribute('data-type') ?? '~',
      bytes: Number(r.getAttribute('data-bytes') ?? 0),
      found: ` ${r.getAttribute('data-tags')} `.includes(' found '),
    })),
  );

/** The order a sort must give: by its key, ties in input order (as the script's comparison). */
function expectedOrder(rows: Row[], by: string): string[] {
  const key = (r: Row): string | number =>
    by === 'name' ? r.source.toLowerCase() : by === 'type' ? r.type : by === 'size' ? r.bytes : by === 'found' ? (r.found ? 0 : 1) : r.n;
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.n - b.n)).map((r) => r.source);
}

describe.skipIf(!available)('the report sorts right after any earlier sort', () => {
  it('every sequence of sorts gives each sort its own order', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(report).href);
    await page.waitForFunction(() => document.getElementById('shown')?.textContent !== '');
    const rows = await rowsOf(page);
    expect(rows).toHaveLength(files.length);
    // Name, size and input order all differ: a sort keyed by the wrong row shows.
    const names = expectedOrder(rows, 'name');
    expect(expectedOrder(rows, 'size')).not.toEqual(names);
    expect(rows.map((r) => r.source)).not.toEqual(names);
    for (const sequence of [
      ['name', 'size'],
      ['size', 'name', 'input'],
      ['type', 'size', 'name'],
      ['found', 'name', 'size', 'input'],
      ['name', 'name', 'type', 'input', 'size'],
    ]) {
      for (const by of sequence) {
        await page.selectOption('#sort', by);
        expect((await rowsOf(page)).map((r) => r.source), `${sequence.join(' > ')}: ${by}`).toEqual(expectedOrder(rows, by));
      }
      await page.selectOption('#sort', 'input');
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
