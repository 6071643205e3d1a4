// A lean HTTP/1.1 load generator for `npm run bench:daemon`. The daemon and its load share this
// machine's two cores, so every millisecond the generator spends is one the daemon does not get:
// autocannon cost 2.9 to 12 ms of CPU per 2.5 MB request (docs/PERFORMANCE.md), more than the
// engine's own 1.6 ms per file. This one writes each prebuilt request (head and body in one Buffer, built once) with a
// single socket.write on keep-alive connections and reads only the status line and
// Content-Length of each answer, so nearly all of its cost is the kernel's copy.
// It talks only to the URL it is given (the bench starts the daemon on 127.0.0.1).
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface LoadOptions {
  /** http://127.0.0.1:PORT */
  url: string;
  connections: number;
  /** Cycled through in order, one per call, across all connections. */
  requests: LoadRequest[];
  durationMs?: number;
  /** Stop after this many answers instead of after durationMs. */
  amount?: number;
}

export interface LoadResult {
  durationMs: number;
  answered: number;
  statuses: Record<number, number>;
  /** Connection errors and answers that were not well-formed HTTP/1.1 with a Content-Length. */
  errors: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One request's bytes as they go on the wire. */
export function encodeRequest(host: string, request: LoadRequest): Buffer {
  const head = [`${request.method} ${request.path} HTTP/1.1`, `host: ${host}`, `content-length: ${request.body.length}`];
  for (const [name, value] of Object.entries(request.headers)) head.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), request.body]);
}

/**
 * Reads HTTP/1.1 answers off a byte stream: status and Content-Length from each head, then
 * skips the body. Exported for its unit test.
 */
export class ResponseReader {
  private pending: Buffer = Buffer.alloc(0);
  private bodyLeft = -1;
  private status = 0;

  /** Feeds bytes; returns the status of every answer they complete, in order. */
  push(chunk: Buffer): number[] {
    const done: number[] = [];
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      if (this.bodyLeft >= 0) {
        if (data.length < this.bodyLeft) {
          this.bodyLeft -= data.length;
          data = Buffer.alloc(0);
          break;
        }
        data = data.subarray(this.bodyLeft);
        this.bodyLeft = -1;
        done.push(this.status);
        continue;
      }
      const end = data.indexOf(HEAD_END);
      if (end < 0) break;
      const head = data.toString('latin1', 0, end);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!status || !length) throw new Error(`not an HTTP/1.1 answer with a Content-Length: ${JSON.stringify(head.slice(0, 200))}`);
      this.status = Number(status[1]);
      this.bodyLeft = Number(length[1]);
      data = data.subarray(end + HEAD_END.length);
    }
    this.pending = data.length ? Buffer.from(data) : Buffer.alloc(0);
    return done;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  const wire = options.requests.map((r) => encodeRequest(target.host, r));
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let sent = 0;
  let answered = 0;
  const start = performance.now();
  const deadline = options.amount === undefined ? start + (options.durationMs ?? 10_000) : Infinity;
  const budget = options.amount ?? Infinity;

  const oneConnection = () =>
    new Promise<void>((resolve) => {
      const socket: Socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true });
      const reader = new ResponseReader();
      let sentAt = 0;
      let waiting = false;
      const next = () => {
        if (performance.now() >= deadline || sent >= budget) {
          socket.end();
          return;
        }
        sent++;
        waiting = true;
        sentAt = performance.now();
        socket.write(wire[sent % wire.length]!);
      };
      socket.on('connect', next);
      socket.on('data', (chunk: Buffer) => {
        let statusesDone: number[];
        try {
          statusesDone = reader.push(chunk);
        } catch {
          errors++;
          socket.destroy();
          return;
        }
        for (const status of statusesDone) {
          waiting = false;
          latencies.push(performance.now() - sentAt);
          statuses[status] = (statuses[status] ?? 0) + 1;
          answered++;
          next();
        }
      });
      socket.on('error', () => {
        errors++;
      });
      socket.on('close', () => {
        // A connection closed with a request unanswered lost that request.
        if (waiting) errors++;
        resolve();
      });
    });

  await Promise.all(Array.from({ length: options.connections }, oneConnection));
  const durationMs = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return {
    durationMs,
    answered,
    statuses,
    errors,
    requestsPerSecond: (answered / durationMs) * 1000,
    latencyMs: {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? 0,
    },
  };
}
