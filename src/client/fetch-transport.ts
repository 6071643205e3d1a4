// The /v1 transport over a `fetch` function (the global one, or the caller's: a proxy, a test
// double, an edge runtime's). Same rules as the undici Transport it extends: a bound on requests
// in flight, network retries only where a retry is safe; it only sends differently.
import { toNetworkError, Transport, type RawResponse, type SendOptions, type TransportOptions } from './transport.js';

/** The part of the WHATWG fetch API the client uses. */
export type FetchLike = (input: string, init: {
  method: string;
  headers: Record<string, string>;
  /** An ArrayBuffer (not a Uint8Array) so that the global fetch's own type accepts this shape in any TypeScript version. */
  body?: ArrayBuffer | string;
  signal?: AbortSignal;
}) => Promise<{
  status: number;
  headers: { forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
}>;

/** The bytes as an ArrayBuffer of their own: the one under them when they fill it, else a copy. */
function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) return buffer;
  return Uint8Array.prototype.slice.call(bytes).buffer as ArrayBuffer;
}

export interface FetchTransportOptions extends TransportOptions {
  fetch?: FetchLike;
}

export class FetchTransport extends Transport {
  private readonly fetchFn: FetchLike;

  constructor(options: FetchTransportOptions) {
    super(options);
    const fn = options.fetch ?? (globalThis.fetch as unknown as FetchLike | undefined);
    if (typeof fn !== 'function') throw new TypeError('ProvenanceClient: no fetch function: pass `fetch` (Node 20 and later have one built in).');
    this.fetchFn = fn;
  }

  protected override async once(options: SendOptions): Promise<RawResponse> {
    try {
      const response = await this.fetchFn(`${this.baseUrl}${options.path}`, {
        method: options.method,
        headers: { ...this.baseHeaders(), ...options.headers },
        body: typeof options.body === 'string' || options.body === undefined ? options.body : arrayBufferOf(options.body),
        signal: options.signal,
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      return { status: response.status, headers, text: await response.text() };
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw toNetworkError(err, this.baseUrl);
    }
  }

  override async close(): Promise<void> {
    // fetch keeps its own connections; nothing of ours stays open.
  }
}
