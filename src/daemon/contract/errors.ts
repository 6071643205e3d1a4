// One error class for every refusal the daemon makes, so the error handler can turn each into
// the CONTRACT body and status without knowing which module threw it.
import type { ErrorBody, ErrorType } from './api-types.js';

const STATUS: Record<ErrorType, number> = {
  invalid_request: 400,
  authentication_error: 401,
  not_found: 404,
  media_too_large: 413,
  unsupported_content_type: 415,
  download_failed: 422,
  quota_exceeded: 429,
  rate_limited: 429,
  upload_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
  server_busy: 503,
  storage_full: 503,
};

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly param?: string,
    /** Seconds for Retry-After (429s, and 503 server_busy and storage_full). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.statusCode = STATUS[type];
  }

  body(): ErrorBody {
    return { error: { type: this.type, message: this.message, ...(this.param ? { param: this.param } : {}) } };
  }
}

export const invalid = (message: string, param?: string) => new ApiError('invalid_request', message, param);

/** The 500 body's message: a defect, never its details (also what test mode forces). */
export const INTERNAL_ERROR_MESSAGE = 'The daemon failed on this request; this is a defect. The log has the details.';
