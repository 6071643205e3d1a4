// The library's client for any /v1 API (a hosted one, or `provenance daemon`): the same ApiClient
// the CLI's remote mode uses (errors, Retry-After, quota headers), sent over `fetch` so that
// importing the package loads no HTTP stack until the first request.
import { basename } from 'node:path';
import type { DetectionResult, DetectorId, DetectorInfo, UploadRecord } from '../types.js';
import { ApiClient, type ResponseMeta } from './api.js';
import { FetchTransport, type FetchLike } from './fetch-transport.js';
import { detectFileBytes, refuseOverLimit } from './send-file.js';

export interface ProvenanceClientOptions {
  /** The API key (`prv_...`). GET /v1/detectors works without one; detect and uploads need it. */
  apiKey?: string;
  /** The API's base URL, without /v1: `https://api.example.com`, `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** The fetch to send with; the global one by default. */
  fetch?: FetchLike;
  /**
   * Retries: waits for a 429 rate_limited and for a self-hosted daemon's 503 server_busy (each
   * after its Retry-After; a busy daemon gave the call back), and resends after a network failure
   * where that is safe (a detect request only when it provably never left, so it cannot cost a
   * second call). Default 3; 0 turns retrying off. quota_exceeded is never retried.
   */
  maxRetries?: number;
  /** The longest Retry-After honoured, in seconds (default 60); a longer one is cut to it. */
  maxRetryWaitSeconds?: number;
  /** Requests in flight at once from this client (default 4); more wait their turn. */
  maxConcurrency?: number;
  /** Told before each rate-limit wait (once per wait, however many requests it holds back). */
  onRateLimited?: (seconds: number) => void;
}

/** A file's content: its path, its bytes, or a readable stream of them. */
export type FileInput = string | URL | Uint8Array | AsyncIterable<Uint8Array | string>;

/** Exactly one media source, as POST /v1/detect takes them. */
export type DetectSource =
  | { file: FileInput; bytes?: never; url?: never; upload?: never }
  | { bytes: Uint8Array; file?: never; url?: never; upload?: never }
  | { url: string; file?: never; bytes?: never; upload?: never }
  | { upload: string | UploadRecord; file?: never; bytes?: never; url?: never };

export type DetectRequest = DetectSource & {
  /** Detector ids to run; all of them when omitted. */
  checks?: readonly DetectorId[];
  /** The file name sent with `file` or `bytes` (only informative); the path's own name by default. */
  name?: string;
  signal?: AbortSignal;
};

export interface RequestOptions {
  signal?: AbortSignal;
}

/** A detection result from the API: the /v1 body, plus `quota` and `requestId` from its headers. */
export type RemoteDetectionResult = DetectionResult & ResponseMeta;

/** The bytes of a FileInput, and the name to send with them. */
async function load(file: FileInput, name: string | undefined, signal?: AbortSignal): Promise<{ bytes: Uint8Array; name: string }> {
  if (typeof file === 'string' || file instanceof URL) {
    // Loaded here, not on import: fs/promises brings streams and readline (docs/PERFORMANCE.md).
    const { readFileForUpload } = await import('./file-input.js');
    const bytes = await readFileForUpload(file, signal);
    return { bytes, name: name ?? basename(typeof file === 'string' ? file : file.pathname) };
  }
  if (file instanceof Uint8Array) return { bytes: file, name: name ?? 'file' };
  if (file && typeof (file as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const { readStreamForUpload } = await import('./file-input.js');
    return { bytes: await readStreamForUpload(file as AsyncIterable<Uint8Array | string>), name: name ?? 'file' };
  }
  throw new TypeError('file must be a path, a URL, a Uint8Array or a readable stream.');
}

/**
 * A client for a /v1 detection API.
 *
 * ```ts
 * const client = new ProvenanceClient({ apiKey: process.env.PROVENANCE_API_KEY, baseUrl: 'http://127.0.0.1:8787' });
 * const result = await client.detect({ file: 'photo.jpg' });
 * console.log(result.matches, result.quota?.remaining);
 * ```
 *
 * Failures are typed: an answer of the API is an {@link ApiError} subclass, one per CONTRACT
 * error type (InvalidRequestError, AuthenticationError, QuotaExceededError, ...); no answer at
 * all is a {@link NetworkError}; an answer that is not /v1 JSON is a {@link ProtocolError}.
 */
export class ProvenanceClient {
  readonly baseUrl: string;
  /** POST /v1/uploads: files of up to 25 MB, referred to later by id. Free. */
  readonly uploads: { create(file: FileInput, options?: RequestOptions): Promise<UploadRecord> };
  private readonly api: ApiClient;

  constructor(options: ProvenanceClientOptions) {
    if (!options || typeof options.baseUrl !== 'string' || !/^https?:\/\/[^\s/]+/i.test(options.baseUrl)) {
      throw new TypeError('ProvenanceClient: baseUrl must be an http(s) URL, e.g. http://127.0.0.1:8787 (the port `provenance daemon start` listens on).');
    }
    if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || !/^[\x21-\x7e]+$/.test(options.apiKey))) {
      throw new TypeError('ProvenanceClient: apiKey must be a non-empty string without spaces.');
    }
    const retries = options.maxRetries ?? 3;
    if (!Number.isInteger(retries) || retries < 0) throw new TypeError('ProvenanceClient: maxRetries must be a whole number >= 0.');
    const transportOptions = {
      baseUrl: options.baseUrl,
      fetch: options.fetch,
      maxInFlight: options.maxConcurrency ?? 4,
      networkRetries: retries,
      userAgent: 'provenance-library/0.1.0',
    };
    this.api = new ApiClient({
      baseUrl: options.baseUrl,
      key: options.apiKey,
      transport: new FetchTransport(transportOptions),
      maxRateLimitWaits: retries,
      maxServerBusyWaits: retries,
      maxWaitSeconds: options.maxRetryWaitSeconds ?? 60,
      onRateLimited: options.onRateLimited ? (seconds) => options.onRateLimited!(seconds) : undefined,
      missingKeyMessage: 'No API key: pass apiKey to new ProvenanceClient().',
    });
    this.baseUrl = this.api.baseUrl;
    this.uploads = {
      create: async (file, requestOptions = {}) => {
        const { bytes } = await load(file, undefined, requestOptions.signal);
        refuseOverLimit(bytes);
        return this.api.createUpload(bytes, requestOptions);
      },
    };
  }

  /**
   * POST /v1/detect: one call of the quota. `file` and `bytes` go as multipart up to 4 MB and
   * through an upload (free) above that, up to 25 MB; `url` is fetched by the API (counted even
   * when the download fails); `upload` names an earlier upload.
   */
  async detect(request: DetectRequest): Promise<RemoteDetectionResult> {
    const sources = (['file', 'bytes', 'url', 'upload'] as const).filter((k) => request?.[k] !== undefined);
    if (sources.length !== 1) throw new TypeError('detect takes exactly one of file, bytes, url or upload.');
    const { checks, signal } = request;
    if (request.url !== undefined) return this.api.detectUrl(request.url, checks, { signal });
    if (request.upload !== undefined) {
      return this.api.detectUpload(typeof request.upload === 'string' ? request.upload : request.upload.id, checks, { signal });
    }
    const { bytes, name } = request.bytes !== undefined ? { bytes: request.bytes, name: request.name ?? 'file' } : await load(request.file!, request.name, signal);
    // The CLI's remote mode sends a file's bytes through this same function.
    return detectFileBytes(this.api, { bytes, name }, checks, { signal });
  }

  /** GET /v1/detectors: the API's catalogue (public: no key needed, free). */
  async detectors(options: RequestOptions = {}): Promise<DetectorInfo[]> {
    return (await this.api.listDetectors(options)).detectors;
  }
}
