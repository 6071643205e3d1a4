// Issue 33: a distributed scan's life on a real PostgreSQL with workers as subprocesses of the
// built CLI: a poison input, SIGTERM's drain, a `scan start` killed while it lists, cancel, retry
// of failures only, --incremental, the library's functions, and a clear message for each bad input.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScanWorker, scanResults, scanStatus, startScan } from '../../src/index.js';
import { tinyJpeg } from '../fixtures/make.js';
import { comparable, fleetTestBed, inputCounts, makeMixedFolder, startCli, waitFor } from '../helpers/fleet.js';
import { makeServerCertificate, startHttpsServer } from '../helpers/https-server.js';
import { sql } from '../helpers/postgres.js';
import { parseLines, runBin } from '../helpers/run-cli.js';

/** Each test's own queue (a database of its own): a worker takes batches of every scan in its queue. */
const bed = fleetTestBed('prov-fleet-life-', { databasePerTest: true });

describe('a poison input', () => {
  it('that ends every worker reading it becomes one failed input after its tries; the rest finish', async () => {
    makeMixedFolder(join(bed.dir, 'poison'), 30);
    writeFileSync(join(bed.dir, 'poison', 'd00', 'POISON.jpg'), tinyJpeg({ seed: 99 }));
    // The crash comes from outside the program, as a fault in a native decoder would: a module
    // preloaded into the worker's process (and its threads) kills the process when a file whose
    // name holds POISON is opened. Nothing of this is in the shipped code.
    const hook = join(bed.dir, 'poison-hook.mjs');
    writeFileSync(
      hook,
      `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const open = fs.openSync;
fs.openSync = function (path, ...rest) {
  if (String(path).includes('POISON')) process.kill(process.pid, 'SIGKILL');
  return open.call(this, path, ...rest);
};
syncBuiltinESMExports();
`,
    );
    expect((await bed.scan(['start', 'poison', 'poison', '--batch', '10', '--lease', '3'])).code).toBe(0);
    // A supervisor's restart (systemd Restart=always, a Kubernetes Deployment): a worker that
    // dies is started again until the scan is finished.
    let deaths = 0;
    let current = bed.worker([], { NODE_OPTIONS: `--import=${hook}` });
    await waitFor(
      'the poison scan to finish',
      async () => {
        if (current.child.exitCode !== null || current.child.signalCode !== null) {
          deaths++;
          current = bed.worker([], { NODE_OPTIONS: `--import=${hook}` });
        }
        return (await inputCounts(bed.queue, 'poison')).queued === 0;
      },
      150_000,
    );
    current.child.kill('SIGTERM');
    expect(deaths).toBeGreaterThanOrEqual(2);
    const counts = await inputCounts(bed.queue, 'poison');
    expect(counts).toEqual({ queued: 0, done: 30, failed: 1 });
    const [row] = await sql(bed.queue, `SELECT state, reason, starts FROM provenance_scan.inputs WHERE scan = 'poison' AND source LIKE '%POISON.jpg'`);
    expect(row!.state).toBe('failed');
    expect(row!.reason).toMatch(/every worker that checked it ended before it was checked \(2 tries\)/);
    const results = parseLines((await bed.scan(['results', 'poison', '--json'])).stdout);
    const poison = results.filter((l) => l.source.endsWith('POISON.jpg'));
    expect(poison).toEqual([{ source: 'poison/d00/POISON.jpg', error: { type: 'check_failed', message: expect.stringContaining('written off') } }]);
    expect(results).toHaveLength(31);
  }, 200_000);
});

describe('SIGTERM', () => {
  it('finishes the batches in hand, writes their results and exits 0; the rest stay queued', async () => {
    makeMixedFolder(join(bed.dir, 'drain'), 600);
    expect((await bed.scan(['start', 'drain', 'drain', '--batch', '200'])).code).toBe(0);
    const w = bed.worker();
    await waitFor('a first result', async () => (await inputCounts(bed.queue, 'drain')).done > 0);
    w.child.kill('SIGTERM');
    const { code } = await w.exited;
    expect(code).toBe(0);
    expect(w.stderr()).toContain('stopping after the batches in hand');
    const counts = await inputCounts(bed.queue, 'drain');
    // Whole batches only: none left half done, and no batch left held.
    expect(counts.done % 200).toBe(0);
    expect(counts.done).toBeGreaterThan(0);
    expect(counts.queued).toBe(600 - counts.done);
    expect(await sql(bed.queue, `SELECT 1 FROM provenance_queue.job WHERE state = 'active'`)).toEqual([]);
  }, 120_000);
});

describe('scan cancel', () => {
  it('stops new batches: a worker started after it takes none of them', async () => {
    makeMixedFolder(join(bed.dir, 'cancel'), 100);
    expect((await bed.scan(['start', 'cancel', 'cancel', '--batch', '20'])).code).toBe(0);
    const cancelled = await bed.scan(['cancel', 'cancel']);
    expect(cancelled.stderr).toContain('scan cancel cancelled: 5 waiting batches will not run');
    const w = bed.worker(['--until-empty']);
    expect((await w.exited).code).toBe(0);
    expect(await inputCounts(bed.queue, 'cancel')).toEqual({ queued: 100, done: 0, failed: 0 });
    const status = JSON.parse((await bed.scan(['status', 'cancel', '--json'])).stdout);
    expect(status).toMatchObject({ state: 'cancelled', queued: 100, done: 0 });
    // Cancelled is final: a retry says to start a new scan.
    const retry = await bed.scan(['retry', 'cancel']);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain('was cancelled; start a new scan');
  }, 60_000);
});

describe('a scan start killed while it lists (docs/SCALE.md)', () => {
  it('leaves its scan listing with what it queued checked; scan cancel ends it; --incremental from it keeps what it found', async () => {
    makeMixedFolder(join(bed.dir, 'killed'), 1000);
    // Batches of one: each is a transaction of its own, so the listing lasts seconds.
    const start = bed.spawned(startCli(['scan', 'start', 'killed', 'killed', '--batch', '1', '--queue', bed.queue], { cwd: bed.dir }));
    const listed = async () => ((await sql(bed.queue, `SELECT count(*)::int AS n FROM provenance_scan.inputs WHERE scan = 'killed'`))[0]!.n as number);
    // (The tables are made by the scan start itself: until then, the query fails.)
    await waitFor('10 inputs listed', async () => (await listed().catch(() => 0)) >= 10, 60_000);
    start.child.kill('SIGKILL');
    expect((await start.exited).signal).toBe('SIGKILL');
    const listedBeforeKill = await listed();
    expect(listedBeforeKill).toBeLessThan(1000); // killed mid-listing, not after it

    expect((await bed.worker(['--until-empty']).exited).code).toBe(0);
    expect(await inputCounts(bed.queue, 'killed')).toEqual({ queued: 0, done: listedBeforeKill, failed: 0 });
    expect(JSON.parse((await bed.scan(['status', 'killed', '--json'])).stdout)).toMatchObject({ state: 'listing', done: listedBeforeKill, queued: 0 });

    expect((await bed.scan(['cancel', 'killed'])).code).toBe(0);
    expect(JSON.parse((await bed.scan(['status', 'killed', '--json'])).stdout)).toMatchObject({ state: 'cancelled', done: listedBeforeKill });
    const again = await bed.scan(['start', 'killed-again', 'killed', '--incremental', 'killed', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: 1000, reused: listedBeforeKill, queued: 1000 - listedBeforeKill });
  }, 120_000);
});

describe('scan retry and --incremental', () => {
  it('retry reruns only the failed inputs; --incremental takes the unchanged results of the scan it names', async () => {
    const paths = makeMixedFolder(join(bed.dir, 'retry'), 40);
    expect((await bed.scan(['start', 'first', 'retry'])).code).toBe(0);
    // Two files go away after the listing: their reads fail.
    const gone = [paths[4]!, paths[10]!];
    const kept = gone.map((p) => readFileSync(p));
    for (const p of gone) unlinkSync(p);
    expect((await bed.worker(['--until-empty']).exited).code).toBe(0);
    expect(await inputCounts(bed.queue, 'first')).toEqual({ queued: 0, done: 38, failed: 2 });
    const before = await sql(bed.queue, `SELECT seq, finished_at, worker FROM provenance_scan.inputs WHERE scan = 'first' AND state = 'done' ORDER BY seq`);

    gone.forEach((p, i) => writeFileSync(p, kept[i]!));
    const retried = await bed.scan(['retry', 'first']);
    expect(retried.stderr).toContain('2 failed inputs queued again');
    expect((await bed.worker(['--until-empty']).exited).code).toBe(0);
    expect(await inputCounts(bed.queue, 'first')).toEqual({ queued: 0, done: 40, failed: 0 });
    // The 38 were not checked again.
    const after = await sql(bed.queue, `SELECT seq, finished_at, worker FROM provenance_scan.inputs WHERE scan = 'first' AND seq = ANY($1::int[]) ORDER BY seq`, [before.map((r) => r.seq)]);
    expect(after).toEqual(before);
    const checked = await runBin(['check', '--json', 'retry'], { cwd: bed.dir });
    expect(comparable(parseLines((await bed.scan(['results', 'first', '--json'])).stdout))).toEqual(comparable(parseLines(checked.stdout)));

    // One file changed, one added: a rescan checks those two only.
    writeFileSync(paths[20]!, tinyJpeg({ seed: 12345 }));
    writeFileSync(join(bed.dir, 'retry', 'd00', 'new.jpg'), tinyJpeg({ seed: 777 }));
    const second = await bed.scan(['start', 'second', 'retry', '--incremental', 'first', '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ total: 41, reused: 39, queued: 2 });
    expect((await bed.worker(['--until-empty']).exited).code).toBe(0);
    const now = await runBin(['check', '--json', 'retry'], { cwd: bed.dir });
    expect(comparable(parseLines((await bed.scan(['results', 'second', '--json'])).stdout))).toEqual(comparable(parseLines(now.stdout)));
    const status = JSON.parse((await bed.scan(['status', 'second', '--json'])).stdout);
    expect(status).toMatchObject({ state: 'finished', done: 41, failed: 0, reused: 39, basedOn: 'first' });
  }, 120_000);
});

describe('https:// sources', () => {
  it('workers read the URLs as given (a token and all) and store them masked; a rescan with --incremental reuses them by ETag', async () => {
    const paths = makeMixedFolder(join(bed.dir, 'web'), 12);
    const pki = join(bed.dir, 'web-pki');
    mkdirSync(pki);
    const tls = makeServerCertificate(pki);
    const gets: string[] = [];
    // Each file at /NAME, only with ?token=s3cret, with an ETag of its bytes and If-Match honoured.
    const server = await startHttpsServer(tls, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      const file = paths.find((p) => p.endsWith(url.pathname));
      if (!file || url.searchParams.get('token') !== 's3cret') return void res.writeHead(404).end();
      const bytes = readFileSync(file);
      const etag = `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"`;
      if (req.headers['if-match'] && req.headers['if-match'] !== etag) return void res.writeHead(412).end();
      if (req.method === 'GET') gets.push(url.pathname);
      res.writeHead(200, { etag, 'content-length': bytes.length });
      res.end(req.method === 'HEAD' ? undefined : bytes);
    });
    try {
      const list = join(bed.dir, 'urls.txt');
      writeFileSync(list, paths.map((p) => `${server.origin}/${relative(join(bed.dir, 'web'), p)}?token=s3cret`).join('\n') + '\n');
      const trust = { NODE_EXTRA_CA_CERTS: tls.caFile };
      const run = (args: string[]) => bed.scan(args, trust);
      expect((await run(['start', 'web', '--files-from', list])).code).toBe(0);
      expect((await bed.worker(['--until-empty'], trust).exited).code).toBe(0);
      const fromScan = parseLines((await run(['results', 'web', '--json'])).stdout);
      const checked = parseLines((await runBin(['check', '--json', '--files-from', list], { cwd: bed.dir, env: trust })).stdout);
      expect(fromScan).toHaveLength(12);
      expect(comparable(fromScan)).toEqual(comparable(checked));
      expect(fromScan[0].source).toBe(`${server.origin}/d00/f00000.png?token=***`);
      expect(gets).toHaveLength(24); // 12 for the scan, 12 for check
      expect((await run(['start', 'web2', '--files-from', list, '--incremental', 'web', '--json'])).stdout).toContain('"reused":12');
      expect(gets).toHaveLength(24);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('the library', () => {
  it('startScan, runScanWorker, scanStatus and scanResults do what the commands do', async () => {
    makeMixedFolder(join(bed.dir, 'lib'), 12);
    const started = await startScan({ name: 'lib', sources: [join(bed.dir, 'lib')], queue: bed.queue, batchSize: 5 });
    expect(started).toMatchObject({ total: 12, queued: 12, batches: 3, reused: 0 });
    const summary = await runScanWorker({ queue: bed.queue, concurrency: 1, untilEmpty: true });
    expect(summary).toMatchObject({ batches: 3, inputs: 12 });
    expect(await scanStatus('lib', { queue: bed.queue })).toMatchObject({ state: 'finished', done: 12, total: 12 });
    const lines: string[] = [];
    for await (const row of scanResults('lib', { queue: bed.queue })) lines.push(row.line!);
    const checked = await runBin(['check', '--json', join(bed.dir, 'lib')]);
    expect(comparable(lines.map((l) => JSON.parse(l)))).toEqual(comparable(parseLines(checked.stdout)));

    // The readable report and the HTML report of the same results, as `check` and `check --html` give them.
    const text = await bed.scan(['results', 'lib']);
    const plain = await runBin(['check', join(bed.dir, 'lib')], { env: { PROVENANCE_QUEUE: '' } });
    expect(text.code).toBe(0);
    expect(text.stdout.replace(/\d+ ms/g, '')).toBe(plain.stdout.replace(/\d+ ms/g, ''));
    const report = join(bed.dir, 'lib-report.html');
    const html = await bed.scan(['results', 'lib', '--html', report]);
    expect(html.stderr).toContain(`report written to ${report}`);
    const page = readFileSync(report, 'utf8');
    for (const line of lines) expect(page).toContain(JSON.parse(line).source.split('/').pop());
  }, 60_000);
});

describe('bad input', () => {
  it('each is a clear message with its exit code', async () => {
    const noQueue = await runBin(['scan', 'list'], { env: { PROVENANCE_QUEUE: '' } });
    expect(noQueue.code).toBe(2);
    expect(noQueue.stderr).toContain('name the queue: --queue postgres://... or PROVENANCE_QUEUE');
    const notPostgres = await runBin(['scan', 'list', '--queue', 'mysql://127.0.0.1/x']);
    expect(notPostgres.stderr).toContain('the queue must be a postgres:// URL, not mysql://');
    // A port where nothing listens, on this machine.
    const down = await runBin(['scan', 'status', 'x', '--queue', 'postgres://postgres:secret@127.0.0.1:1/none']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach the queue at 127.0.0.1:1/none: nothing accepts connections there.');
    expect(down.stderr).not.toContain('secret');
    const missing = await bed.scan(['status', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no scan named nope in the queue at 127.0.0.1:');
    const badName = await bed.scan(['start', 'no spaces', 'x']);
    expect(badName.stderr).toContain('is not a scan name');
    makeMixedFolder(join(bed.dir, 'bad'), 3);
    expect((await bed.scan(['start', 'lib', 'bad'])).code).toBe(0);
    const again = await bed.scan(['start', 'lib', 'bad']);
    expect(again.stderr).toContain('a scan named lib exists already');
    const stdin = await bed.scan(['start', 'stdin', '-']);
    expect(stdin.stderr).toContain('standard input (-) cannot be a scan source');
    const batch = await bed.scan(['start', 'b', 'lib', '--batch', '0']);
    expect(batch.stderr).toContain('the batch size takes a whole number from 1 to 10000');
    const checks = await bed.scan(['start', 'c', 'lib', '--checks', 'nope']);
    expect(checks.code).toBe(2);
    expect(checks.stderr).toMatch(/unknown/i);
    const incremental = await bed.scan(['start', 'd', 'lib', '--incremental', 'never']);
    expect(incremental.stderr).toContain('--incremental never: no such scan');
    // A source that is not there: listed as a failed input, said at once, exit 1 as check's.
    const gone = await bed.scan(['start', 'gone', 'not-there']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('not-there: no such file or folder.');
  }, 60_000);
});
