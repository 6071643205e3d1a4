// Issue 27: what metrics and request logs cost the daemon per request, beside both off. Four
// daemon apps (scripts/bench-observed-daemon.ts): both off, metrics only, logs only, both on.
// Each round sends every app the same N inline detects of one file (4 connections, 127.0.0.1)
// and takes the CPU time its whole process (every thread) used for them, from /proc; rounds
// alternate the order of the apps, so a drift of this machine's speed falls on all four alike.
// The figure per app is the median over rounds. The apps' detection runs on their main thread
// (see bench-observed-daemon.ts); the cost of metrics and logs is the same with workers.
// Each app's stderr, where the request log goes as `provenance daemon start` writes it, is a file
// in its data dir: synchronous writes, as to a file or a pipe to journald (Node writes stderr
// synchronously to both on Linux).
// Run by `npm run bench:daemon` (BENCH_DAEMON_ONLY=observability runs this part alone).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningUrl, median } from './bench-kit.js';
import { processCpuMs } from './proc-stats.js';
import { runLoad, type LoadRequest } from './http-load.js';

interface App {
  name: string;
  url: string;
  pid: number;
  dir: string;
  requests: LoadRequest[];
  token: string;
  cpuMsPerRequest: number[];
  stop(): Promise<void>;
}

const CONFIGS = [
  { name: 'metrics off, logs off', args: ['no-metrics', 'no-logs'] },
  { name: 'metrics on, logs off', args: ['metrics', 'no-logs'] },
  { name: 'metrics off, logs on', args: ['no-metrics', 'logs'] },
  { name: 'metrics on, logs on', args: ['metrics', 'logs'] },
] as const;

async function startApp(config: (typeof CONFIGS)[number], body: Buffer): Promise<App> {
  const dir = mkdtempSync(join(tmpdir(), 'prov-bench-observe-'));
  const stderr = openSync(join(dir, 'stderr.log'), 'w');
  const child = spawn(process.execPath, ['scripts/run-ts.mjs', 'scripts/bench-observed-daemon.ts', dir, ...config.args], { stdio: ['ignore', 'pipe', stderr] });
  closeSync(stderr);
  const url = await listeningUrl(child).catch((err: Error) => {
    throw new Error(`${config.name}: ${err.message}\n${readFileSync(join(dir, 'stderr.log'), 'utf8').slice(-2000)}`);
  });
  const { keys, token } = JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8')) as { keys: string[]; token: string };
  return {
    name: config.name,
    url,
    pid: child.pid!,
    dir,
    token,
    requests: keys.map((key) => ({ method: 'POST', path: '/v1/detect', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body })),
    cpuMsPerRequest: [],
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** The table for one file; per app (the order of CONFIGS) its median CPU per request and what it adds to both off, in ms. */
export interface ObservabilityCost {
  rows: string[];
  msPerRequest: number[];
  addedMs: number[];
}

export async function observabilityCost(bytes: Uint8Array, options: { label: string; requests: number; rounds: number; warmup: number }): Promise<ObservabilityCost> {
  const body = Buffer.from(JSON.stringify({ media: Buffer.from(bytes).toString('base64') }));
  const apps: App[] = [];
  try {
    for (const config of CONFIGS) apps.push(await startApp(config, body));
    for (const app of apps) {
      const warm = await runLoad({ url: app.url, connections: 4, requests: app.requests, amount: options.warmup });
      if (warm.statuses[200] !== options.warmup) throw new Error(`${app.name}: warm-up answers ${JSON.stringify(warm.statuses)}`);
    }
    for (let round = 0; round < options.rounds; round++) {
      const order = apps.map((_, i) => apps[(i + round) % apps.length]!);
      for (const app of order) {
        const before = processCpuMs(app.pid);
        const result = await runLoad({ url: app.url, connections: 4, requests: app.requests, amount: options.requests });
        const used = processCpuMs(app.pid) - before;
        if (result.statuses[200] !== options.requests) throw new Error(`${app.name}: answers ${JSON.stringify(result.statuses)}`);
        app.cpuMsPerRequest.push(used / result.answered);
      }
    }
    // The metrics counted every request: the apps with metrics say so on their own /metrics.
    const sent = options.warmup + options.rounds * options.requests;
    for (const app of apps.filter((a) => a.name.startsWith('metrics on'))) {
      const text = await (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${app.token}` } })).text();
      const counted = Number(/^provenance_http_requests_total\{method="POST",route="\/v1\/detect",status="200"\} (\d+)$/m.exec(text)?.[1]);
      if (counted !== sent) throw new Error(`${app.name}: /metrics counted ${counted} detects, ${sent} were sent`);
    }
  } finally {
    await Promise.all(apps.map((app) => app.stop()));
  }
  // Each app against both off in the same round (rounds rotate the order, so neighbours in
  // time): the median of those paired differences is steadier than a difference of medians.
  const base = apps[0]!.cpuMsPerRequest;
  const rows = [
    `| daemon CPU per inline detect of ${options.label} (${bytes.length.toLocaleString('en-US')} B; ${options.rounds} rounds of ${options.requests}, alternating) | ms per request, median (rounds) | vs both off, median of the rounds' differences |`,
    '|---|---|---|',
  ];
  const added: number[] = [];
  for (const app of apps) {
    const ms = median(app.cpuMsPerRequest);
    const diff = median(app.cpuMsPerRequest.map((x, round) => x - base[round]!));
    added.push(app === apps[0] ? 0 : diff);
    const delta = app === apps[0] ? '' : `${diff >= 0 ? '+' : ''}${(diff * 1000).toFixed(0)} µs (${((diff / median(base)) * 100).toFixed(1)} %)`;
    rows.push(`| ${app.name} | ${ms.toFixed(3)} (${app.cpuMsPerRequest.map((x) => x.toFixed(3)).join(', ')}) | ${delta} |`);
  }
  return { rows, msPerRequest: apps.map((app) => median(app.cpuMsPerRequest)), addedMs: added };
}
