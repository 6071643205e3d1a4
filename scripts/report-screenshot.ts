// `npm run screenshot:report`: the README's picture of an HTML report. Runs
// `node bin/provenance.js check --local --html REPORT examples/` (the shipped examples, from the
// clone's root, so the rows read examples/...), opens the report in Debian's Chromium
// (/usr/bin/chromium) through playwright-core at a fixed viewport, light scheme, opens the card
// of examples/signed.jpg, and writes docs/images/report.png (the whole page, reduced to a
// palette: about 100 KB) and docs/images/report.structure.json, the page's structure
// (test/helpers/report-structure.ts). test/report/report-screenshot.test.ts makes the structure
// again from a fresh report and fails when it differs: then run this again and commit both files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { openShotCard, reportStructure, SHOT } from '../test/helpers/report-structure.js';

const ROOT = resolve('.');
const CHROMIUM = '/usr/bin/chromium';
const OUT = join(ROOT, 'docs', 'images');

const tmp = mkdtempSync(join(tmpdir(), 'prov-shot-'));
try {
  const report = join(tmp, 'report.html');
  execFileSync(process.execPath, [join(ROOT, 'bin', 'provenance.js'), 'check', '--local', '--quiet', '--html', report, 'examples/'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NO_COLOR: '1', PROVENANCE_CONFIG_DIR: join(tmp, 'config') },
  });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'] });
  try {
    const page = await browser.newPage({ viewport: { width: SHOT.width, height: SHOT.height }, colorScheme: 'light', deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(report).href);
    await page.waitForFunction(() => (document.getElementById('shown')?.textContent ?? '') !== '');
    await openShotCard(page);
    // Every picture decoded before the shot.
    await page.$$eval('img', (imgs) => Promise.all((imgs as HTMLImageElement[]).map((i) => (i.src ? i.decode().catch(() => undefined) : undefined))));
    await page.evaluate(() => window.scrollTo(0, 0));
    const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' });
    mkdirSync(OUT, { recursive: true });
    // A palette of 64 colours: text, borders and 9 thumbnails need no more, and the file is a third.
    const small = await sharp(png).png({ palette: true, colours: 64, effort: 10, compressionLevel: 9, dither: 0.5 }).toBuffer();
    writeFileSync(join(OUT, 'report.png'), small);
    const structure = await reportStructure(page);
    writeFileSync(join(OUT, 'report.structure.json'), `${JSON.stringify(structure, null, 2)}\n`);
    const { width, height } = await sharp(small).metadata();
    console.log(`docs/images/report.png: ${width}x${height}, ${(statSync(join(OUT, 'report.png')).size / 1024).toFixed(0)} KB; docs/images/report.structure.json written`);
  } finally {
    await browser.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
