// Issue 40 item 3: a scan worker reads only regular files. The listing keeps regular files, but
// the worker reads whatever path a row names, later: a listed file swapped for a symlink to
// /dev/zero or for a named pipe after `scan start`, and a row naming /dev/zero itself, are each
// a failed input saying what the path is, and `scan worker --until-empty` exits (a named pipe
// left a pool thread in open(2) for ever, so the worker printed its summary and never exited).
// Issue 40 item 4: a worker's https:// read has its --read-timeout, and a batch whose read is
// stuck past it is let go (its lease no longer renewed: holdLease with InputReads, in-process
// against the same database).
// Real PostgreSQL, the built CLI as a subprocess, a real HTTPS server on 127.0.0.1, every wait bounded.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claim, holdLease, InputReads, STUCK_GRACE_MS } from '../../src/fleet/batch-claims.js';
import { openFleet, type FleetConnection } from '../../src/fleet/fleet-connection.js';
import { BATCH_QUEUE } from '../../src/fleet/fleet-settings.js';
import { tinyJpeg, tinyPng } from '../fixtures/make.js';
import { makeServerCertificate, startHttpsServer, type HttpsTestServer, type TlsFiles } from '../helpers/https-server.js';
import { fleetTestBed, inputCounts } from '../helpers/fleet.js';
import { sql } from '../helpers/postgres.js';
import { runBin } from '../helpers/run-cli.js';

const bed = fleetTestBed('prov-fleet-reads-');
let tls: TlsFiles;
let https: HttpsTestServer;
const trickles = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  tls = makeServerCertificate(bed.dir);
  // /trickle: 1,000 bytes promised, one sent a second (HEAD answered at once).
  https = await startHttpsServer(tls, (req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    if (req.method === 'HEAD') return void res.end();
    const timer = setInterval(() => res.write(Buffer.from([0xff])), 1000);
    trickles.add(timer);
    res.on('close', () => (clearInterval(timer), trickles.delete(timer)));
  });
}, 120_000);

afterAll(async () => {
  for (const t of trickles) clearInterval(t);
  await https?.stop();
});

it('a symlink to /dev/zero, a named pipe and a row naming /dev/zero each fail; the worker exits', async () => {
  const photos = join(bed.dir, 'photos');
  mkdirSync(photos);
  for (const name of ['zero.jpg', 'pipe.jpg', 'row.png', 'fine.jpg']) writeFileSync(join(photos, name), name.endsWith('.png') ? tinyPng() : tinyJpeg());
  const started = await runBin(['scan', 'start', 'swapped', 'photos', '--queue', bed.queue], { cwd: bed.dir });
  expect(started.code).toBe(0);
  // After the listing: two files swapped by someone who can write into the folder, and a row
  // pointed at the device itself.
  rmSync(join(photos, 'zero.jpg'));
  symlinkSync('/dev/zero', join(photos, 'zero.jpg'));
  rmSync(join(photos, 'pipe.jpg'));
  execFileSync('mkfifo', [join(photos, 'pipe.jpg')]);
  await sql(bed.queue, `UPDATE provenance_scan.inputs SET location = '{"path": "/dev/zero"}'::jsonb WHERE scan = 'swapped' AND source LIKE '%row.png'`);

  // Two threads, so the pool (not only one in-process read) is what reads them.
  const w = bed.worker(['--until-empty', '--concurrency', '2']);
  const ended = await Promise.race([w.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  expect(ended).toEqual({ code: 0, signal: null });

  expect(await inputCounts(bed.queue, 'swapped')).toEqual({ queued: 0, done: 1, failed: 3 });
  const rows = await sql(bed.queue, `SELECT source, line FROM provenance_scan.inputs WHERE scan = 'swapped' AND state = 'failed' ORDER BY source`);
  const errors = Object.fromEntries(rows.map((r) => [String(r.source).split('/').pop(), (typeof r.line === 'string' ? JSON.parse(r.line) : r.line).error]));
  expect(errors['pipe.jpg']).toEqual({ type: 'read_error', message: expect.stringMatching(/pipe\.jpg: not a regular file \(a named pipe\); only regular files are read\.$/) });
  expect(errors['zero.jpg']).toEqual({ type: 'read_error', message: expect.stringMatching(/zero\.jpg: not a regular file \(a character device\); only regular files are read\.$/) });
  expect(errors['row.png']).toEqual({ type: 'read_error', message: expect.stringMatching(/row\.png: not a regular file \(a character device\); only regular files are read\.$/) });
}, 120_000);

it('scan worker --read-timeout 2: an https:// source sent a byte a second fails at the deadline; the worker exits', async () => {
  const started = await runBin(['scan', 'start', 'trickle', `${https.origin}/trickle?token=SECRET`, '--queue', bed.queue], { cwd: bed.dir });
  expect(started.code).toBe(0);
  const w = bed.worker(['--until-empty', '--read-timeout', '2'], { NODE_EXTRA_CA_CERTS: tls.caFile });
  const ended = await Promise.race([w.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  expect(ended).toEqual({ code: 0, signal: null });
  const [row] = await sql(bed.queue, `SELECT state, line FROM provenance_scan.inputs WHERE scan = 'trickle'`);
  expect(row!.state).toBe('failed');
  const line = typeof row!.line === 'string' ? JSON.parse(row!.line) : row!.line;
  expect(line.error).toEqual({
    type: 'read_error',
    message: expect.stringMatching(/\/trickle\?token=\*\*\*: the read did not finish within 2 seconds \(\d+ of 1,000 bytes read\); a whole read has that long \(--read-timeout\)\.$/),
  });
  // A bad value is refused before any batch is taken.
  const refused = await runBin(['scan', 'worker', '--queue', bed.queue, '--read-timeout', '0', '--until-empty']);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('--read-timeout takes a whole number from 1 to 3600');
}, 120_000);

it("a batch whose read is stuck past its deadline stops renewing its lease; another batch's goes on", async () => {
  // Two batches of one input each, claimed here as a worker would.
  const photos = join(bed.dir, 'lease');
  mkdirSync(photos);
  for (const name of ['a.jpg', 'b.jpg']) writeFileSync(join(photos, name), tinyJpeg());
  expect((await runBin(['scan', 'start', 'lease', 'lease', '--queue', bed.queue, '--batch', '1', '--lease', '3'], { cwd: bed.dir })).code).toBe(0);
  let fleet: FleetConnection | undefined;
  const leases: { stop(): void }[] = [];
  try {
    fleet = await openFleet(bed.queue);
    const jobs = await claim(fleet, BATCH_QUEUE, 2);
    expect(jobs).toHaveLength(2);
    const [stuckJob, liveJob] = jobs as [(typeof jobs)[0], (typeof jobs)[0]];
    let clock = Date.now();
    const reads = new InputReads(2000, () => clock);
    reads.begin(stuckJob.id, 'https://h/slow.jpg?token=***');
    const endsLive = reads.begin(liveJob.id, 'https://h/fine.jpg');
    const log: string[] = [];
    leases.push(holdLease(fleet, stuckJob.id, 3, (l) => log.push(l), reads), holdLease(fleet, liveJob.id, 3, (l) => log.push(l), reads));
    const startedOn = async (id: string) => new Date((await sql(bed.queue, `SELECT started_on FROM provenance_queue.job WHERE id = $1`, [id]))[0]!.started_on as string).getTime();
    const before = { stuck: await startedOn(stuckJob.id), live: await startedOn(liveJob.id) };
    // The live batch's read ends; the stuck one is still going past its deadline and the grace.
    endsLive();
    clock += 2000 + STUCK_GRACE_MS + 1000;
    await new Promise((r) => setTimeout(r, 2500)); // two renewals (every second for a 3 s lease)
    expect(await startedOn(liveJob.id)).toBeGreaterThan(before.live);
    expect(await startedOn(stuckJob.id)).toBe(before.stuck);
    expect(log).toEqual([
      `batch ${stuckJob.id}: "https://h/slow.jpg?token=***" has been read for 33 s, past its 2 s deadline; the batch's lease is no longer renewed, so another worker takes it once the lease runs out.`,
    ]);
  } finally {
    for (const l of leases) l.stop();
    await fleet?.close();
  }
}, 120_000);
