// A client's test suite against `provenance daemon start --test-mode` (docs/DAEMON.md: "Testing your
// API client offline"). Nothing else is needed: fixtures give stable keys, the test clock crosses
// the month, and Provenance-Test-Response makes the API answer 429 on demand.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';

// The provenance CLI (npm i -D /path/to/provenance-check-0.1.0.tgz: the package is provenance-check); PROVENANCE_BIN overrides where it is.
const CLI = process.env.PROVENANCE_BIN ?? 'node_modules/provenance-check/bin/provenance.js';
// A fixed key (made once with `provenance daemon keys make`): the same in every run.
const KEY = 'prv_zmDh49pBhh4R9uuHfeAaQb1hOsQFU45x3BmF4n';
const PHOTO = readFileSync('examples/camera.jpg'); // any image

// ---- The client under test: retries a 429 rate_limited after Retry-After seconds. ----
type Fetch = typeof fetch;
export async function detect(
  base: string,
  bytes: Uint8Array,
  options: { fetch?: Fetch; sleep?: (seconds: number) => Promise<void> } = {},
) {
  const send = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((s: number) => new Promise<void>((r) => setTimeout(r, s * 1000)));
  for (let attempt = 1; ; attempt++) {
    const response = await send(`${base}/v1/detect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media: Buffer.from(bytes).toString('base64') }),
    });
    const body = (await response.json()) as any;
    if (response.ok) return { body, used: Number(response.headers.get('x-quota-used')) };
    if (body.error.type === 'rate_limited' && attempt < 3) {
      await sleep(Number(response.headers.get('retry-after')));
      continue;
    }
    throw new Error(`${body.error.type}: ${body.error.message}`);
  }
}

// ---- The daemon, started by the test. ----
let dir: string;
let daemon: ChildProcess;
let base: string;
const provenance = (...args: string[]) => execFileSync(process.execPath, [CLI, 'daemon', ...args, '--data-dir', dir], { encoding: 'utf8' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'client-test-'));
  daemon = spawn(process.execPath, [CLI, 'daemon', 'start', '--test-mode', '--port', '0', '--data-dir', dir]);
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    daemon.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    daemon.on('exit', (code) => reject(new Error(`the daemon exited (${code})`)));
  });
  // Start in a known month, then seed: an account with its quota (3 calls) all used.
  provenance('clock', 'set', '2031-01-31T12:00:00Z');
  const fixtures = join(dir, 'fixtures.json');
  writeFileSync(fixtures, JSON.stringify({ accounts: [{ email: 'ci@example.com', plan: 'custom', quota: 3, used: 3, keys: [{ key: KEY }] }] }));
  provenance('seed', fixtures);
});

afterAll(async () => {
  // The daemon writes its store as it stops: remove the folder only once it has exited.
  const exited = new Promise((resolve) => daemon.once('exit', resolve));
  if (daemon.exitCode === null && daemon.kill('SIGTERM')) await exited;
  rmSync(dir, { recursive: true, force: true });
});

it('gets quota_exceeded at the end of the month, and 200 again after the month turns', async () => {
  await expect(detect(base, PHOTO)).rejects.toThrow(/^quota_exceeded: .* resets at 2031-02-01T00:00:00Z/);
  provenance('clock', 'advance', '1d');
  const { body, used } = await detect(base, PHOTO);
  expect(body.checks_run.length).toBeGreaterThan(0);
  expect(used).toBe(1);
});

it('retries a 429 rate_limited after Retry-After seconds', async () => {
  let calls = 0;
  // Force a 429 on the first attempt only; the retry goes through for real.
  const forcing: Fetch = (url, init) => {
    const headers = { ...(init?.headers as Record<string, string>) };
    if (calls++ === 0) headers['provenance-test-response'] = 'rate_limited';
    return fetch(url, { ...init, headers });
  };
  const waited: number[] = [];
  const { used } = await detect(base, PHOTO, { fetch: forcing, sleep: async (s) => void waited.push(s) });
  expect(waited).toEqual([60]);
  expect(used).toBe(2); // the forced 429 was not counted
  // The daemon's request log shows both attempts, the first one marked as forced.
  const log = provenance('requests', '--json', '--limit', '2').trim().split('\n').map((line) => JSON.parse(line));
  expect(log.map((e) => [e.status, e.forced])).toEqual([[429, 'rate_limited'], [200, null]]);
});
