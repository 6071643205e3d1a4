// Issue 40: what a distributed scan keeps of its sources and says about them, on a real PostgreSQL
// with the built CLI: secrets never stored or shown in clear (and a version-1 database masked in
// place), counts instead of lists, one input per file however it is spelled, the exit codes of
// `check` for bad URLs and of partial results for a scan still listing, --incremental only across
// the same options and engine, and file names made printable in the start's and the worker's
// messages. Every URL names 127.0.0.1:1, where nothing listens; none is requested.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listScans, scanStatus } from '../../src/index.js';
import { packageDataFile } from '../../src/media/package-data.js';
import { tinyJpeg } from '../fixtures/make.js';
import { fleetTestBed, inputCounts, makeMixedFolder } from '../helpers/fleet.js';
import { sql } from '../helpers/postgres.js';
import { parseLines, runBin } from '../helpers/run-cli.js';

const bed = fleetTestBed('prov-fleet-sources-', { databasePerTest: true });

const untilEmpty = async () => expect((await bed.worker(['--until-empty']).exited).code).toBe(0);

const SECRET_URLS = [
  'https://alice:hunter2pw@127.0.0.1:1/a.png?token=tok3nSECRET',
  'https://127.0.0.1:1/b.png?X-Amz-Credential=AKIACREDSECRET&X-Amz-Signature=sig5ECRET&X-Amz-Expires=60',
];
const SECRETS = ['alice', 'hunter2pw', 'tok3nSECRET', 'AKIACREDSECRET', 'sig5ECRET'];
const clear = (text: string) => SECRETS.filter((s) => text.includes(s));

describe("a scan's sources", () => {
  it('are kept masked: status, list, the library and the HTML report show no token, password or signature', async () => {
    makeMixedFolder(join(bed.dir, 'masked'), 3);
    const started = await bed.scan(['start', 'masked', 'masked', ...SECRET_URLS]);
    expect(started.code).toBe(0);
    const stored = await sql(bed.queue, `SELECT sources::text AS sources, source_count::int AS count FROM provenance_scan.scans WHERE name = 'masked'`);
    expect(clear(stored[0]!.sources)).toEqual([]);
    expect(stored[0]!.count).toBe(3);

    const status = await bed.scan(['status', 'masked', '--json']);
    expect(clear(status.stdout)).toEqual([]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      sources: ['masked', 'https://***:***@127.0.0.1:1/a.png?token=***', expect.stringContaining('X-Amz-Signature=***')],
      sourceCount: 3,
    });
    const list = await bed.scan(['list', '--json']);
    expect(clear(list.stdout)).toEqual([]);
    expect(JSON.parse(list.stdout)[0].sourceCount).toBe(3);
    const fromLibrary = await scanStatus('masked', { queue: bed.queue });
    expect(clear(JSON.stringify(fromLibrary))).toEqual([]);
    expect(clear(JSON.stringify(await listScans({ queue: bed.queue })))).toEqual([]);

    const report = join(bed.dir, 'masked.html');
    const html = await bed.scan(['results', 'masked', '--html', report]);
    expect(html.stderr).toContain(`report written to ${report}`);
    const page = readFileSync(report, 'utf8');
    expect(page).toContain('<title>Provenance report: masked, https://***:***@127.0.0.1:1/a.png?token=***, https://127.0.0.1:1/b.png?');
    expect(page).toContain('Inputs: masked, https://***:***@127.0.0.1:1/a.png?token=***, ');
    expect(clear(page)).toEqual([]);
    // The workers read the URL as given: its input's row keeps it (docs/SCALE.md).
    const [row] = await sql(bed.queue, `SELECT location->>'url' AS url FROM provenance_scan.inputs WHERE scan = 'masked' AND location ? 'url' ORDER BY seq LIMIT 1`);
    expect(row!.url).toBe(SECRET_URLS[0]);
  }, 60_000);

  it('of a --files-from list are counted, not listed: status stays small for thousands', async () => {
    const list = join(bed.dir, 'many.txt');
    writeFileSync(list, Array.from({ length: 5000 }, (_, i) => `https://127.0.0.1:1/f${i}.png?token=t${i}`).join('\n') + '\n');
    const started = await bed.scan(['start', 'many', '--files-from', list, '--json']);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ total: 5000, queued: 5000 });
    const status = await bed.scan(['status', 'many', '--json']);
    expect(status.stdout.length).toBeLessThan(2000);
    const parsed = JSON.parse(status.stdout);
    expect(parsed.sourceCount).toBe(5000);
    expect(parsed.sources).toEqual(Array.from({ length: 5 }, (_, i) => `https://127.0.0.1:1/f${i}.png?token=***`));
    expect((await bed.scan(['list', '--json'])).stdout.length).toBeLessThan(2000);
    const [{ length }] = await sql(bed.queue, `SELECT jsonb_array_length(sources) AS length FROM provenance_scan.scans WHERE name = 'many'`);
    expect(length).toBe(5);
  }, 120_000);

  it('kept in clear by a version-1 database are masked in place by the first command of this version', async () => {
    makeMixedFolder(join(bed.dir, 'old'), 2);
    expect((await bed.scan(['start', 'old', 'old'])).code).toBe(0);
    // The row as version 1 wrote it: every source as given, and no count.
    const given = ['old', ...SECRET_URLS, ...Array.from({ length: 7 }, (_, i) => `https://u:p${i}@127.0.0.1:1/${i}`)];
    await sql(bed.queue, `UPDATE provenance_scan.scans SET sources = $1, source_count = NULL WHERE name = 'old'`, [JSON.stringify(given)]);
    await sql(bed.queue, `UPDATE provenance_scan.version SET version = 1`);
    const list = await bed.scan(['list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ sources: ['old', 'https://***:***@127.0.0.1:1/a.png?token=***', expect.any(String), 'https://***:***@127.0.0.1:1/0', 'https://***:***@127.0.0.1:1/1'], sourceCount: 10 });
    const [row] = await sql(bed.queue, `SELECT sources::text AS sources FROM provenance_scan.scans WHERE name = 'old'`);
    expect(clear(row!.sources)).toEqual([]);
    expect(await sql(bed.queue, `SELECT version FROM provenance_scan.version`)).toEqual([{ version: 2 }]);
  }, 60_000);

  it('that name one file in several spellings give it one input (real paths compared)', async () => {
    const folder = join(bed.dir, 'spell');
    mkdirSync(folder);
    for (const name of ['a.jpg', 'b.jpg', 'camera.jpg']) writeFileSync(join(folder, name), tinyJpeg({ seed: name.length }));
    symlinkSync(join(folder, 'camera.jpg'), join(bed.dir, 'link-to-camera.jpg'));
    const started = await bed.scan(['start', 'spell', 'spell', './spell/camera.jpg', join(folder, 'camera.jpg'), 'link-to-camera.jpg', 'spell/../spell/b.jpg', '--json']);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ total: 3, queued: 3 });
    const rows = await sql(bed.queue, `SELECT source FROM provenance_scan.inputs WHERE scan = 'spell' ORDER BY seq`);
    expect(rows.map((r) => r.source)).toEqual(['spell/a.jpg', 'spell/b.jpg', 'spell/camera.jpg']);
  }, 60_000);
});

describe('exit codes', () => {
  it("an http:// or malformed s3:// or https:// source is a usage error (2) before the scan takes its name, as check's", async () => {
    makeMixedFolder(join(bed.dir, 'codes'), 2);
    for (const bad of ['http://127.0.0.1:1/a.png', 's3://', 'https://']) {
      const run = await bed.scan(['start', 'codes', 'codes', bad]);
      expect(run.code, bad).toBe(2);
      const checked = await runBin(['check', bad], { cwd: bed.dir });
      expect(checked.code).toBe(2);
      expect(run.stderr.trim()).toBe(checked.stderr.trim());
    }
    expect(JSON.parse((await bed.scan(['list', '--json'])).stdout)).toEqual([]);
    // In a --files-from list it is that input's failure, as check makes it that input's error line.
    const list = join(bed.dir, 'codes.txt');
    writeFileSync(list, 'http://127.0.0.1:1/a.png\n');
    const listed = await bed.scan(['start', 'codes', 'codes', '--files-from', list, '--json']);
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout)).toMatchObject({ total: 3, queued: 2 });
  }, 60_000);

  it('scan results of a scan still listing says it is incomplete and exits 1, as for partial results', async () => {
    makeMixedFolder(join(bed.dir, 'listing'), 4);
    expect((await bed.scan(['start', 'listing', 'listing'])).code).toBe(0);
    await untilEmpty();
    expect((await bed.scan(['results', 'listing', '--json'])).code).toBe(0);
    // Its scan start died while listing (fleet-lifecycle.test.ts kills one): the row stays 'listing'.
    await sql(bed.queue, `UPDATE provenance_scan.scans SET state = 'listing' WHERE name = 'listing'`);
    const results = await bed.scan(['results', 'listing', '--json']);
    expect(results.code).toBe(1);
    expect(parseLines(results.stdout)).toHaveLength(4);
    expect(results.stderr).toContain('provenance: scan listing is incomplete: its sources are still being listed, or its scan start ended while listing');
    const text = await bed.scan(['results', 'listing']);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('is incomplete');
  }, 60_000);
});

describe('--incremental', () => {
  it("takes an earlier scan's results only when its checks, catalogue, C2PA lists and engine build are this scan's", async () => {
    makeMixedFolder(join(bed.dir, 'incr'), 6);
    expect((await bed.scan(['start', 'narrow', 'incr', '--checks', 'c2pa'])).code).toBe(0);
    await untilEmpty();
    const wide = await bed.scan(['start', 'wide', 'incr', '--incremental', 'narrow', '--json']);
    expect(JSON.parse(wide.stdout)).toMatchObject({ total: 6, reused: 0, queued: 6, notReused: expect.stringContaining('its results were made with other checks (c2pa; this scan: ') });
    expect(wide.stderr).toContain('nothing taken from scan narrow: its results were made with other checks');
    await untilEmpty();
    const lines = parseLines((await bed.scan(['results', 'wide', '--json'])).stdout);
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line.checks_run.length).toBeGreaterThan(1);

    // The same options and build: every result is taken.
    const same = await bed.scan(['start', 'same', 'incr', '--incremental', 'wide', '--json']);
    expect(JSON.parse(same.stdout)).toMatchObject({ total: 6, reused: 6, queued: 0 });
    expect(JSON.parse(same.stdout).notReused).toBeUndefined();
    const hosted = await bed.scan(['start', 'hosted', 'incr', '--catalogue', 'hosted', '--incremental', 'wide', '--json']);
    expect(JSON.parse(hosted.stdout)).toMatchObject({ reused: 0, queued: 6 });
    // Other C2PA lists (`trust update` put new ones in the config folder): nothing is taken, and why is said.
    const cfg = join(bed.dir, 'updated-lists-config');
    const bundled = readFileSync(packageDataFile('c2pa', 'C2PA-TRUST-LIST.pem'), 'utf8');
    const fewer = join(bed.dir, 'fewer.pem');
    writeFileSync(fewer, bundled.slice(0, bundled.lastIndexOf('-----BEGIN CERTIFICATE-----')));
    expect((await runBin(['trust', 'update', '--from', fewer], { env: { PROVENANCE_CONFIG_DIR: cfg } })).code).toBe(0);
    const updated = await bed.scan(['start', 'updated', 'incr', '--incremental', 'wide', '--json'], { PROVENANCE_CONFIG_DIR: cfg });
    expect(JSON.parse(updated.stdout)).toMatchObject({ reused: 0, queued: 6, notReused: expect.stringContaining('its results were made with other C2PA trust lists') });
    expect(updated.stderr).toContain('nothing taken from scan wide: its results were made with other C2PA trust lists');
    // Another engine build started `wide`: nothing is taken from it.
    await sql(bed.queue, `UPDATE provenance_scan.scans SET engine = '0.0.1+another' WHERE name = 'wide'`);
    const other = await bed.scan(['start', 'other', 'incr', '--incremental', 'wide', '--json']);
    expect(JSON.parse(other.stdout)).toMatchObject({ reused: 0, queued: 6, notReused: expect.stringContaining('another build of provenance (engine 0.0.1+another') });
  }, 120_000);
});

describe('file names in messages', () => {
  const EVIL = 'evil\x1b]0;OWNED\x07\x1b[2J\x1b[31m';

  it("reach the terminal printable: scan start's listing errors and the worker's log of an input", async () => {
    const start = await bed.scan(['start', 'evil', `${EVIL}missing.jpg`]);
    expect(start.code).toBe(1);
    expect(start.stderr).not.toMatch(/\x1b|\x07/);
    expect(start.stderr).toContain('evil\\x1b]0;OWNED\\x07\\x1b[2J\\x1b[31mmissing.jpg');

    // An input written off by the worker (begun twice before without a result) is named in its log.
    const folder = join(bed.dir, 'evil');
    mkdirSync(folder);
    writeFileSync(join(folder, `${EVIL}.jpg`), tinyJpeg({ seed: 5 }));
    expect((await bed.scan(['start', 'evil2', 'evil'])).code).toBe(0);
    await sql(bed.queue, `UPDATE provenance_scan.inputs SET starts = 2 WHERE scan = 'evil2'`);
    await sql(bed.queue, `UPDATE provenance_queue.job SET retry_count = 1 WHERE name = 'provenance-scan-batches' AND data->>'scan' = 'evil2'`);
    const worker = bed.worker(['--until-empty']);
    expect((await worker.exited).code).toBe(0);
    expect(await inputCounts(bed.queue, 'evil2')).toEqual({ queued: 0, done: 0, failed: 1 });
    expect(worker.stderr()).toContain('every worker that checked it ended before it was checked');
    expect(worker.stderr()).toContain('evil\\x1b]0;OWNED\\x07\\x1b[2J\\x1b[31m.jpg');
    expect(worker.stderr()).not.toMatch(/\x1b|\x07/);
  }, 60_000);
});
