// `npm run bench:daemon`: the daemon's throughput and latency for a camera JPEG sent inline, at
// 16 connections (autocannon, 127.0.0.1 only), beside the engine's in-process throughput on the
// same file; then the daemon's RSS while 8 clients upload 25 MB files at once.
// Prints the figures and a Markdown table for docs/PERFORMANCE.md ("Daemon"). Needs a build
// (dist/), which `npm run bench:daemon` runs first.
//
// Options: --file PATH (default: the shared corpus's iPhone JPEG, else a small synthetic one),
//          --duration SECONDS (default 10), --connections N (default 16).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { detect } from '../src/engine/detect.js';

const ROOT = resolve('.');
const BIN = join(ROOT, 'bin', 'provenance.js');
const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const duration = Number(opt('duration', '10'));
const connections = Number(opt('connections', '16'));
const corpusJpeg = join(ROOT, '..', 'shared', 'corpus', 'files', 'iphone6_hdr_NO.jpg');
const file = opt('file', existsSync(corpusJpeg) ? corpusJpeg : '');
if (!file) throw new Error('no camera JPEG: pass --file PATH');
const bytes = new Uint8Array(readFileSync(file));
const MB = 1_048_576;

function cli(dataDir: string, ...rest: string[]): any {
  return JSON.parse(execFileSync(process.execPath, [BIN, 'daemon', ...rest, '--data-dir', dataDir, '--json'], { encoding: 'utf8' }));
}

async function startDaemon(dataDir: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'daemon', 'start', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const url = await new Promise<string>((res, rej) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) res(m[1]!);
    });
    child.on('exit', (code) => rej(new Error(`daemon exited ${code}`)));
  });
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

/** CPU time (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'prov-bench-'));
  try {
    // The burst limit is per key (custom plan: 300/min), so the load rotates over many keys of
    // one custom account rather than switching the limit off: the bench measures the real path.
    const first = cli(dataDir, 'accounts', 'create', '--email', 'bench@example.test', '--plan', 'custom', '--quota', '100000000');
    const keys = [first.key.value as string];
    for (let i = 0; i < 63; i++) keys.push(cli(dataDir, 'keys', 'create', '--email', 'bench@example.test').key.value);
    const daemon = await startDaemon(dataDir);
    const workersUsed = Math.min(4, availableParallelism());
    const body = JSON.stringify({ media: Buffer.from(bytes).toString('base64') });

    const warm = await autocannon({ url: `${daemon.url}/v1/detect`, connections, amount: 64, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[0]}` }, body });
    if (warm.non2xx) throw new Error(`warm-up got ${warm.non2xx} non-2xx answers`);
    // One prebuilt request per key, which autocannon cycles through: rebuilding a 2.5 MB request
    // per call (setupRequest) cost the load generator, on the same two cores, a third more CPU.
    const cpuBefore = { daemon: cpuMs(daemon.pid), bench: process.cpuUsage() };
    const result = await autocannon({
      url: `${daemon.url}/v1/detect`,
      connections,
      duration,
      requests: keys.map((key) => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body })),
    });
    const benchCpu = process.cpuUsage(cpuBefore.bench);
    const perRequest = {
      daemon: (cpuMs(daemon.pid) - cpuBefore.daemon) / result.requests.total,
      loadGenerator: (benchCpu.user + benchCpu.system) / 1000 / result.requests.total,
    };
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

    const serial = await inProcessSerial();
    const pooled = await inProcessWorkers(workersUsed);
    const rps = result.requests.average;
    const lines = [
      `file: ${file} (${(bytes.length / MB).toFixed(2)} MB, sent inline as base64)`,
      `machine: ${cpus()[0]?.model ?? 'unknown'}, ${availableParallelism()} cores, Node ${process.version}; daemon with ${workersUsed} detection workers`,
      '',
      '| measure | value |',
      '|---|---|',
      `| daemon, ${connections} connections, ${duration} s: requests/s | ${rps.toFixed(1)} |`,
      `| daemon latency p50 / p99 | ${result.latency.p50} ms / ${result.latency.p99} ms |`,
      `| daemon answers: 2xx / non-2xx / errors | ${result['2xx']} / ${result.non2xx} / ${result.errors} |`,
      `| engine in-process, main thread, one at a time: files/s | ${serial.toFixed(1)} |`,
      `| engine in-process, ${workersUsed} worker threads, ${Math.max(workersUsed, Math.min(connections, 16))} in flight: files/s | ${pooled.toFixed(1)} |`,
      `| daemon CPU per request (main thread and workers) | ${perRequest.daemon.toFixed(2)} ms |`,
      `| load generator CPU per request (autocannon, same machine) | ${perRequest.loadGenerator.toFixed(2)} ms |`,
      `| engine CPU per file in-process (1 / files/s, main thread) | ${(1000 / serial).toFixed(2)} ms |`,
      `| daemon / in-process (main thread) | ${((rps / serial) * 100).toFixed(0)} % |`,
      `| daemon / in-process (same worker count) | ${((rps / pooled) * 100).toFixed(0)} % |`,
      `| daemon RSS right after the detect load | ${rssAfterDetect.toFixed(0)} MB |`,
      `| daemon RSS idle (fresh start) | ${rssIdle.toFixed(0)} MB |`,
      `| daemon peak RSS, 8 clients uploading 25 MB at once (x3, ${uploaded}/24 accepted) | ${peak.toFixed(0)} MB |`,
    ];
    console.log(lines.join('\n'));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
