// `npm run bench:report`: the cost of `check --html` (issue 25). Builds .bench/report (the folder
// scan bench's folder, made the same way: 1,000 camera-like JPEGs with unique bytes, 4032x3024
// and 1600x1200, and 100 C2PA-signed JPEGs) and .bench/report-10k (that folder ten times over,
// hard links: 11,000 inputs), then times, in alternating rounds, `check --json DIR` and
// `check --json --html REPORT DIR` (the same scan and the same stdout, plus the report), both
// with stdout to /dev/null, and weighs the report. Then opens the report in Chromium from
// file:// and times the load (until the script has counted every row) and a filter and a search.
// `BENCH_RUNS` rounds (default 1); `--folder report` for the 1,100-file folder only, `--folder 10k`
// for the 11,000; `--checks c2pa,camera_reference` passes a check list to both scans (without
// the pixel checks a scan decodes no picture, and the thumbnails are the report's whole cost).
// `BENCH_BASELINE=DIR` also times DIR/bin/provenance.js (an earlier build: a copy of bin/, dist/
// and package.json, node_modules linked) in the same rounds, and opens its report too, so a
// change is measured side by side on this shared machine. Each round prints the machine's speed.
// Figures go into docs/PERFORMANCE.md by hand; nothing here is a pass/fail test.
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchOption, listFiles } from './bench-kit.js';
import { buildScanFolder } from './bench-folders.js';
import { sha256Ms } from './machine-speed.js';
import { makeThumbnail } from '../src/media/thumbnail.js';

const ROOT = resolve('.');
const BENCH = join(ROOT, '.bench');
const BIN = join(ROOT, 'bin', 'provenance.js');
const CHROMIUM = '/usr/bin/chromium';


/** `from` ten times over, as hard links (the same bytes: a folder with copies). */
function buildRepeated(from: string, dir: string, times: number): void {
  const marker = `${dir}.built-${times}`;
  if (existsSync(marker)) return;
  rmSync(dir, { recursive: true, force: true });
  const files = listFiles(from);
  for (let k = 0; k < times; k++) {
    for (const file of files) {
      const to = join(dir, `copy${k}`, relative(from, file));
      mkdirSync(join(to, '..'), { recursive: true });
      linkSync(file, to);
    }
  }
  writeFileSync(marker, '');
}

const speed = () => `machine speed: SHA-256 of 1.9 MB in ${sha256Ms(Buffer.alloc(1957448, 7)).toFixed(2)} ms, one thread`;

function run(args: string[], bin = BIN): Promise<{ ms: number; peakRssKb: number; cpuS: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M %U %S', process.execPath, bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: 'true' } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0 && code !== 2) return reject(new Error(`exit ${code}: ${stderr}`));
      const [rss, user, sys] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number, number];
      resolvePromise({ ms, peakRssKb: rss, cpuS: user + sys });
    });
  });
}

async function browse(report: string): Promise<{ loadMs: number; paintMs: number; parsedMs: number; filterMs: number; searchMs: number; rows: number }> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const started = performance.now();
    await page.goto(pathToFileURL(report).href, { waitUntil: 'domcontentloaded', timeout: 120_000 });
    await page.waitForFunction(() => (document.getElementById('shown')?.textContent ?? '') !== '', undefined, { timeout: 120_000 });
    const loadMs = performance.now() - started;
    const rows = await page.locator('#rows > li').count();
    // From the navigation's start: the first rows painted (parsing goes on), and parsing done.
    const [paintMs, parsedMs] = await page.evaluate(() => [
      performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0,
      (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domInteractive,
    ]);
    // A filter and a search, each timed in the page until the next frame is painted.
    const inPage = (action: string) =>
      page.evaluate(
        (a) =>
          new Promise<number>((done) => {
            const t0 = performance.now();
            if (a === 'filter') (document.querySelector('input[name=show][value=found]') as HTMLInputElement).click();
            else {
              const q = document.getElementById('q') as HTMLInputElement;
              q.value = 'signed-0042';
              q.dispatchEvent(new Event('input'));
            }
            requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
          }),
        action,
      );
    const filterMs = await inPage('filter');
    const searchMs = await inPage('search');
    return { loadMs, paintMs, parsedMs, filterMs, searchMs, rows };
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 1);
  const which = benchOption('folder', 'both');
  const checks = benchOption('checks', '');
  const extra = checks ? ['--checks', checks] : [];
  const baseline = process.env.BENCH_BASELINE ? join(resolve(process.env.BENCH_BASELINE), 'bin', 'provenance.js') : undefined;
  const base = join(BENCH, 'report');
  await buildScanFolder(base, 1000, 100, join(BENCH, 'pki-report'));
  const folders = which === '10k' ? [] : [base];
  if (which !== 'report') {
    buildRepeated(base, join(BENCH, 'report-10k'), 10);
    folders.push(join(BENCH, 'report-10k'));
  }
  for (const dir of folders) {
    const count = listFiles(dir).length;
    const out = join(BENCH, `${dir.split('/').pop()}.html`);
    console.log(`\n${relative(ROOT, dir)}: ${count} files${checks ? `, --checks ${checks}` : ', every check'}`);
    const outBase = out.replace(/\.html$/, '.baseline.html');
    for (let r = 0; r < runs; r++) {
      console.log(`round ${r + 1}: ${speed()}`);
      for (const f of listFiles(dir)) statSync(f); // the folder's metadata in the cache for both
      const json = await run(['check', '--local', '--quiet', ...extra, '--json', dir]);
      const html = await run(['check', '--local', '--quiet', ...extra, '--json', '--html', out, dir]);
      const mb = statSync(out).size / 1e6;
      console.log(
        `round ${r + 1}: --json ${(json.ms / 1000).toFixed(1)} s (${json.cpuS.toFixed(1)} s CPU, ${json.peakRssKb >> 10} MB RSS); ` +
          `--json --html ${(html.ms / 1000).toFixed(1)} s (${html.cpuS.toFixed(1)} s CPU, ${html.peakRssKb >> 10} MB RSS); ` +
          `ratio ${(html.ms / json.ms).toFixed(2)}x (CPU ${(html.cpuS / json.cpuS).toFixed(2)}x); report ${mb.toFixed(1)} MB`,
      );
      if (baseline) {
        const old = await run(['check', '--local', '--quiet', ...extra, '--json', '--html', outBase, dir], baseline);
        console.log(`round ${r + 1}: baseline --json --html ${(old.ms / 1000).toFixed(1)} s (${old.cpuS.toFixed(1)} s CPU, ${old.peakRssKb >> 10} MB RSS); ratio ${(old.ms / json.ms).toFixed(2)}x (CPU ${(old.cpuS / json.cpuS).toFixed(2)}x); report ${(statSync(outBase).size / 1e6).toFixed(1)} MB`);
      }
    }
    if (existsSync(CHROMIUM)) {
      for (let r = 0; r < runs; r++) {
        for (const [label, file] of baseline ? [['this build', out], ['baseline', outBase]] : [['this build', out]]) {
          const b = await browse(file!);
          console.log(`Chromium (${label}): ${b.rows} rows, opened in ${(b.loadMs / 1000).toFixed(2)} s (first rows painted at ${(b.paintMs / 1000).toFixed(2)} s, parsed at ${(b.parsedMs / 1000).toFixed(2)} s); filter ${b.filterMs.toFixed(0)} ms; search ${b.searchMs.toFixed(0)} ms`);
        }
      }
    }
    console.log(`end: ${speed()}`);
  }
  // The floor: the folder's unique pictures thumbnailed one after another in this process, no
  // scan beside it (what a report must pay at least, whoever makes the thumbnails).
  const pictures = listFiles(base);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const file of pictures) await makeThumbnail(readFileSync(file));
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  console.log(
    `thumbnail floor: ${pictures.length} pictures in ${(wall / 1000).toFixed(1)} s (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU; ` +
      `${(wall / pictures.length).toFixed(1)} ms each); ${speed()}`,
  );
}

await main();
