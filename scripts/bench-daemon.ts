// `npm run bench:daemon`: the daemon's throughput and latency for a camera JPEG sent inline, at
// 16 connections (127.0.0.1 only), beside the engine's in-process throughput on the same file;
// then the daemon's RSS while 8 clients upload 25 MB files at once, and while 120 clients ask it
// for 25 MB url downloads at once (scripts/bench-url-downloads.ts; BENCH_DAEMON_ONLY=url-downloads
// runs that row alone: about 90 s, most of it the 60 s idle it measures).
// The load comes from scripts/http-load.ts, which costs far less CPU than autocannon on the two
// cores it shares with the daemon (`--generator autocannon` for comparison). Beside the daemon,
// the same load against a bare node:http server that only receives the bodies: the transport
// floor, from which the bench derives the most any daemon could reach on this machine.
// Prints the figures and a Markdown table for docs/PERFORMANCE.md ("Daemon"). Needs a build
// (dist/), which `npm run bench:daemon` runs first.
//
// Options: --file PATH (default: the shared corpus's iPhone JPEG), --duration SECONDS (default
//          10), --connections N (default 16), --generator http-load|autocannon.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { decodeBase64Media } from '../src/engine/base64-media.js';
import { parseDetectJson, RawBase64 } from '../src/daemon/media/json-body.js';
import { detect } from '../src/engine/detect.js';
import { INLINE_MAX_BYTES } from '../src/types.js';
import { benchOption, listeningUrl } from './bench-kit.js';
import { runLoad, type LoadRequest } from './http-load.js';
import { sha256Ms } from './machine-speed.js';
import { cpuMs, rssMb } from './proc-stats.js';
import { downloadRows, urlDownloadMemory } from './bench-url-downloads.js';
import { observabilityCost } from './bench-observability.js';

const ROOT = resolve('.');
const BIN = join(ROOT, 'bin', 'provenance.js');
const opt = benchOption;
const duration = Number(opt('duration', '10'));
const connections = Number(opt('connections', '16'));
const generator = opt('generator', 'http-load');
if (generator !== 'http-load' && generator !== 'autocannon') throw new Error(`--generator: http-load or autocannon, not ${generator}`);
const corpusJpeg = join(ROOT, '..', 'shared', 'corpus', 'files', 'iphone6_hdr_NO.jpg');
const file = opt('file', existsSync(corpusJpeg) ? corpusJpeg : '');
if (!file) throw new Error('no camera JPEG: pass --file PATH');
const bytes = new Uint8Array(readFileSync(file));
const MB = 1_048_576;

function cli(dataDir: string, ...rest: string[]): any {
  return JSON.parse(execFileSync(process.execPath, [BIN, 'daemon', ...rest, '--data-dir', dataDir, '--json'], { encoding: 'utf8' }));
}

interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function startDaemon(dataDir: string, ...flags: string[]): Promise<Server> {
  return startServer([BIN, 'daemon', 'start', '--port', '0', '--data-dir', dataDir, ...flags]);
}

const ONLY = process.env.BENCH_DAEMON_ONLY;
if (ONLY !== undefined && ONLY !== 'url-downloads' && ONLY !== 'observability') throw new Error(`BENCH_DAEMON_ONLY: url-downloads or observability, not ${ONLY}`);

/**
 * Issue 27: CPU per detect with metrics and request logs on and off (scripts/bench-observability.ts),
 * in one run on two files. A small one first: the daemon's own work per request is then the
 * largest share, so the added microseconds stand clear of the noise. Then the bench's camera JPEG
 * (--file), a detect as users send them, where the same microseconds are set against the CPU of
 * the whole detect: that ratio is the figure the target (under 3 %) is about. Options:
 * --observe-file PATH (default examples/camera.jpg), --observe-requests N (3000), --observe-rounds R (8),
 * --observe-warmup N (5000 per app: the first thousands of requests still ran faster each round);
 * for the camera JPEG --observe-photo-requests N (200), --observe-photo-rounds R (8),
 * --observe-photo-warmup N (100).
 */
async function observabilityRows(): Promise<string[]> {
  const smallFile = opt('observe-file', join(ROOT, 'examples', 'camera.jpg'));
  const small = new Uint8Array(readFileSync(smallFile));
  const speed = () => `machine speed: SHA-256 of the bench file in ${sha256Ms(bytes).toFixed(2)} ms, one thread`;
  const before = speed();
  const tiny = await observabilityCost(small, {
    label: basename(smallFile),
    requests: Number(opt('observe-requests', '3000')),
    rounds: Number(opt('observe-rounds', '8')),
    warmup: Number(opt('observe-warmup', '5000')),
  });
  const photo = await observabilityCost(bytes, {
    label: basename(file),
    requests: Number(opt('observe-photo-requests', '200')),
    rounds: Number(opt('observe-photo-rounds', '8')),
    warmup: Number(opt('observe-photo-warmup', '100')),
  });
  // What both on adds per request, measured where it stands out (the small file), over what a
  // detect of the camera JPEG costs with both off.
  const added = tiny.addedMs[3]!;
  const photoOff = photo.msPerRequest[0]!;
  const verdict = `metrics and logs both on add ${(added * 1000).toFixed(0)} µs of CPU per request (${basename(smallFile)}); a detect of ${basename(file)} costs ${photoOff.toFixed(1)} ms with both off: ${((added / photoOff) * 100).toFixed(2)} % (target: under 3 %)`;
  return [`${before} (before); ${speed()} (after)`, '', ...tiny.rows, '', ...photo.rows, '', verdict];
}

/** The url-download memory row on a fresh daemon that may fetch from 127.0.0.1 (the local source). */
function downloadMemory(dataDir: string, key: string) {
  return urlDownloadMemory(() => startDaemon(dataDir, '--allow-private-urls'), key, bytes);
}

/** Starts a server that prints `listening on URL` (the daemon, or the bare transport floor). */
async function startServer(argv: string[]): Promise<Server> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await listeningUrl(child);
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((res) => {
        child.once('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}

/** The engine on the main thread, one file after another (what `provenance check` does). */
async function inProcessSerial(): Promise<number> {
  for (let i = 0; i < 5; i++) await detect(bytes);
  let n = 0;
  const end = performance.now() + duration * 1000;
  while (performance.now() < end) {
    await detect(bytes);
    n++;
  }
  return n / duration;
}

/** The engine on its worker threads (dist/detect-worker.js), as many as the daemon uses, 16 in flight. */
async function inProcessWorkers(size: number): Promise<number> {
  const workers = Array.from({ length: size }, () => new Worker(join(ROOT, 'dist', 'detect-worker.js')));
  let id = 0;
  let done = 0;
  const run = (w: Worker) =>
    new Promise<void>((res, rej) => {
      const task = ++id;
      // The pool's protocol: a message is a batch of tasks, answered by one array of replies.
      const onMessage = ([reply]: { id: number; ok: boolean }[]) => {
        if (reply!.id !== task) return;
        w.off('message', onMessage);
        reply!.ok ? res() : rej(new Error('worker failed'));
      };
      w.on('message', onMessage);
      w.postMessage([{ id: task, source: 'bench', bytes, options: {} }]);
    });
  const loop = async (w: Worker, until: number, count: boolean) => {
    while (performance.now() < until) {
      await run(w);
      if (count) done++;
    }
  };
  const inFlight = Math.max(size, Math.min(connections, 16));
  await Promise.all(Array.from({ length: inFlight }, (_, i) => loop(workers[i % size]!, performance.now() + 1000, false)));
  await Promise.all(Array.from({ length: inFlight }, (_, i) => loop(workers[i % size]!, performance.now() + duration * 1000, true)));
  await Promise.all(workers.map((w) => w.terminate()));
  return done / duration;
}

/** CPU of every thread of a process so far: its main thread, and all the others together. */
function cpuSplit(pid: number): { main: number; others: number } {
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (Number(tid) !== pid) others += cpuMs(pid, Number(tid));
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return { main: cpuMs(pid), others };
}

interface Load {
  requestsPerSecond: number;
  answered: number;
  ok: number;
  failed: number;
  p50: number;
  p99: number;
}

/** `connections` clients cycling through `requests` for `seconds` (or `amount` answers). */
async function load(url: string, requests: LoadRequest[], limit: { seconds: number } | { amount: number }): Promise<Load> {
  if (generator === 'autocannon') {
    // As a string: autocannon handles a Buffer body far more slowly (10 ms of CPU per request).
    const bodies = new Map(requests.map((q) => [q.body, q.body.toString('latin1')]));
    const r = await autocannon({
      url,
      connections,
      ...('seconds' in limit ? { duration: limit.seconds } : { amount: limit.amount }),
      requests: requests.map((q) => ({ method: q.method as 'POST', path: q.path, headers: q.headers, body: bodies.get(q.body)! })),
    });
    return { requestsPerSecond: r.requests.average, answered: r.requests.total, ok: r['2xx'], failed: r.non2xx + r.errors, p50: r.latency.p50, p99: r.latency.p99 };
  }
  const r = await runLoad({ url, connections, requests, ...('seconds' in limit ? { durationMs: limit.seconds * 1000 } : { amount: limit.amount }) });
  const ok = Object.entries(r.statuses).reduce((n, [status, count]) => n + (status.startsWith('2') ? count : 0), 0);
  return { requestsPerSecond: r.requestsPerSecond, answered: r.answered, ok, failed: r.answered - ok + r.errors, p50: r.latencyMs.p50, p99: r.latencyMs.p99 };
}

/** What the daemon spends on one inline body before the engine sees it: finding `media` and decoding it. */
function decodeMsPerBody(body: Buffer): number {
  const into = Buffer.allocUnsafeSlow(INLINE_MAX_BYTES);
  const once = () => {
    const parsed = parseDetectJson(body) as { media: RawBase64 };
    const decoded = decodeBase64Media(parsed.media.bytes, into);
    if (!('bytes' in decoded)) throw new Error('the bench body did not decode');
  };
  for (let i = 0; i < 50; i++) once();
  const runs = 500;
  const start = performance.now();
  for (let i = 0; i < runs; i++) once();
  return (performance.now() - start) / runs;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'prov-bench-'));
  try {
    if (ONLY === 'observability') {
      console.log((await observabilityRows()).join('\n'));
      return;
    }
    if (ONLY === 'url-downloads') {
      const key = cli(dataDir, 'accounts', 'create', '--email', 'bench-url@example.test', '--plan', 'custom', '--quota', '100000000').key.value as string;
      console.log(['| measure | value |', '|---|---|', ...downloadRows(await downloadMemory(dataDir, key))].join('\n'));
      return;
    }
    // The burst limit is per key (custom plan: 300/min), so the load rotates over 64 keys rather
    // than switching the limit off: the bench measures the real path. An account has at most 25
    // active keys, so they belong to four custom accounts of 16 keys each.
    const keys: string[] = [];
    for (let a = 0; a < 4; a++) {
      const email = `bench-${a}@example.test`;
      keys.push(cli(dataDir, 'accounts', 'create', '--email', email, '--plan', 'custom', '--quota', '100000000').key.value as string);
      for (let i = 0; i < 15; i++) keys.push(cli(dataDir, 'keys', 'create', '--email', email).key.value);
    }
    const daemon = await startDaemon(dataDir);
    const workersUsed = Math.min(4, availableParallelism());
    const body = Buffer.from(JSON.stringify({ media: Buffer.from(bytes).toString('base64') }));
    // One prebuilt request per key, cycled through: building a 2.5 MB request per call cost the
    // load generator, on the same two cores, a third more CPU.
    const requests: LoadRequest[] = keys.map((key) => ({
      method: 'POST',
      path: '/v1/detect',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    }));

    // The engine in-process is measured just before and just after the daemon's run, with the
    // daemon idle: this machine drifts by up to a third over minutes, and the ratio compares the two.
    const serialBefore = await inProcessSerial();
    const warm = await load(daemon.url, requests, { amount: 200 });
    if (warm.failed) throw new Error(`warm-up got ${warm.failed} failed answers`);
    const before = { daemon: cpuSplit(daemon.pid), bench: process.cpuUsage() };
    const result = await load(daemon.url, requests, { seconds: duration });
    const benchCpu = process.cpuUsage(before.bench);
    const after = cpuSplit(daemon.pid);
    const perRequest = {
      daemonMain: (after.main - before.daemon.main) / result.answered,
      daemonOthers: (after.others - before.daemon.others) / result.answered,
      loadGenerator: (benchCpu.user + benchCpu.system) / 1000 / result.answered,
    };
    const serialAfter = await inProcessSerial();
    const serial = (serialBefore + serialAfter) / 2;
    const rssAfterDetect = rssMb(daemon.pid);
    await daemon.stop();

    // RSS while 8 clients upload 25 MB each, three rounds, on a freshly started daemon (so the
    // figure is the uploads', not what the detect load left in the heap).
    const fresh = await startDaemon(dataDir);
    const rssIdle = rssMb(fresh.pid);
    const big = new Uint8Array(25 * MB);
    big.set(bytes.subarray(0, Math.min(bytes.length, big.length)));
    let peak = rssIdle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(fresh.pid));
    }, 20);
    let uploaded = 0;
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const r = await fetch(`${fresh.url}/v1/uploads`, {
            method: 'POST',
            headers: { authorization: `Bearer ${keys[i]}`, 'content-type': 'application/octet-stream' },
            body: big,
          });
          await r.arrayBuffer();
          if (r.status === 201) uploaded++;
        }),
      );
    }
    clearInterval(sampler);
    await fresh.stop();
    const downloads = await downloadMemory(dataDir, keys[0]!);

    // The transport floor: the same load against a server that only receives the bodies.
    const bare = await startServer([join(ROOT, 'scripts', 'bare-http-server.mjs')]);
    await load(bare.url, requests, { amount: 200 });
    const bareBefore = { server: cpuMs(bare.pid), bench: process.cpuUsage() };
    const bareResult = await load(bare.url, requests, { seconds: duration });
    const bareBench = process.cpuUsage(bareBefore.bench);
    const transportMs = (cpuMs(bare.pid) - bareBefore.server + (bareBench.user + bareBench.system) / 1000) / bareResult.answered;
    await bare.stop();
    const decodeMs = decodeMsPerBody(body);

    const pooled = await inProcessWorkers(workersUsed);
    const rps = result.requestsPerSecond;
    const engineMs = 1000 / serial;
    // Receiving, decoding and checking one request, with nothing else, on both cores fully used.
    const ceiling = 2000 / (transportMs + decodeMs + engineMs);
    const generatorName = generator === 'autocannon' ? 'autocannon' : 'scripts/http-load.ts';
    const lines = [
      `file: ${file} (${(bytes.length / MB).toFixed(2)} MB, sent inline as base64)`,
      `machine: ${cpus()[0]?.model ?? 'unknown'}, ${availableParallelism()} cores, Node ${process.version}; daemon with ${workersUsed} detection workers; load from ${generatorName}`,
      `machine speed at the end: SHA-256 of the file in ${sha256Ms(bytes).toFixed(2)} ms, one thread`,
      '',
      '| measure | value |',
      '|---|---|',
      `| daemon, ${connections} connections, ${duration} s: requests/s | ${rps.toFixed(1)} |`,
      `| daemon latency p50 / p99 | ${result.p50.toFixed(0)} ms / ${result.p99.toFixed(0)} ms |`,
      `| daemon answers: 2xx / failed | ${result.ok} / ${result.failed} |`,
      `| engine in-process, main thread, one at a time: files/s (before / after the daemon's run) | ${serial.toFixed(1)} (${serialBefore.toFixed(1)} / ${serialAfter.toFixed(1)}) |`,
      `| engine in-process, ${workersUsed} worker threads, ${Math.max(workersUsed, Math.min(connections, 16))} in flight: files/s | ${pooled.toFixed(1)} |`,
      `| daemon / in-process (main thread) | ${((rps / serial) * 100).toFixed(0)} % |`,
      `| daemon / in-process (same worker count) | ${((rps / pooled) * 100).toFixed(0)} % |`,
      `| daemon CPU per request: main thread / all other threads | ${perRequest.daemonMain.toFixed(2)} ms / ${perRequest.daemonOthers.toFixed(2)} ms |`,
      `| load generator CPU per request (same machine) | ${perRequest.loadGenerator.toFixed(2)} ms |`,
      `| engine CPU per file in-process (1 / files/s, main thread) | ${engineMs.toFixed(2)} ms |`,
      `| transport floor: bare node:http server, same load: requests/s | ${bareResult.requestsPerSecond.toFixed(1)} |`,
      `| transport floor: CPU per request, server and load generator together | ${transportMs.toFixed(2)} ms |`,
      `| finding and decoding the base64 \`media\` of one body (in-process) | ${decodeMs.toFixed(2)} ms |`,
      `| ceiling: 2 cores / (transport + decode + engine), no other work at all | ${ceiling.toFixed(0)} requests/s = ${((ceiling / serial) * 100).toFixed(0)} % of in-process |`,
      `| daemon RSS right after the detect load | ${rssAfterDetect.toFixed(0)} MB |`,
      `| daemon RSS idle (fresh start) | ${rssIdle.toFixed(0)} MB |`,
      `| daemon peak RSS, 8 clients uploading 25 MB at once (x3, ${uploaded}/24 accepted) | ${peak.toFixed(0)} MB |`,
      ...downloadRows(downloads),
    ];
    console.log(lines.join('\n'));
    console.log(['', ...(await observabilityRows())].join('\n'));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
