// The request log (`provenance daemon requests`, the dashboard's "Recent requests"): the last
// 1,000 /v1 requests, in memory only. Never bodies, never keys: a key appears as its 8-character
// prefix, as in `daemon keys list`.
export const REQUEST_LOG_SIZE = 1000;

export interface RequestLogEntry {
  /** Increasing number, for `--follow` ("entries after N"). */
  seq: number;
  /** When the request arrived, on the daemon's clock (ISO 8601). */
  time: string;
  method: string;
  /** Path without the query string. */
  path: string;
  status: number;
  /** The error body's type, for 4xx/5xx answers. */
  error_type: string | null;
  key_prefix: string | null;
  /** The account's e-mail address. */
  account: string | null;
  /** X-Quota-Used of the response, when it had one. */
  quota_used: number | null;
  duration_ms: number;
  /** Equal to the response's Request-Id header. */
  request_id: string;
  /** The Provenance-Test-Response value that forced this answer, if any. */
  forced: string | null;
}

export interface RequestQuery {
  /** Only entries with seq > after. */
  after?: number;
  /** Only this account's (e-mail, compared lower-case). */
  account?: string;
  /** At most this many, the newest. */
  limit?: number;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private seq = 0;

  constructor(private readonly size = REQUEST_LOG_SIZE) {}

  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full = { seq: ++this.seq, ...entry };
    this.entries.push(full);
    // Trimmed in batches: one splice per ~10 % growth instead of a shift per request.
    if (this.entries.length > this.size + Math.ceil(this.size / 10)) this.entries.splice(0, this.entries.length - this.size);
    return full;
  }

  /** Oldest first. */
  list(query: RequestQuery = {}): RequestLogEntry[] {
    const account = query.account?.trim().toLowerCase();
    let out = this.entries.slice(-this.size).filter((e) => (query.after === undefined || e.seq > query.after) && (!account || e.account === account));
    if (query.limit !== undefined && out.length > query.limit) out = out.slice(out.length - query.limit);
    return out;
  }

  /** The latest entry's time, if any (the test clock may not go back before it). */
  latestTime(): string | undefined {
    return this.entries.at(-1)?.time;
  }

  clear(): void {
    this.entries = [];
  }
}
