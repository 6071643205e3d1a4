// The test-mode commands through the CLI (issue 15): `daemon start --test-mode --fixtures`,
// `daemon clock|seed|export|import|reset|requests` and `daemon keys make`, against a real daemon
// subprocess (through its admin endpoint) and against a stopped one (on the store).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { runCli } from '../helpers/run-cli.js';
import { isWellFormedKey } from '../../src/daemon/accounts/key-format.js';
import { b64, http, tempDir } from './helpers.js';
import { BIN, startDaemonProcess, type DaemonProcess } from './process.js';

const media = b64(tinyJpeg());
const dirs: { cleanup(): void }[] = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));
function dataDir(): string {
  const d = tempDir('prov-testmode-');
  dirs.push(d);
  return d.dir;
}

async function cli(args: string[]) {
  const r = await runCli(args);
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}

async function makeKey(): Promise<string> {
  const made = await cli(['daemon', 'keys', 'make']);
  expect(made.code).toBe(0);
  return made.stdout.trim();
}

describe('daemon keys make', () => {
  it('prints a valid key each time', async () => {
    const a = await makeKey();
    const b = await makeKey();
    expect(isWellFormedKey(a)).toBe(true);
    expect(a).not.toBe(b);
  });
});

describe('a daemon started with --test-mode --fixtures', () => {
  let dir: string;
  let daemon: DaemonProcess;
  let key: string;
  beforeAll(async () => {
    dir = dataDir();
    key = await makeKey();
    const fixtures = join(dir, 'fixtures.json');
    writeFileSync(fixtures, JSON.stringify({ accounts: [{ email: 'ci@example.test', plan: 'starter', used: 2, keys: [{ key, name: 'ci' }] }] }));
    daemon = await startDaemonProcess(['--data-dir', dir, '--test-mode', '--fixtures', fixtures]);
  });
  afterAll(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });

  it('says test mode, serves the fixture key, and moves its clock from the CLI', async () => {
    for (let i = 0; i < 100 && !daemon.stdout().includes('test mode'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(daemon.stdout()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\ntest mode: /);
    const first = await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } });
    expect(first.status).toBe(200);
    expect(first.headers['x-quota-used']).toBe('3');

    const set = await cli(['daemon', 'clock', 'set', '2031-05-31T23:00:00Z', '--data-dir', dir, '--json']);
    expect(set.code).toBe(0);
    expect(set.json).toEqual({ now: '2031-05-31T23:00:00.000Z', mode: 'frozen', test_mode: true });
    const adv = await cli(['daemon', 'clock', 'advance', '2h', '--data-dir', dir]);
    expect(adv.stdout).toBe('2031-06-01T01:00:00.000Z (test clock, frozen)\n');
    const next = await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } });
    expect(next.headers['x-quota-used']).toBe('1');
    expect(next.headers['x-quota-reset']).toBe('2031-07-01T00:00:00Z');

    const back = await cli(['daemon', 'clock', 'set', '2031-01-01T00:00:00Z', '--data-dir', dir]);
    expect(back.code).toBe(2);
    expect(back.stderr).toMatch(/^provenance: The clock cannot go back/);
    const bad = await cli(['daemon', 'clock', 'advance', 'soon', '--data-dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a duration/);
  });

  it('daemon requests lists, filters, and --follow prints new requests as they come', async () => {
    const forced = await http(daemon.url, 'POST', '/v1/detect', { key, json: { media }, headers: { 'provenance-test-response': 'rate_limited' } });
    expect(forced.status).toBe(429);
    const list = await cli(['daemon', 'requests', '--data-dir', dir, '--json', '--account', 'ci@example.test']);
    expect(list.code).toBe(0);
    const entries = list.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(entries.at(-1)).toMatchObject({ request_id: forced.headers['request-id'], status: 429, error_type: 'rate_limited', forced: 'rate_limited', account: 'ci@example.test' });
    const human = await cli(['daemon', 'requests', '--data-dir', dir, '--limit', '1']);
    expect(human.stdout).toMatch(new RegExp(`${forced.headers['request-id']}  POST  /v1/detect  429  rate_limited  ci@example.test  ${key.slice(0, 8)}\\.\\.\\.  used \\d+  [\\d.]+ ms  FORCED rate_limited\\n$`));
    expect(human.stdout).not.toContain(key);

    const follow = spawn(process.execPath, [BIN, 'daemon', 'requests', '--follow', '--json', '--limit', '1', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    follow.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => follow.on('exit', (code) => r(code)));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 200 && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain(text);
    };
    await waitFor(forced.headers['request-id']!);
    const later = await http(daemon.url, 'GET', '/v1/detectors');
    await waitFor(later.headers['request-id']!);
    follow.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('seed, export, import and reset through the running daemon', async () => {
    const fixtures = join(dir, 'more.json');
    const other = await makeKey();
    writeFileSync(fixtures, JSON.stringify({ accounts: [{ email: 'second@example.test', keys: [{ key: other }] }] }));
    const seeded = await cli(['daemon', 'seed', fixtures, '--data-dir', dir]);
    expect(seeded.stdout).toBe('seeded: 1 account(s) created, 0 updated, 1 key(s) added\n');
    expect((await http(daemon.url, 'POST', '/v1/detect', { key: other, json: { media } })).status).toBe(200);

    const out = join(dir, 'state.json');
    expect((await cli(['daemon', 'export', '--out', out, '--data-dir', dir])).code).toBe(0);
    const exported = readFileSync(out, 'utf8');
    expect(exported).not.toContain(other);
    expect((await cli(['daemon', 'reset', '--data-dir', dir])).code).toBe(0);
    expect((await http(daemon.url, 'POST', '/v1/detect', { key: other, json: { media } })).status).toBe(401);
    const imported = await cli(['daemon', 'import', out, '--data-dir', dir]);
    expect(imported.stdout).toMatch(/^imported: 2 accounts, 2 keys/);
    expect((await cli(['daemon', 'export', '--data-dir', dir])).stdout).toBe(exported);

    const kept = await cli(['daemon', 'reset', '--keep-accounts', '--data-dir', dir]);
    expect(kept.stdout).toMatch(/accounts and keys kept/);
    expect((await http(daemon.url, 'POST', '/v1/detect', { key: other, json: { media } })).headers['x-quota-used']).toBe('1');
  });

  it('a bad fixture file: one line per problem with its JSON path, exit 2, nothing applied', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ accounts: [{ email: 'x', keys: [{ key: 'prv_123' }] }], extra: 1 }));
    const before = (await cli(['daemon', 'export', '--data-dir', dir])).stdout;
    const r = await cli(['daemon', 'seed', bad, '--data-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^provenance: The fixtures have 3 problems:\n  \$\.extra: unknown field/);
    expect(r.stderr).toMatch(/\n  \$\.accounts\[0\]\.email: must be an e-mail address\n/);
    expect(r.stderr).toMatch(/\n  \$\.accounts\[0\]\.keys\[0\]\.key: not a valid key/);
    expect((await cli(['daemon', 'export', '--data-dir', dir])).stdout).toBe(before);
    writeFileSync(bad, '{ not json');
    const notJson = await cli(['daemon', 'seed', bad, '--data-dir', dir]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/is not JSON/);
  });
});

describe('the test clock across restarts and imports', () => {
  const stop = async (d: DaemonProcess) => {
    d.child.kill('SIGTERM');
    await d.exited;
  };
  const waitForLine = async (d: DaemonProcess, text: string) => {
    for (let i = 0; i < 100 && !d.stdout().includes(text); i++) await new Promise((r) => setTimeout(r, 20));
    return d.stdout();
  };

  it('a --test-mode restart resumes the frozen clock; a start without --test-mode ignores it; an import ahead of the clock is refused', async () => {
    const dir = dataDir();
    const key = await makeKey();
    let daemon = await startDaemonProcess(['--data-dir', dir, '--test-mode']);
    try {
      expect((await cli(['daemon', 'clock', 'set', '2031-01-01T00:00:00Z', '--data-dir', dir])).code).toBe(0);
      expect((await cli(['daemon', 'clock', 'advance', '31d', '--data-dir', dir])).stdout).toBe('2031-02-01T00:00:00.000Z (test clock, frozen)\n');
      const fixtures = join(dir, 'f.json');
      writeFileSync(fixtures, JSON.stringify({ accounts: [{ email: 'restart@example.test', keys: [{ key }] }] }));
      expect((await cli(['daemon', 'seed', fixtures, '--data-dir', dir])).code).toBe(0);
      expect((await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } })).headers['x-quota-reset']).toBe('2031-03-01T00:00:00Z');
    } finally {
      await stop(daemon);
    }

    // Restarted in test mode: the clock is where the test left it, not back at real time.
    daemon = await startDaemonProcess(['--data-dir', dir, '--test-mode']);
    try {
      expect(await waitForLine(daemon, 'test clock:')).toMatch(/\ntest clock: frozen at 2031-02-01T00:00:00\.000Z \(restored from the data dir\)\n/);
      expect((await cli(['daemon', 'clock', '--data-dir', dir, '--json'])).json).toEqual({ now: '2031-02-01T00:00:00.000Z', mode: 'frozen', test_mode: true });
      expect((await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } })).headers['x-quota-used']).toBe('2');

      // An import whose latest event is after the clock: refused (exit 2), nothing applied.
      const out = join(dir, 'state.json');
      expect((await cli(['daemon', 'export', '--out', out, '--data-dir', dir])).code).toBe(0);
      const state = JSON.parse(readFileSync(out, 'utf8'));
      state.accounts[0].created_at = '2031-03-01T00:00:00.000Z';
      writeFileSync(out, JSON.stringify(state));
      const refused = await cli(['daemon', 'import', out, '--data-dir', dir]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        "provenance: The state records an event at 2031-03-01T00:00:00.000Z, after this daemon's test clock (2031-02-01T00:00:00.000Z); nothing was imported. Move the clock first (provenance daemon clock set 2031-03-01T00:00:00.000Z), then import.\n",
      );
      expect((await cli(['daemon', 'export', '--data-dir', dir])).json.accounts[0].created_at).not.toBe('2031-03-01T00:00:00.000Z');
    } finally {
      await stop(daemon);
    }

    // Without --test-mode the saved clock is ignored (and kept for the next --test-mode start).
    daemon = await startDaemonProcess(['--data-dir', dir]);
    try {
      expect((await cli(['daemon', 'clock', '--data-dir', dir])).stdout).toMatch(/\(real time; no --test-mode\)\n$/);
      expect(daemon.stdout()).not.toContain('test clock');
    } finally {
      await stop(daemon);
    }

    // The same import with no daemon running (no test clock to contradict) is accepted; the next
    // --test-mode start then resumes at that state's latest event, never before it.
    expect((await cli(['daemon', 'import', join(dir, 'state.json'), '--data-dir', dir])).code).toBe(0);
    daemon = await startDaemonProcess(['--data-dir', dir, '--test-mode']);
    try {
      expect(await waitForLine(daemon, 'test clock:')).toMatch(
        /\ntest clock: frozen at 2031-03-01T00:00:00\.000Z, the latest event the state records \(saved at 2031-02-01T00:00:00\.000Z, which is before it\)\n/,
      );
      expect((await cli(['daemon', 'clock', '--data-dir', dir, '--json'])).json).toMatchObject({ now: '2031-03-01T00:00:00.000Z', mode: 'frozen' });
      // Back to real time is refused (the state records 2031), so the clock stays frozen.
      expect((await cli(['daemon', 'clock', 'real', '--data-dir', dir])).code).toBe(2);
    } finally {
      await stop(daemon);
    }
  });

  it('a damaged saved clock stops a --test-mode start with one line naming the file', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'test-clock.json'), '{"mode": "frozen", "at": "soon"}');
    const r = await cli(['daemon', 'start', '--port', '0', '--data-dir', dir, '--test-mode']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `provenance: could not start the daemon: the saved test clock ${join(dir, 'test-clock.json')} is damaged; delete it to start at real time, or fix it to {"mode": "frozen", "at": "2030-01-01T00:00:00.000Z"}.\n`,
    );
  });
});

describe('without --test-mode, and without a daemon', () => {
  it('daemon clock refuses to move a daemon started without --test-mode (exit 2)', async () => {
    const dir = dataDir();
    const daemon = await startDaemonProcess(['--data-dir', dir]);
    try {
      const r = await cli(['daemon', 'clock', 'advance', '31d', '--data-dir', dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--test-mode/);
      expect((await cli(['daemon', 'clock', '--data-dir', dir])).stdout).toMatch(/\(real time; no --test-mode\)\n$/);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('clock and requests need a running daemon (exit 3); seed, export, import, reset work on the store', async () => {
    const dir = dataDir();
    const clock = await cli(['daemon', 'clock', '--data-dir', dir]);
    expect(clock.code).toBe(3);
    expect(clock.stderr).toMatch(/No daemon runs/);
    expect((await cli(['daemon', 'requests', '--data-dir', dir])).code).toBe(3);

    const key = await makeKey();
    const fixtures = join(dir, 'f.json');
    writeFileSync(fixtures, JSON.stringify({ accounts: [{ email: 'off@example.test', plan: 'custom', quota: 9, used: 4, keys: [{ key }] }] }));
    expect((await cli(['daemon', 'seed', fixtures, '--data-dir', dir])).code).toBe(0);
    expect((await cli(['daemon', 'seed', fixtures, '--data-dir', dir])).stdout).toMatch(/0 account\(s\) created, 1 updated, 0 key\(s\) added/);
    const listed = await cli(['daemon', 'accounts', 'list', '--data-dir', dir, '--json']);
    expect(listed.json.accounts[0]).toMatchObject({ email: 'off@example.test', usage: { used: 4 }, limits: { calls_per_month: 9 } });

    const out = join(dir, 'state.json');
    await cli(['daemon', 'export', '--out', out, '--data-dir', dir]);
    const first = readFileSync(out, 'utf8');
    expect(JSON.parse(first)).toMatchObject({ format: 'provenance-daemon-state', version: 1 });
    expect((await cli(['daemon', 'reset', '--data-dir', dir])).code).toBe(0);
    expect((await cli(['daemon', 'accounts', 'list', '--data-dir', dir, '--json'])).json.accounts).toEqual([]);
    expect((await cli(['daemon', 'import', out, '--data-dir', dir])).code).toBe(0);
    expect((await cli(['daemon', 'export', '--data-dir', dir])).stdout).toBe(first);

    // The imported state serves: a daemon started on it accepts the key.
    const daemon = await startDaemonProcess(['--data-dir', dir]);
    try {
      expect((await http(daemon.url, 'POST', '/v1/detect', { key, json: { media } })).status).toBe(200);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('--fixtures with a bad file does not start the daemon (exit 2, every problem listed)', async () => {
    const dir = dataDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ accounts: [{ email: 'a@example.test', plan: 'custom' }, 'nope'] }));
    const r = await cli(['daemon', 'start', '--port', '0', '--data-dir', dir, '--fixtures', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `provenance: --fixtures ${bad}: The fixtures have 2 problems:\n  $.accounts[0].quota: a custom plan needs its monthly calls, a whole number >= 0\n  $.accounts[1]: must be an object with at least "email"\n`,
    );
  });
});
