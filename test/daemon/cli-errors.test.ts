// `provenance daemon ...` as a new user meets it (issue 17): the 25-key limit on every path, the
// outbox's exit code, start failures said on the console, system errors as sentences, and
// read-only commands that do not make a data dir where a typo points. 127.0.0.1 only.
import { existsSync, mkdirSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMailAddress, startProblem } from '../../src/commands/daemon-errors.js';
import { runBin, runCli } from '../helpers/run-cli.js';
import { CAN_RUN_UNPRIVILEGED, runUnprivileged } from '../helpers/unprivileged.js';
import { startDaemonProcess } from './process.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'prov-daemon-errors-'));
  chmodSync(root, 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `d${++n}`);

describe('an account has at most 25 active keys, on every path (point 3)', () => {
  it('offline `daemon keys create` refuses the 26th; revoking one makes room', async () => {
    const dir = fresh();
    const created = await runCli(['daemon', 'accounts', 'create', '--email', 'many@example.test', '--data-dir', dir, '--json']);
    expect(created.code).toBe(0);
    const ids: string[] = [JSON.parse(created.stdout).key.id];
    for (let i = 2; i <= 25; i++) {
      const run = await runCli(['daemon', 'keys', 'create', '--email', 'many@example.test', '--data-dir', dir, '--json']);
      expect(run.code, run.stderr).toBe(0);
      ids.push(JSON.parse(run.stdout).key.id);
    }
    const refused = await runCli(['daemon', 'keys', 'create', '--email', 'many@example.test', '--data-dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('provenance: An account has at most 25 active keys; many@example.test has 25: revoke one it no longer uses first.\n');
    expect((await runCli(['daemon', 'keys', 'revoke', ids[3]!, '--data-dir', dir])).code).toBe(0);
    expect((await runCli(['daemon', 'keys', 'create', '--email', 'many@example.test', '--data-dir', dir])).code).toBe(0);

    // Through a running daemon's admin endpoint: the same refusal.
    const daemon = await startDaemonProcess(['--data-dir', dir]);
    try {
      const viaDaemon = await runCli(['daemon', 'keys', 'create', '--email', 'many@example.test', '--data-dir', dir]);
      expect(viaDaemon.code).toBe(2);
      expect(viaDaemon.stderr).toMatch(/at most 25 active keys/);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });
});

describe('`daemon outbox` exits 1 when there is no sign-in mail (point 4)', () => {
  it('listing, --json and --last alike', async () => {
    const dir = fresh();
    mkdirSync(dir);
    const list = await runCli(['daemon', 'outbox', '--data-dir', dir]);
    expect(list).toMatchObject({ code: 1, stdout: `no mail in ${dir}/outbox\n` });
    const json = await runCli(['daemon', 'outbox', '--json', '--data-dir', dir]);
    expect(json).toMatchObject({ code: 1, stdout: '{"messages":[]}\n' });
    expect((await runCli(['daemon', 'outbox', '--last', '--data-dir', dir])).code).toBe(1);
  });
});

describe('`daemon start --detach` says why it failed, on the console (point 6)', () => {
  let port: Server;
  afterAll(() => new Promise<void>((ok) => (port ? port.close(() => ok()) : ok())));

  it('a second start names the running daemon', async () => {
    const dir = fresh();
    const first = await runBin(['daemon', 'start', '--detach', '--port', '0', '--data-dir', dir]);
    expect(first.code, first.stderr).toBe(0);
    try {
      const second = await runBin(['daemon', 'start', '--detach', '--port', '0', '--data-dir', dir]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        /^provenance: A provenance daemon \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) already uses this data dir; stop it first with `provenance daemon stop`\.\nprovenance: the daemon exited \(code 1\); see .*daemon\.log\n$/,
      );
    } finally {
      expect((await runBin(['daemon', 'stop', '--data-dir', dir])).code).toBe(0);
    }
  });

  it('a port in use is named, with what to do', async () => {
    port = createServer();
    await new Promise<void>((ok) => port.listen(0, '127.0.0.1', ok));
    const taken = (port.address() as { port: number }).port;
    const run = await runBin(['daemon', 'start', '--detach', '--port', String(taken), '--data-dir', fresh()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`provenance: port ${taken} on 127.0.0.1 is in use by another program: stop it, or choose another --port (0 picks a free one).\n`);
    // In the foreground too.
    const fg = await runBin(['daemon', 'start', '--port', String(taken), '--data-dir', fresh()]);
    expect(fg).toMatchObject({ code: 1, stderr: `provenance: port ${taken} on 127.0.0.1 is in use by another program: stop it, or choose another --port (0 picks a free one).\n` });
  });
});

describe('system errors as sentences (point 12)', () => {
  it.skipIf(!CAN_RUN_UNPRIVILEGED)('`daemon accounts create` on a data dir that cannot be written names it and what to do', async () => {
    const dir = fresh();
    mkdirSync(dir);
    const run = await runUnprivileged(['daemon', 'accounts', 'create', '--email', 'a@example.test', '--data-dir', dir], { HOME: root }, dir, root);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`provenance: cannot write the data dir ${dir}: permission denied. Make it writable, or choose another with --data-dir (or PROVENANCE_DATA_DIR).\n`);
  });

  it('`daemon start --host 999.1.1.1` is a usage error naming the value (no lookup made)', async () => {
    const run = await runCli(['daemon', 'start', '--host', '999.1.1.1', '--port', '0', '--data-dir', fresh()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'provenance: --host 999.1.1.1 is not an IPv4 address (each of its four numbers is 0 to 255); e.g. 127.0.0.1 (this machine only, the default) or 0.0.0.0 (every network interface).\n',
    );
  });

  it('the listen errors a host name or a foreign address gives, as sentences (pure: nothing is sent)', () => {
    const where = { host: 'no-such-host.invalid', port: 8787, dataDir: '/d' };
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.invalid'), { code: 'ENOTFOUND', syscall: 'getaddrinfo' });
    expect(startProblem(dns, where)).toMatch(/^--host no-such-host\.invalid: no such address or host name\. Give an address of this machine/);
    const foreign = Object.assign(new Error('listen EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL', syscall: 'listen' });
    expect(startProblem(foreign, { ...where, host: '10.1.2.3' })).toMatch(/^--host 10\.1\.2\.3 is not an address of this machine\./);
    const lowPort = Object.assign(new Error('listen EACCES'), { code: 'EACCES', syscall: 'listen' });
    expect(startProblem(lowPort, { ...where, port: 80 })).toMatch(/^port 80 on .* needs privileges this user lacks: choose a --port from 1024 up/);
    const dirError = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open', path: '/d/daemon.lock' });
    expect(startProblem(dirError, where)).toMatch(/^cannot write the data dir \/d: permission denied/);
    expect(startProblem(new Error('something else'), where)).toBeUndefined();
  });
});

describe('--mail-from is checked (point 18)', () => {
  it('an address that is none is a usage error before anything starts', async () => {
    const run = await runCli(['daemon', 'start', '--port', '0', '--mail-from', 'notanaddress', '--data-dir', fresh()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('provenance: --mail-from "notanaddress" is not an e-mail address: give one such as noreply@example.com or "Provenance <noreply@example.com>"\n');
    for (const ok of ['noreply@example.com', 'Provenance <noreply@example.com>', 'provenance daemon <noreply@provenance.localhost>']) expect(isMailAddress(ok), ok).toBe(true);
    for (const bad of ['notanaddress', 'a@b', '<>', 'a b@example.com', 'Name <nope>']) expect(isMailAddress(bad), bad).toBe(false);
  });
});

describe('read-only commands on a data dir that does not exist (point 19)', () => {
  it('name the path, exit 1 and make no folder', async () => {
    const typo = join(root, 'TYPO');
    for (const args of [['daemon', 'keys', 'list'], ['daemon', 'accounts', 'list'], ['daemon', 'outbox'], ['daemon', 'keys', 'revoke', 'key_x']]) {
      const run = await runCli([...args, '--data-dir', typo]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toBe(`provenance: there is no data dir at ${typo}: check --data-dir (or PROVENANCE_DATA_DIR). \`provenance daemon start\` or \`daemon accounts create\` makes one.\n`);
    }
    expect(existsSync(typo)).toBe(false);
  });
});
