// The README's picture of a report (docs/images/report.png) stays current: a fresh report of
// examples/, opened in Chromium as scripts/report-screenshot.ts opens it, must have the structure
// the script wrote beside the picture (docs/images/report.structure.json: landmarks, headings,
// chart, filters, rows and their results, the opened card's outline). When the page changes,
// this fails until `npm run screenshot:report` makes both files again. Pixels are not compared.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/corpus.js';
import { openShotCard, reportStructure, SHOT } from '../helpers/report-structure.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[report-screenshot.test] SKIPPED: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it).`);
const PNG = join(ROOT, 'docs', 'images', 'report.png');
const STRUCTURE = join(ROOT, 'docs', 'images', 'report.structure.json');
const AGAIN = 'the report of examples/ no longer looks as docs/images/report.png shows it: run `npm run screenshot:report` and commit docs/images/report.png and report.structure.json';

const dir = mkdtempSync(join(tmpdir(), 'prov-shot-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the README\'s screenshot of a report', () => {
  it('is in the README with the command that makes it, a PNG of the script\'s width, under 200 KB', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(/!\[[^\]]+\]\(docs\/images\/report\.png\)/);
    expect(readme).toContain('npm run screenshot:report');
    const png = readFileSync(PNG);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(SHOT.width); // IHDR width
    expect(statSync(PNG).size).toBeLessThan(200 * 1024);
  });

  it.skipIf(!available)('a fresh report of examples/ has the structure the picture was made from', async () => {
    const report = join(dir, 'report.html');
    // As the script runs it: from the clone's root, so the rows read examples/...
    execFileSync(process.execPath, [join(ROOT, 'bin', 'provenance.js'), 'check', '--local', '--quiet', '--html', report, 'examples/'], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, NO_COLOR: '1' },
    });
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage({ viewport: { width: SHOT.width, height: SHOT.height }, colorScheme: 'light' });
      await page.goto(pathToFileURL(report).href);
      await page.waitForFunction(() => (document.getElementById('shown')?.textContent ?? '') !== '');
      await openShotCard(page);
      const fresh = await reportStructure(page);
      expect(fresh, AGAIN).toEqual(JSON.parse(readFileSync(STRUCTURE, 'utf8')));
    } finally {
      await browser.close();
    }
  }, 60_000);
});
