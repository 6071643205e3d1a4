// 429 rate_limited is waited out, never in a tight loop: against a stub on 127.0.0.1 in real
// time (Retry-After: 1), and against the daemon's real burst limit (free plan, 10 a minute)
// with its clock injected, the client's waits moving that clock instead of the wall clock.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/engine/detect.js';
import { testClock } from '../daemon/helpers.js';
import { tinyJpeg } from '../fixtures/make.js';
import { parseLines, runCli } from '../helpers/run-cli.js';
import { comparable, filesIn, login, remoteSetup, runCheckWith, type RemoteSetup } from './helpers.js';

describe('against a stub that answers 429 first', () => {
  let server: Server;
  let base: string;
  const times: number[] = [];
  const jpeg = tinyJpeg({ seed: 4 });
  let files: ReturnType<typeof filesIn>;

  beforeAll(async () => {
    files = filesIn({ 'a.jpg': jpeg });
    const result = { ...(await detect(jpeg)) };
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        times.push(Date.now());
        const headers = {
          'content-type': 'application/json',
          'x-quota-limit': '500',
          'x-quota-used': String(times.length),
          'x-quota-remaining': String(500 - times.length),
          'x-quota-reset': '2026-12-01T00:00:00Z',
          'ratelimit-limit': '10',
          'ratelimit-remaining': '0',
          'ratelimit-reset': '1',
        };
        if (times.length === 1) {
          res.writeHead(429, { ...headers, 'retry-after': '1' });
          res.end(JSON.stringify({ error: { type: 'rate_limited', message: 'This key made 10 requests in the last 60 seconds.' } }));
        } else {
          res.writeHead(200, headers).end(JSON.stringify(result));
        }
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    files.cleanup();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  it('says so on stderr, waits Retry-After, sends once more, and prints the result', async () => {
    const started = Date.now();
    const run = await runCli(['check', '--json', files.paths[0]!], new Uint8Array(), {
      PROVENANCE_CONFIG_DIR: files.dir,
      PROVENANCE_API_URL: base,
      PROVENANCE_API_KEY: 'prv_stubkey',
    });
    expect(run.code).toBe(0);
    // Where the checks run (said with --json too), then the wait.
    expect(run.stderr).toBe(
      `provenance: checking with the API at ${base} (--local checks on this machine).\n` +
        'provenance: rate limited by the API (10 requests a minute for this key); waiting 1 s as its Retry-After says, then sending again.\n',
    );
    expect(times.length).toBe(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(comparable(JSON.parse(run.stdout))).toMatchObject({ source: files.paths[0], media: { sha256: expect.any(String) } });
  });
});

describe("against the daemon's burst limit (free plan: 10 requests a minute)", () => {
  const clock = testClock('2026-11-15T12:00:00Z');
  let r: RemoteSetup;
  let files: ReturnType<typeof filesIn>;
  beforeAll(async () => {
    r = await remoteSetup({ plan: 'free', app: { now: clock } });
    files = filesIn(Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`f${String(i).padStart(2, '0')}.jpg`, tinyJpeg({ seed: 200 + i })])));
    expect((await login(r)).code).toBe(0); // the key check takes one slot of the burst window
  });
  afterAll(async () => {
    await r.close();
    files.cleanup();
  });

  it('waits each 429 out (as long as Retry-After says) and checks every file', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      clock.advance(ms);
    };
    const run = await runCheckWith({ inputs: [files.dir] }, r.env, { sleep });
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    expect(lines.length).toBe(14);
    expect(lines.every((l) => typeof l.id === 'string')).toBe(true);
    expect(lines.map((l) => l.source)).toEqual(files.paths);
    // 9 slots were left after login; the 10th file met a full window: 60 s until the oldest leaves.
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits[0]).toBe(60_000);
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(1000);
    expect(run.stderr).toMatch(/rate limited by the API \(10 requests a minute for this key\); waiting 60 s/);
    expect((await r.used())).toBe(14); // 429 answers are not counted
  });
});
