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
  ) {
    super(message);
  }

  info(): ErrorInfo {
    return { type: this.type, message: this.message, ...(this.param ? { param: this.param } : {}) };
  }
}

/** 401: the key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends ApiError {}

/** 429 quota_exceeded: the account's monthly quota is used up; nothing more is sent. */
export class QuotaExceededError extends ApiError {}

/** 429 rate_limited after the client gave up waiting (it waits Retry-After and retries first). */
export class RateLimitedError extends ApiError {}

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
