// HTTP for the /v1 client: one undici Agent with keep-alive, a bound on the requests in flight,
// and bounded retries with backoff for network failures, only where a retry is safe. undici is
// loaded on the first request, not on import: the library entry (src/index.ts) reaches this
// module through the client, and importing `provenance` must stay cheap (docs/PERFORMANCE.md).
// FetchTransport (fetch-transport.ts) keeps the same rules over a `fetch` function instead.
import type { Agent } from 'undici';
import { NetworkError } from './errors.js';

type Undici = { Agent: typeof Agent; request: typeof import('undici').request };

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * When a request that failed on the network may be sent again:
 * - 'unsent': only when the failure proves it never left (the connection was not made). For
 *   POST /v1/detect: the server may have counted a call for a request whose answer was lost, and
 *   sending it again could spend a second call for one file.
 * - 'any': a request that costs nothing (uploads, the detector list, the empty-body key check).
 */
export type RetryPolicy = 'unsent' | 'any';

export interface TransportOptions {
  baseUrl: string;
  /** Requests in flight at once, and sockets kept open (default 4). */
  maxInFlight?: number;
  /** Retries after a network failure (default 3), with backoff 0.5 s, 1 s, 2 s (+-20 %). */
  networkRetries?: number;
  sleep?: Sleep;
  userAgent?: string;
  /** Connection-phase timeout (default 10 s). */
  connectTimeoutMs?: number;
}

export interface SendOptions {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  retry: RetryPolicy;
  /** Aborts the request (and any backoff wait before it) with the signal's reason. */
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Codes that prove the request never reached the server: the connection was not made. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; errors?: unknown[]; cause?: unknown };
  if (typeof e?.code === 'string') return e.code;
  // Happy eyeballs (several addresses tried) fails with an AggregateError of connect errors.
  if (Array.isArray(e?.errors) && e.errors.length) return errorCode(e.errors[0]);
  if (e?.cause) return errorCode(e.cause);
  return undefined;
}

export function toNetworkError(err: unknown, baseUrl: string): NetworkError {
  const code = errorCode(err);
  const maybeSent = !code || !NOT_SENT.has(code);
  const what =
    code === 'ECONNREFUSED'
      ? 'the connection was refused (is the API running at that address?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name could not be resolved'
        : code === 'UND_ERR_CONNECT_TIMEOUT'
          ? 'the connection timed out'
          : maybeSent
            ? `the connection failed before an answer came (${code ?? (err as Error)?.message ?? 'unknown error'})`
            : `the connection could not be made (${code})`;
  return new NetworkError(`Cannot reach the API at ${baseUrl}: ${what}.`, code, maybeSent);
}

/** A counting semaphore: at most `size` holders at once, the rest wait in order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export class Transport {
  readonly baseUrl: string;
  private agent?: Agent;
  private undici?: Promise<Undici>;
  private readonly connections: number;
  private readonly connectTimeoutMs: number;
  private readonly slots: Slots;
  private readonly retries: number;
  private readonly sleep: Sleep;
  private readonly userAgent: string;
  /** Set by stopSending(): requests not yet sent fail with it instead. */
  private stopped?: Error;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const size = Math.max(1, options.maxInFlight ?? 4);
    this.slots = new Slots(size);
    this.retries = options.networkRetries ?? 3;
    this.sleep = options.sleep ?? realSleep;
    this.userAgent = options.userAgent ?? 'provenance-cli';
    this.connections = size;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  }

  /**
   * Sends nothing more: requests waiting for a slot, or for a retry, fail with `reason` (the
   * quota is used up, the key was refused, the API cannot be reached). Requests already on the
   * wire finish.
   */
  stopSending(reason: Error): void {
    this.stopped ??= reason;
  }

  /** Sends within a slot; a retry waits for its backoff holding the slot, so it queues nothing. */
  async send(options: SendOptions): Promise<RawResponse> {
    await this.slots.take();
    try {
      for (let attempt = 0; ; attempt++) {
        options.signal?.throwIfAborted();
        if (this.stopped) throw this.stopped;
        try {
          return await this.once(options);
        } catch (err) {
          if (!(err instanceof NetworkError)) throw err;
          const safe = options.retry === 'any' || !err.maybeSent;
          if (safe && attempt >= this.retries && !err.maybeSent) {
            // The API could not be reached even after the retries: this client tries no more
            // (the requests queued behind this one fail at once instead of retrying in turn).
            this.stopped ??= err;
          }
          if (!safe || attempt >= this.retries) throw err;
          const base = 500 * 2 ** attempt;
          await this.sleep(Math.round(base * (0.8 + Math.random() * 0.4)));
        }
      }
    } finally {
      this.slots.give();
    }
  }

  /** The headers every request carries, before its own. */
  protected baseHeaders(): Record<string, string> {
    return { 'user-agent': this.userAgent, accept: 'application/json' };
  }

  /** One request, no retries; a failure without an answer is a NetworkError. */
  protected async once(options: SendOptions): Promise<RawResponse> {
    const { Agent, request } = await (this.undici ??= import('undici'));
    // Keep-alive: the sockets stay open between the files of a run (undici's default); one
    // request per socket at a time (no pipelining: a POST must not queue behind another).
    this.agent ??= new Agent({
      connections: this.connections,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      connect: { timeout: this.connectTimeoutMs },
    });
    try {
      const response = await request(`${this.baseUrl}${options.path}`, {
        dispatcher: this.agent,
        method: options.method,
        headers: { ...this.baseHeaders(), ...options.headers },
        body: options.body,
        signal: options.signal,
      });
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw toNetworkError(err, this.baseUrl);
    }
  }

  /**
   * Closes the kept-alive sockets, so the process can end at once. Requests still in flight
   * (only after Ctrl-C: a run awaits its answers before closing) are aborted.
   */
  async close(): Promise<void> {
    await this.agent?.destroy();
  }
}
