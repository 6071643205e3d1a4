// The daemon's memory under many `url` downloads at once (issue 26): 120 clients ask a freshly
// started daemon to fetch a 25 MB file each, all at the same moment, from a server on 127.0.0.1
// (the daemon runs with --allow-private-urls). The daemon's RSS is sampled every 20 ms: its
// peak, and what it is back to 60 s after the last answer. Part of `npm run bench:daemon`;
// BENCH_DAEMON_ONLY=url-downloads runs this row alone.
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMb } from './proc-stats.js';

const MB = 1_048_576;

export interface DownloadMemory {
  clients: number;
  fileMb: number;
  idleBeforeMb: number;
  peakMb: number;
  /** RSS right after the last answer, and after `idleSeconds` more with no requests. */
  afterLoadMb: number;
  afterIdleMb: number;
  idleSeconds: number;
  statuses: Record<string, number>;
  seconds: number;
}

interface Daemon {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * @param start  starts the daemon (with --allow-private-urls) in a subprocess
 * @param key    an API key whose quota and burst limit allow `clients` calls at once
 * @param file   the first bytes of the served file (a camera JPEG); the rest is zeros
 */
export async function urlDownloadMemory(start: () => Promise<Daemon>, key: string, file: Uint8Array, clients = 120, idleSeconds = 60): Promise<DownloadMemory> {
  const big = Buffer.alloc(25 * MB);
  big.set(file.subarray(0, Math.min(file.length, big.length)));
  const source = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(big.length) });
    res.end(big);
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  const fileUrl = `http://127.0.0.1:${(source.address() as { port: number }).port}/photo.jpg`;
  const daemon = await start();
  try {
    // Let the fresh daemon settle (workers loaded) before its idle figure is taken.
    await sleep(2000);
    const idleBeforeMb = rssMb(daemon.pid);
    let peakMb = idleBeforeMb;
    const sampler = setInterval(() => {
      peakMb = Math.max(peakMb, rssMb(daemon.pid));
    }, 20);
    const statuses: Record<string, number> = {};
    const began = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        let status: string;
        try {
          const r = await fetch(`${daemon.url}/v1/detect`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url: fileUrl }),
          });
          const body = (await r.json()) as { error?: { type: string } };
          status = body.error ? `${r.status} ${body.error.type}` : String(r.status);
        } catch (err) {
          status = `no answer (${(err as Error).message})`;
        }
        statuses[status] = (statuses[status] ?? 0) + 1;
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    clearInterval(sampler);
    const afterLoadMb = rssMb(daemon.pid);
    await sleep(idleSeconds * 1000);
    const afterIdleMb = rssMb(daemon.pid);
    return { clients, fileMb: big.length / MB, idleBeforeMb, peakMb, afterLoadMb, afterIdleMb, idleSeconds, statuses, seconds };
  } finally {
    await daemon.stop();
    source.closeAllConnections();
    await new Promise((r) => source.close(r));
  }
}

/** The rows for the bench's table. */
export function downloadRows(m: DownloadMemory): string[] {
  const answers = Object.entries(m.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${n} x ${status}`)
    .join(', ');
  return [
    `| daemon RSS idle before the downloads (fresh start) | ${m.idleBeforeMb.toFixed(0)} MB |`,
    `| daemon peak RSS, ${m.clients} clients asking for a ${m.fileMb} MB url download at once | ${m.peakMb.toFixed(0)} MB (answers in ${m.seconds.toFixed(1)} s: ${answers}) |`,
    `| daemon RSS right after the last answer / ${m.idleSeconds} s later, idle | ${m.afterLoadMb.toFixed(0)} MB / ${m.afterIdleMb.toFixed(0)} MB |`,
  ];
}
