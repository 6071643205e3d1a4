// Issue 33: a distributed scan of an S3 prefix of 1,000 objects gives the same results as the same
// scan of a folder of those files (a real S3 API server, s3rver, on 127.0.0.1; the real AWS SDK);
// a bucket that is not there is a clear message at `scan start`.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { comparable, fleetTestBed, inputCounts, makeMixedFolder, waitFor } from '../helpers/fleet.js';
import { parseLines } from '../helpers/run-cli.js';
import { s3rverEnv, startS3rver, type S3Server } from '../helpers/s3rver.js';
import { makeSignedSet } from '../helpers/signed.js';

const OBJECTS = 1000;
const bed = fleetTestBed('prov-fleet-s3-');
let server: S3Server;

const awsEnv = () => s3rverEnv(server.endpoint, bed.dir);

beforeAll(async () => {
  const files = makeMixedFolder(join(bed.dir, 'archive'), OBJECTS, (await makeSignedSet()).jpeg);
  server = await startS3rver(join(bed.dir, 's3rver'), ['photos']);
  const client = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  for (let i = 0; i < files.length; i += 25) {
    await Promise.all(files.slice(i, i + 25).map((f) => client.send(new PutObjectCommand({ Bucket: 'photos', Key: relative(bed.dir, f), Body: readFileSync(f) }))));
  }
  client.destroy();
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

const scanCli = (args: string[]) => bed.scan(args, awsEnv());

it('a prefix of 1,000 objects gives the results of the same files in a folder, in the same order', async () => {
  const fromBucket = await scanCli(['start', 'bucket', 's3://photos/archive', '--json']);
  expect(fromBucket.code).toBe(0);
  expect(JSON.parse(fromBucket.stdout)).toMatchObject({ total: OBJECTS, queued: OBJECTS, batches: 5 });
  expect((await scanCli(['start', 'folder', 'archive'])).code).toBe(0);
  // Two workers share both scans; the SDK's Node-version notice is never shown.
  const workers = [bed.worker([], awsEnv()), bed.worker([], awsEnv())];
  await waitFor('both scans to finish', async () => (await inputCounts(bed.queue, 'bucket')).queued + (await inputCounts(bed.queue, 'folder')).queued === 0, 180_000);
  for (const w of workers) w.child.kill('SIGTERM');
  for (const w of workers) expect((await w.exited).code).toBe(0);
  for (const w of workers) expect(w.stderr()).not.toMatch(/NodeVersionSupportWarning|AWS SDK for JavaScript/);

  const bucket = parseLines((await scanCli(['results', 'bucket', '--json'])).stdout);
  const folder = parseLines((await scanCli(['results', 'folder', '--json'])).stdout);
  expect(bucket).toHaveLength(OBJECTS);
  expect(bucket.map((l) => l.source)).toEqual(folder.map((l) => `s3://photos/${l.source}`));
  const withoutSource = (lines: any[]) => comparable(lines).map(({ source: _s, ...rest }) => rest);
  expect(withoutSource(bucket)).toEqual(withoutSource(folder));
}, 300_000);

it('a bucket that is not there is said at once, and its scan has that one failed input', async () => {
  const missing = await scanCli(['start', 'nobucket', 's3://no-such-bucket/x']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/s3:\/\/no-such-bucket\/x: .*bucket/i);
  expect(await inputCounts(bed.queue, 'nobucket')).toEqual({ queued: 0, done: 0, failed: 1 });
});
