// Typed failures of the /v1 client. An ApiError is an answer from the API (CONTRACT error body);
// a NetworkError is no answer at all. Callers branch on the class, never on message text.
import type { ErrorInfo } from '../types.js';
import type { QuotaInfo } from './quota.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** CONTRACT error type, e.g. invalid_request, media_too_large, download_failed. */
    readonly type: string,
    message: string,
    readonly param?: string,
    /** Quota headers of the answer, when it carried them. */
    readonly quota?: QuotaInfo,
    /** Seconds from Retry-After (429 answers). */
    readonly retryAfter?: number,
    /** The answer's `request-id` (or `x-request-id`) header: quote it when asking the API's operator. */
    readonly requestId?: string,
  ) {
    super(message);
  }

  info(): ErrorInfo {
    return { type: this.type, message: this.message, ...(this.param ? { param: this.param } : {}) };
  }
}

// One class per CONTRACT error type, so callers branch with instanceof.

/** 400 invalid_request: the request itself is wrong (`param` names the field at fault). */
export class InvalidRequestError extends ApiError {}

/** 401 authentication_error: the key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends ApiError {}

/** 404 not_found: an unknown route, or an upload id that does not exist (any more) for this account. */
export class NotFoundError extends ApiError {}

/**
 * 413 media_too_large: the file is over its source's limit (4 MB inline, 25 MB by url or upload),
 * or, from a self-hosted daemon, its checks ran past the daemon's time limit per file (counted).
 */
export class MediaTooLargeError extends ApiError {}

/** 415 unsupported_content_type: a body the endpoint does not read. */
export class UnsupportedContentTypeError extends ApiError {}

/** 422 download_failed: the API could not fetch `url` (the call is counted). */
export class DownloadFailedError extends ApiError {}

/** 429 quota_exceeded: the account's monthly quota is used up; never retried. */
export class QuotaExceededError extends ApiError {}

/** 429 rate_limited after the client gave up waiting (it waits Retry-After and retries first). */
export class RateLimitedError extends ApiError {}

/**
 * 429 upload_limit_exceeded: the account keeps as many live uploads (or bytes of them) as it may;
 * `retryAfter` says when its oldest expires (hours, often), so it is not waited for.
 */
export class UploadLimitExceededError extends ApiError {}

/** 500 internal_error: a defect on the API's side. */
export class InternalServerError extends ApiError {}

/** 503 service_unavailable: the API cannot serve the request now. */
export class ServiceUnavailableError extends ApiError {}

/** 503 storage_full: the API's disk is too full to keep an upload; `retryAfter` says when to try again. */
export class StorageFullError extends ApiError {}

/**
 * 503 server_busy after the client gave up waiting: the API's memory budget for media stayed
 * full. Its call was given back, so the client waits Retry-After and sends again first.
 */
export class ServerBusyError extends ApiError {}

// `err.name` is the class's name (for logs and stack traces), fixed here rather than read from
// the constructor, which a bundler may rename.
for (const [name, cls] of Object.entries({
  ApiError,
  InvalidRequestError,
  AuthenticationError,
  NotFoundError,
  MediaTooLargeError,
  UnsupportedContentTypeError,
  DownloadFailedError,
  QuotaExceededError,
  RateLimitedError,
  UploadLimitExceededError,
  InternalServerError,
  ServiceUnavailableError,
  StorageFullError,
  ServerBusyError,
})) {
  Object.defineProperty(cls.prototype, 'name', { value: name, configurable: true, writable: true });
}

type ApiErrorClass = new (...args: ConstructorParameters<typeof ApiError>) => ApiError;

const BY_TYPE: Record<string, ApiErrorClass> = {
  invalid_request: InvalidRequestError,
  authentication_error: AuthenticationError,
  not_found: NotFoundError,
  media_too_large: MediaTooLargeError,
  unsupported_content_type: UnsupportedContentTypeError,
  download_failed: DownloadFailedError,
  quota_exceeded: QuotaExceededError,
  rate_limited: RateLimitedError,
  upload_limit_exceeded: UploadLimitExceededError,
  internal_error: InternalServerError,
  service_unavailable: ServiceUnavailableError,
  storage_full: StorageFullError,
  server_busy: ServerBusyError,
};

/**
 * The class for an error answer. A 401 is always an AuthenticationError and a 429
 * QuotaExceededError, UploadLimitExceededError or else RateLimitedError (the retry rules hang on
 * those: only the last is waited out); any other answer goes by its CONTRACT type, and one with
 * an unknown type (or no /v1 body) is a plain ApiError.
 */
export function apiErrorClass(status: number, type: string): ApiErrorClass {
  if (status === 401) return AuthenticationError;
  if (status === 429) return type === 'quota_exceeded' ? QuotaExceededError : type === 'upload_limit_exceeded' ? UploadLimitExceededError : RateLimitedError;
  return (Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type] : undefined) ?? ApiError;
}

export class NetworkError extends Error {
  constructor(
    message: string,
    /** The system or undici error code (ECONNREFUSED, UND_ERR_SOCKET, ...). */
    readonly code: string | undefined,
    /**
     * false when the request cannot have reached the server (the connection was never made):
     * only then may a request that costs an API call be sent again.
     */
    readonly maybeSent: boolean,
  ) {
    super(message);
  }

  info(): ErrorInfo {
    return { type: 'network_error', message: this.message };
  }
}

/** The server answered, but not as a /v1 API does (e.g. an HTML page, or a 200 without JSON). */
export class ProtocolError extends Error {
  info(): ErrorInfo {
    return { type: 'bad_response', message: this.message };
  }
}
