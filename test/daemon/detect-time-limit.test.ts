// A detect that runs past its time limit (issue 34): the worker is stopped, the answer is 413
// media_too_large naming the field that carried the file, the call is counted (the work was
// done), /metrics counts it, one log line says so without a key; and one client flooding slow
// detects cannot hold every worker: another client's detect is answered while they run.
//
// No file in reach costs the engine a second (the readers are linear, the decodes bounded), so
// the slow file is test mode's hold (AppOptions.testDetectHold): the worker blocks before the
// checks, as a file that slow would, and the pool's own watchdog stops it at --detect-timeout.
// Real HTTP on 127.0.0.1, two real workers of the built dist/detect-worker.js in every project.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { loggerOptions } from '../../src/daemon/http/app.js';
import { parseExposition, sampleValue } from '../helpers/prom-text.js';
import { b64, bearer, expectError, http, listen, makeApp, workersUp, type TestApp } from './helpers.js';
import { signIn, webApp } from './signin-helpers.js';

const FAST = readFileSync('examples/camera.jpg');
const SLOW = readFileSync('examples/plain.png');
/** A file an honest client sends: half the limit. */
const MEDIUM = readFileSync('examples/comfyui.png');
const CHECKS = ['c2pa', 'camera_reference'];
const TOKEN = randomBytes(32).toString('base64url');
const LIMIT_MS = 1000;

/** The slow file holds its worker far past the limit (the watchdog stops it at LIMIT_MS), the medium one half of it. */
function hold(bytes: Uint8Array): number | undefined {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return file.equals(SLOW) ? 20_000 : file.equals(MEDIUM) ? LIMIT_MS / 2 : undefined;
}

let t: TestApp;
let base: string;
let logs: string;
beforeEach(async () => {
  logs = '';
  const stream = new PassThrough();
  stream.on('data', (d) => (logs += d));
  t = await makeApp({
    workers: 2,
    testMode: true,
    detectTimeoutMs: LIMIT_MS,
    testDetectHold: hold,
    adminTokenSha256: sha256Hex(TOKEN),
    logger: loggerOptions(stream),
  });
  base = await listen(t.app);
  await workersUp(t);
});
afterEach(() => t.close());

const detect = (key: string, media: Buffer) => http(base, 'POST', '/v1/detect', { key, json: { media: b64(media), checks: CHECKS } });

async function metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const scrape = await http(base, 'GET', '/metrics', { headers: bearer(TOKEN) });
  expect(scrape.status).toBe(200);
  return sampleValue(parseExposition(scrape.text), name, labels);
}

describe('a detect past its time limit', () => {
  it('is stopped and answered 413 media_too_large naming its field, counted, in the metrics and the log', async () => {
    const { key, accountId } = await t.account('slow-file');
    expect(await metric('provenance_detect_timeouts_total')).toBe(0);

    const started = performance.now();
    const late = await detect(key, SLOW);
    const error = expectError(late, 413, 'media_too_large', 'media');
    expect(error.message).toContain('time limit of 1 s per file');
    expect(error.message).toContain('The call is counted.');
    // Stopped at the limit, not at the end of the hold (20 s).
    expect(performance.now() - started).toBeLessThan(10_000);
    // Counted: the headers say so, and so does the store.
    expect(late.headers['x-quota-used']).toBe('1');
    expect(late.headers['x-quota-remaining']).toBe('499');
    const usage = await t.app.services.quota.state((await t.app.services.store.accountById(accountId))!);
    expect(usage.used).toBe(1);

    // By multipart the field is `file`; counted again.
    const form = new FormData();
    form.append('file', new Blob([SLOW]), 'slow.png');
    const multipart = await http(base, 'POST', '/v1/detect', { key, body: form });
    expectError(multipart, 413, 'media_too_large', 'file');
    expect(multipart.headers['x-quota-used']).toBe('2');

    // The stopped workers were replaced: the next file is checked.
    const next = await detect(key, FAST);
    expect(next.status, next.text).toBe(200);
    expect(next.headers['x-quota-used']).toBe('3');

    expect(await metric('provenance_detect_timeouts_total')).toBe(2);
    expect(await metric('provenance_http_errors_total', { route: '/v1/detect', type: 'media_too_large' })).toBe(2);

    const lines = logs.split('\n').filter((line) => line.includes('detect stopped at its time limit'));
    expect(lines).toHaveLength(2);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 40, account: accountId, bytes: SLOW.length, limit_s: 1 });
    expect(logs).not.toContain(key);
  });
});

describe('one client cannot hold every worker', () => {
  it("another client's detect is answered while one client's slow detects run and wait", async () => {
    const flooder = await t.account('flooder', 'custom', 1000);
    const other = await t.account('other');
    // Four slow files at once, twice the workers, to an idle daemon: one runs in the account's
    // own turn (every worker but one), one on the idle worker it borrows, two wait their turn.
    const settled: string[] = [];
    const flood = Array.from({ length: 4 }, () =>
      detect(flooder.key, SLOW).then((r) => {
        settled.push('flooder');
        return r;
      }),
    );
    // All four past their reservation (the step before the checks), and handed on.
    const account = (await t.app.services.store.accountById(flooder.accountId))!;
    for (let waited = 0; (await t.app.services.quota.state(account)).used < 4; waited += 10) {
      if (waited > 10_000) throw new Error('the flood did not reach its checks');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toEqual([]);
    expect(await metric('provenance_detect_turns_waiting')).toBe(2);

    const answer = await detect(other.key, FAST);
    settled.push('other');
    expect(answer.status, answer.text).toBe(200);
    // The borrowed worker is given back at the limit, and the other client is next on it, before
    // the flood's own waiting files: at most the first of the flood was answered before it
    // (without turns, all four were: the pool takes tasks in arrival order).
    expect(settled.indexOf('other')).toBeLessThanOrEqual(1);

    const floods = await Promise.all(flood);
    for (const r of floods) expectError(r, 413, 'media_too_large', 'media');
    expect(floods.map((r) => Number(r.headers['x-quota-used'])).sort()).toEqual([1, 2, 3, 4]);
    expect(await metric('provenance_detect_timeouts_total')).toBe(4);
    expect(t.app.services.pool.waitingTurns()).toBe(0);
  });
});

describe('an honest client', () => {
  it('has every worker of an idle daemon for its parallel requests', async () => {
    const { key } = await t.account('parallel');
    const both = [detect(key, MEDIUM), detect(key, MEDIUM)];
    let most = 0;
    for (let waited = 0; waited < 5_000 && most < 2; waited += 10) {
      most = Math.max(most, t.app.services.pool.load().busy);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(most).toBe(2);
    for (const r of await Promise.all(both)) expect(r.status, r.text).toBe(200);
    expect(await metric('provenance_detect_timeouts_total')).toBe(0);
  });
});

describe('the Verify page', () => {
  it('answers a file past the time limit with the same 413, and counts its call', async () => {
    const w = await webApp({}, { workers: 2, testMode: true, detectTimeoutMs: LIMIT_MS, testDetectHold: hold });
    try {
      await workersUp(w);
      const c = w.client();
      await signIn(w, c, 'verify-slow@example.com');
      const csrf = /id="csrf" value="([^"]+)"/.exec((await c.get('/verify')).text)![1]!;
      const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const r = await fetch(`${w.base}/verify/detect`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', cookie, 'x-csrf-token': csrf },
        body: SLOW,
      });
      const body = (await r.json()) as { error: { type: string; message: string; param: string }; quota: { used: number } };
      expect(r.status).toBe(413);
      expect(body.error).toMatchObject({ type: 'media_too_large', param: 'file' });
      expect(body.error.message).toContain('time limit of 1 s per file');
      expect(body.quota.used).toBe(1);
    } finally {
      await w.close();
    }
  });
});
