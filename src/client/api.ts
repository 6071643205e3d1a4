// The /v1 API client: one method per endpoint, typed errors (errors.ts), and the SPEC 8.4
// client rules: on 429 rate_limited wait Retry-After and send again (never in a tight loop, and
// every request holds back while one waits); on 429 quota_exceeded stop (QuotaExceededError).
// A self-hosted daemon may also answer 503 server_busy (its memory budget for media stayed full;
// the call was given back): that request waits its Retry-After and is sent again, a few times.
import type { DetectionResult, DetectorsBody } from '../types.js';
import { ApiError, apiErrorClass, AuthenticationError, ProtocolError, RateLimitedError, ServerBusyError } from './errors.js';
import { multipartBody } from './multipart.js';
import { quotaFromHeaders, retryAfterSeconds, type QuotaInfo } from './quota.js';
import { realSleep, Transport, type RawResponse, type SendOptions, type Sleep, type TransportOptions } from './transport.js';
import { detectionResultProblem, detectorsBodyProblem, uploadRecordProblem } from './v1-shapes.js';

// The contract's file limits (src/types.ts): a file up to INLINE_MAX_BYTES is sent as multipart,
// a larger one through POST /v1/uploads, up to REMOTE_MAX_BYTES (send-file.ts makes that choice).
import { INLINE_MAX_BYTES, MB, REMOTE_MAX_BYTES } from '../types.js';

export { INLINE_MAX_BYTES, MB, REMOTE_MAX_BYTES as UPLOAD_MAX_BYTES };

export interface ApiClientOptions extends TransportOptions {
  /** The API key; required by every endpoint but GET /v1/detectors. */
  key?: string;
  /** Told before the client waits out a 429 rate_limited (once per wait, not per request). */
  onRateLimited?: (seconds: number, error: ApiError) => void;
  /** Waits for rate_limited per request before giving up with RateLimitedError (default 30). */
  maxRateLimitWaits?: number;
  /** Longest single wait honoured (default 300 s); a longer Retry-After is cut to it. */
  maxWaitSeconds?: number;
  /** Times one request is sent again after 503 server_busy before ServerBusyError (default 3). */
  maxServerBusyWaits?: number;
  /** How requests go out; an undici Transport over `baseUrl` unless given (the library's fetch). */
  transport?: Transport;
  /** The message of the AuthenticationError thrown, before sending, when there is no key. */
  missingKeyMessage?: string;
}

/** Per request: a signal that aborts it (and any rate-limit wait before it). */
export interface RequestOptions {
  signal?: AbortSignal;
}

/** What each detect answer carried besides the result, as read from its headers. */
export interface ResponseMeta {
  /** The quota headers (X-Quota-*, RateLimit-*), when the answer had them. */
  readonly quota?: QuotaInfo;
  /** The answer's `request-id` (or `x-request-id`) header, when it had one. */
  readonly requestId?: string;
}

/** A /v1 detection result plus what its answer's headers said. `quota` and `requestId` are
 * non-enumerable: JSON.stringify(result) is exactly the body the API sent. */
export type ApiDetectionResult = DetectionResult & ResponseMeta;

/** The request id header of an answer: `request-id` (this daemon's), else `x-request-id` (common elsewhere). */
export function requestIdOf(headers: RawResponse['headers']): string | undefined {
  const v = headers['request-id'] ?? headers['x-request-id'];
  return Array.isArray(v) ? v[0] : v;
}

function withMeta(result: DetectionResult, response: RawResponse): ApiDetectionResult {
  Object.defineProperties(result, {
    quota: { value: quotaFromHeaders(response.headers), enumerable: false },
    requestId: { value: requestIdOf(response.headers), enumerable: false },
  });
  return result;
}

/** POST /v1/uploads answer (CONTRACT): the shared /v1 shape. */
import type { UploadRecord } from '../types.js';

export type { UploadRecord };

export interface KeyCheck {
  valid: boolean;
  /** Quota headers of the answer (a valid key's). */
  quota?: QuotaInfo;
  /** The API's message when the key was refused. */
  message?: string;
  /** The answer was 429 rate_limited: the key passed authentication, but its burst window is full. */
  rateLimited?: boolean;
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function parseJson(response: RawResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    return undefined;
  }
}

export class ApiClient {
  readonly baseUrl: string;
  /** Quota headers of the latest answer that carried them. */
  lastQuota?: QuotaInfo;
  private readonly transport: Transport;
  private readonly key?: string;
  private readonly sleep: Sleep;
  private readonly onRateLimited?: ApiClientOptions['onRateLimited'];
  private readonly maxWaits: number;
  private readonly maxWaitSeconds: number;
  private readonly maxBusyWaits: number;
  /** While a rate-limit wait runs, every request waits for it before it is sent. */
  private pause?: Promise<void>;

  private readonly missingKeyMessage: string;

  constructor(options: ApiClientOptions) {
    this.transport = options.transport ?? new Transport(options);
    this.baseUrl = this.transport.baseUrl;
    this.key = options.key;
    this.missingKeyMessage = options.missingKeyMessage ?? 'No API key: run `provenance login`, or set PROVENANCE_API_KEY.';
    this.sleep = options.sleep ?? realSleep;
    this.onRateLimited = options.onRateLimited;
    this.maxWaits = options.maxRateLimitWaits ?? 30;
    this.maxWaitSeconds = options.maxWaitSeconds ?? 300;
    this.maxBusyWaits = options.maxServerBusyWaits ?? 3;
  }

  /**
   * Checks the key without spending a call (SPEC 8.1 rule 2): an authenticated POST /v1/detect
   * with an empty JSON object fails validation (400) after authentication (401 if the key is
   * bad) and before the quota is touched. The answer carries the quota headers. The request does
   * enter the key's burst window.
   */
  async checkKey(): Promise<KeyCheck> {
    const response = await this.transport.send({
      method: 'POST',
      path: '/v1/detect',
      headers: { ...this.auth(), 'content-type': 'application/json' },
      body: '{}',
      retry: 'any', // fails validation, so it can never cost a call
    });
    const quota = this.noteQuota(response);
    const error = this.errorOf(response);
    if (response.status === 400) return { valid: true, quota };
    if (response.status === 401) return { valid: false, message: error.message };
    if (response.status === 429) return { valid: true, quota, rateLimited: error.type === 'rate_limited' };
    if (response.status >= 200 && response.status < 300) {
      throw new ProtocolError(`${this.baseUrl} accepted a detect request without media; it does not behave like a /v1 API.`);
    }
    throw this.unexpected(response, 'POST /v1/detect');
  }

  /** POST /v1/detect with the file as multipart (files up to 4 MB; send-file.ts picks the way for any size). */
  async detectFile(bytes: Uint8Array, name: string, checks?: readonly string[], options: RequestOptions = {}): Promise<ApiDetectionResult> {
    if (bytes.byteLength > INLINE_MAX_BYTES) throw new RangeError('detectFile takes files up to 4 MB; upload larger ones first.');
    const { body, contentType } = multipartBody(checks ? { checks: checks.join(',') } : {}, { bytes, name });
    return this.detect({ body, headers: { 'content-type': contentType } }, options);
  }

  /** POST /v1/detect for a file uploaded earlier (POST /v1/uploads). */
  async detectUpload(uploadId: string, checks?: readonly string[], options: RequestOptions = {}): Promise<ApiDetectionResult> {
    return this.detectJson({ upload: uploadId, ...(checks ? { checks } : {}) }, options);
  }

  /** POST /v1/detect for a public http(s) URL the API downloads (counts even if the download fails). */
  async detectUrl(url: string, checks?: readonly string[], options: RequestOptions = {}): Promise<ApiDetectionResult> {
    return this.detectJson({ url, ...(checks ? { checks } : {}) }, options);
  }

  /** POST /v1/uploads: the file as raw bytes (free; up to 25 MB). */
  async createUpload(bytes: Uint8Array, options: RequestOptions = {}): Promise<UploadRecord> {
    const response = await this.send({
      method: 'POST',
      path: '/v1/uploads',
      headers: { ...this.auth(), 'content-type': 'application/octet-stream' },
      body: bytes,
      retry: 'any', // free: a repeat costs nothing (at worst a second upload that expires)
      signal: options.signal,
    });
    if (response.status !== 201 && response.status !== 200) throw this.failure(response);
    const record = parseJson(response);
    const problem = uploadRecordProblem(record);
    if (problem) throw new ProtocolError(`${this.baseUrl} answered POST /v1/uploads with something other than an upload record (${problem}).`);
    return record as UploadRecord;
  }

  /** GET /v1/detectors: public, free. */
  async listDetectors(options: RequestOptions = {}): Promise<DetectorsBody> {
    const response = await this.send({ method: 'GET', path: '/v1/detectors', retry: 'any', signal: options.signal });
    if (response.status !== 200) throw this.failure(response);
    const body = parseJson(response);
    const problem = detectorsBodyProblem(body);
    if (problem) throw new ProtocolError(`${this.baseUrl} answered GET /v1/detectors with something other than a detectors list (${problem}).`);
    return body as DetectorsBody;
  }

  /** Nothing more is sent: every request not yet on the wire fails with `reason`. */
  stopSending(reason: Error): void {
    this.transport.stopSending(reason);
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  // -------------------------------------------------------------------------------------------

  private auth(): Record<string, string> {
    if (!this.key) throw new AuthenticationError(401, 'authentication_error', this.missingKeyMessage);
    return { authorization: `Bearer ${this.key}` };
  }

  private detectJson(body: object, options: RequestOptions): Promise<ApiDetectionResult> {
    return this.detect({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }, options);
  }

  private async detect(request: { body: Uint8Array | string; headers: Record<string, string> }, options: RequestOptions): Promise<ApiDetectionResult> {
    const response = await this.send({
      method: 'POST',
      path: '/v1/detect',
      headers: { ...this.auth(), ...request.headers },
      body: request.body,
      // Costs a call: sent again only when it provably never left (transport.ts).
      retry: 'unsent',
      signal: options.signal,
    });
    if (response.status !== 200) throw this.failure(response);
    // Checked whole against the /v1 shape before anything reads it (v1-shapes.ts): the terminal,
    // the HTML report, the cache and a library user all take its fields by their /v1 types.
    const result = parseJson(response);
    const problem = detectionResultProblem(result);
    if (problem) throw new ProtocolError(`${this.baseUrl} answered POST /v1/detect with something other than a /v1 detection result (${problem}).`);
    return withMeta(result as DetectionResult, response);
  }

  /**
   * Sends, waiting out 429 rate_limited and 503 server_busy as told; every other answer goes back
   * to the caller. A busy server holds back only the request it refused (others may find room),
   * and at most maxServerBusyWaits times: a daemon busy that long is better reported than waited for.
   */
  private async send(options: SendOptions): Promise<RawResponse> {
    let busyWaits = 0;
    let waits = 0;
    for (;;) {
      while (this.pause) await untilAborted(this.pause, options.signal);
      const response = await this.transport.send(options);
      this.noteQuota(response);
      if (response.status === 503 && busyWaits < this.maxBusyWaits) {
        const error = this.failure(response);
        if (error instanceof ServerBusyError) {
          busyWaits++;
          await untilAborted(this.sleep(Math.max(1, Math.min(error.retryAfter ?? 1, this.maxWaitSeconds)) * 1000), options.signal);
          continue;
        }
      }
      if (response.status !== 429) return response;
      const error = this.failure(response);
      if (!(error instanceof RateLimitedError) || waits++ >= this.maxWaits) throw error;
      if (!this.pause) {
        const seconds = Math.min(error.retryAfter ?? error.quota?.burst?.reset_seconds ?? 1, this.maxWaitSeconds);
        const wait = Math.max(1, seconds);
        this.onRateLimited?.(wait, error);
        this.pause = this.sleep(wait * 1000).finally(() => {
          this.pause = undefined;
        });
      }
    }
  }

  private noteQuota(response: RawResponse): QuotaInfo | undefined {
    const quota = quotaFromHeaders(response.headers);
    if (quota) this.lastQuota = quota;
    return quota;
  }

  private errorOf(response: RawResponse): { type: string; message: string; param?: string } {
    const body = parseJson(response) as { error?: { type?: unknown; message?: unknown; param?: unknown } } | undefined;
    const e = body?.error;
    if (e && typeof e.type === 'string' && typeof e.message === 'string') {
      return { type: e.type, message: e.message, ...(typeof e.param === 'string' ? { param: e.param } : {}) };
    }
    return { type: response.status === 429 ? 'rate_limited' : 'bad_response', message: `The API answered HTTP ${response.status} without a /v1 error body.` };
  }

  /** The typed error for a non-success answer. */
  private failure(response: RawResponse): ApiError {
    const { type, message, param } = this.errorOf(response);
    const quota = quotaFromHeaders(response.headers);
    const retryAfter = retryAfterSeconds(response.headers);
    const ErrorClass = apiErrorClass(response.status, type);
    return new ErrorClass(response.status, type, message, param, quota, retryAfter, requestIdOf(response.headers));
  }

  private unexpected(response: RawResponse, what: string): ProtocolError {
    return new ProtocolError(`${this.baseUrl} answered HTTP ${response.status} to ${what}; is that the base URL of a /v1 API (without /v1)?`);
  }
}
