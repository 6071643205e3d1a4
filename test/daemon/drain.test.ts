// Issue 27: readiness and drain on the real daemon process (the built CLI, `npm run build`).
// SIGTERM during 50 in-flight detects: /readyz turns 503 before any of them completes, new
// connections are still accepted for the drain delay and refused after it, keep-alive
// connections are closed, all 50 complete with 200, and the process exits 0.
//
// The 50 detects are held in flight deterministically: each downloads its `url` from a server of
// this test's own on 127.0.0.1 (the daemon runs with --allow-private-urls) that answers only
// when the test releases it, so nothing can complete before the test says so.
import { createServer as createHttpServer, request, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { runBin, runCli } from '../helpers/run-cli.js';
import { tempDir } from './helpers.js';
import { startDaemonProcess, type DaemonProcess } from './process.js';

const JPEG = tinyJpeg();
const IN_FLIGHT = 50;

/** A media server that holds every request until released (or answers at once once released). */
class HeldMedia {
  private readonly held: ServerResponse[] = [];
  private released = false;
  private server: Server | undefined;
  seen = 0;
  port = 0;

  async open(): Promise<void> {
    this.server = createHttpServer((_req: IncomingMessage, res: ServerResponse) => {
      this.seen++;
      if (this.released) this.answer(res);
      else this.held.push(res);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  url(i: number): string {
    return `http://127.0.0.1:${this.port}/photo-${i}.jpg`;
  }

  release(): void {
    this.released = true;
    for (const res of this.held.splice(0)) this.answer(res);
  }

  private answer(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.byteLength });
    res.end(JPEG);
  }

  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

/** One request; `agent: false` opens a connection of its own, else the agent's (keep-alive). */
function send(base: string, method: string, path: string, options: { agent?: Agent | false; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: options.agent ?? false, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, at: performance.now() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls until `check` is true (every 50 ms, at most `ms`); returns whether it became true. */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = performance.now() + ms; performance.now() < end; ) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** A raw keep-alive connection: sends one GET and resolves with the response's head. */
function rawGet(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      resolve(text.slice(0, end));
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
  });
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Whether a new TCP connection to the port is refused now. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

const dirs: { cleanup(): void }[] = [];
const daemons: DaemonProcess[] = [];
const media: HeldMedia[] = [];
const sockets: Socket[] = [];

afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const d of daemons) if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
  await Promise.all(daemons.map((d) => d.exited));
  await Promise.all(media.map((m) => m.close()));
  for (const d of dirs) d.cleanup();
});

/** A data dir with one custom-plan account (300 requests a minute: 50 at once is within it). */
async function dataDirWithKey(): Promise<{ dir: string; key: string }> {
  const d = tempDir('prov-drain-');
  dirs.push(d);
  const r = await runCli(['daemon', 'accounts', 'create', '--email', 'drain@example.test', '--plan', 'custom', '--quota', '1000', '--data-dir', d.dir, '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return { dir: d.dir, key: JSON.parse(r.stdout).key.value as string };
}

async function start(args: string[]): Promise<DaemonProcess & { port: number }> {
  const daemon = await startDaemonProcess(args);
  daemons.push(daemon);
  return { ...daemon, port: Number(new URL(daemon.url).port) };
}

async function readyz(base: string): Promise<Answer> {
  return send(base, 'GET', '/readyz');
}

/** Waits for /readyz 200 (the workers load after the daemon listens); a load balancer's first probes. */
async function waitReady(base: string): Promise<Answer> {
  let last: Answer | undefined;
  await until(async () => (last = await readyz(base)).status === 200, 20_000);
  return last!;
}

function detect(base: string, key: string, url: string, agent: Agent): Promise<Answer> {
  return send(base, 'POST', '/v1/detect', {
    agent,
    body: JSON.stringify({ url }),
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
}

describe('SIGTERM during 50 in-flight detects (issue 27)', () => {
  let dir: string;
  let key: string;
  let held: HeldMedia;
  let daemon: DaemonProcess & { port: number };
  beforeAll(async () => {
    ({ dir, key } = await dataDirWithKey());
    held = new HeldMedia();
    media.push(held);
    await held.open();
    // Every download reserves the 25 MB URL cap in the media budget until its headers come:
    // 50 held at once need 1.25 GiB of budget (bookkeeping, not memory: the files are tiny).
    daemon = await start(['--data-dir', dir, '--allow-private-urls', '--media-memory', '2GiB', '--drain-delay', '1.5', '--shutdown-grace', '30']);
  });

  it('readiness false first, new connections accepted for the drain delay then refused, all 50 complete, exit 0', async () => {
    const ready = await waitReady(daemon.url);
    expect(JSON.parse(ready.body)).toEqual({ status: 'ready', store: 'up', workers: 'up', draining: false });
    // The stop's timings are in the state file, for `daemon stop`.
    expect(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8'))).toMatchObject({ drain_delay_ms: 1500, shutdown_grace_ms: 30_000 });

    // Two keep-alive connections made before the stop: one stays idle (the daemon must close it
    // when it stops accepting), one sends a request during the drain (answered Connection: close).
    const idle = await openSocket(daemon.port);
    const busy = await openSocket(daemon.port);
    sockets.push(idle, busy);
    expect(await rawGet(idle, '/healthz')).toMatch(/^HTTP\/1\.1 200 [^]*\r\nconnection: keep-alive/i);
    expect(await rawGet(busy, '/healthz')).toMatch(/^HTTP\/1\.1 200 [^]*\r\nconnection: keep-alive/i);
    const idleClosed = new Promise<number>((resolve) => idle.once('close', () => resolve(performance.now())));
    const busyClosed = new Promise<number>((resolve) => busy.once('close', () => resolve(performance.now())));

    // 50 detects on keep-alive connections, each held in its download.
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const detects = Array.from({ length: IN_FLIGHT }, (_, i) => detect(daemon.url, key, held.url(i), agent));
    expect(await until(() => held.seen === IN_FLIGHT, 20_000)).toBe(true);

    const signalled = performance.now();
    daemon.child.kill('SIGTERM');
    // Readiness goes false at once: the first probe after the signal (on a new connection, which
    // the listener still accepts) says draining.
    let notReady: Answer | undefined;
    expect(await until(async () => (notReady = await readyz(daemon.url)).status === 503, 5_000)).toBe(true);
    expect(JSON.parse(notReady!.body)).toEqual({ status: 'not_ready', store: 'up', workers: 'up', draining: true });
    expect(notReady!.headers.connection).toBe('close');
    // /healthz is liveness: still 200 while draining, so no supervisor restarts a daemon that is stopping.
    expect((await send(daemon.url, 'GET', '/healthz')).status).toBe(200);
    // A request on an existing keep-alive connection during the drain: answered, Connection: close.
    expect(await rawGet(busy, '/readyz')).toMatch(/^HTTP\/1\.1 503 [^]*\r\nconnection: close/i);
    await busyClosed;

    // After the drain delay the listener closes: new connections are refused, and the idle
    // keep-alive connection is closed by the daemon, while the 50 are still in flight.
    expect(await until(() => refused(daemon.port), 10_000)).toBe(true);
    const refusedAt = performance.now();
    // Not before the drain delay (1.5 s; a little timer slack).
    expect(refusedAt - signalled).toBeGreaterThanOrEqual(1_400);
    const idleClosedAt = await idleClosed;
    expect(idleClosedAt - signalled).toBeGreaterThanOrEqual(1_400);
    expect(held.seen).toBe(IN_FLIGHT);

    // Readiness was false before any of the 50 completed: none can until the media is released.
    held.release();
    const answers = await Promise.all(detects);
    agent.destroy();
    expect(answers.map((a) => a.status)).toEqual(Array(IN_FLIGHT).fill(200));
    expect(Math.min(...answers.map((a) => a.at))).toBeGreaterThan(notReady!.at);
    for (const a of answers) {
      expect(JSON.parse(a.body).checks_run.length).toBeGreaterThan(0);
      // Answered during the drain: the connection is not kept alive.
      expect(a.headers.connection).toBe('close');
    }
    expect(await daemon.exited).toBe(0);
    // A clean stop: the state and pid files are gone, the store kept every counted call.
    expect(existsSync(join(dir, 'daemon.json'))).toBe(false);
    const accounts = await runCli(['daemon', 'accounts', 'list', '--data-dir', dir, '--json']);
    expect(accounts.stdout).toMatch(/"used":\s*50\b/);
  }, 90_000);
});

describe('a second signal during the drain, and a stop nobody watches', () => {
  it('a second signal (SIGINT after SIGTERM) ends the drain at once: in-flight connections are cut, exit 0', async () => {
    const { dir, key } = await dataDirWithKey();
    const held = new HeldMedia();
    media.push(held);
    await held.open();
    const daemon = await start(['--data-dir', dir, '--allow-private-urls', '--drain-delay', '60', '--shutdown-grace', '60']);
    await waitReady(daemon.url);
    const agent = new Agent({ keepAlive: true });
    const inFlight = detect(daemon.url, key, held.url(0), agent).then(
      (a) => a,
      (err: Error) => err,
    );
    expect(await until(() => held.seen === 1, 20_000)).toBe(true);
    const signalled = performance.now();
    daemon.child.kill('SIGTERM');
    expect(await until(async () => (await readyz(daemon.url)).status === 503, 5_000)).toBe(true);
    // The second signal may be either (a supervisor's repeated SIGTERM, an impatient Ctrl-C).
    daemon.child.kill('SIGINT');
    expect(await daemon.exited).toBe(0);
    // Well inside the 60 s drain delay, let alone the 60 s grace after it.
    expect(performance.now() - signalled).toBeLessThan(10_000);
    // The held detect got no answer: its connection was cut.
    expect(await inFlight).toBeInstanceOf(Error);
    agent.destroy();
  }, 60_000);

  it('--detach forwards the flags; with no /readyz probe since the start, `daemon stop` waits no drain delay', async () => {
    const { dir } = await dataDirWithKey();
    const started = await runBin(['daemon', 'start', '--detach', '--port', '0', '--data-dir', dir, '--drain-delay', '60', '--shutdown-grace', '3']);
    expect(started.code).toBe(0);
    const state = JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8'));
    expect(state).toMatchObject({ drain_delay_ms: 60_000, shutdown_grace_ms: 3_000 });
    try {
      const stopping = performance.now();
      const stop = await runBin(['daemon', 'stop', '--data-dir', dir]);
      expect(stop.code).toBe(0);
      expect(stop.stdout).toMatch(/^stopped \(pid \d+\)/);
      // Nobody asked /readyz, so nobody is watching for the 503: the 60 s delay is skipped.
      expect(performance.now() - stopping).toBeLessThan(10_000);
    } finally {
      // A daemon left behind by a failed assertion is ended here (its pid from the state file).
      try {
        process.kill(state.pid, 'SIGKILL');
      } catch {
        // already gone: the expected case
      }
    }
  }, 60_000);

  it('refuses a drain delay or grace that is not a number of seconds (exit 2)', async () => {
    const { dir } = await dataDirWithKey();
    const bad = await runCli(['daemon', 'start', '--port', '0', '--data-dir', dir, '--drain-delay', '-1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--drain-delay must be a number of seconds from 0 to 3600/);
    const worse = await runCli(['daemon', 'start', '--port', '0', '--data-dir', dir, '--shutdown-grace', '10s']);
    expect(worse.code).toBe(2);
    expect(worse.stderr).toMatch(/--shutdown-grace must be a number of seconds/);
  });
});
