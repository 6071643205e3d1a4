// Body limits derived from the contract's file limits (SPEC 8.3, CONTRACT "Sizes", in src/types.ts).
import { INLINE_MAX_BYTES, MB, REMOTE_MAX_BYTES } from '../../types.js';

export { INLINE_MAX_BYTES, MB, REMOTE_MAX_BYTES };

/** Room for the non-file parts of a body: JSON keys and `checks`, multipart boundaries and fields. */
const ENVELOPE = 64 * 1024;

/**
 * Largest JSON body POST /v1/detect reads: 4 MB as base64 (4/3), plus 3 % for line breaks some
 * encoders insert, plus the envelope. A larger body cannot hold a file within the limit, so it
 * is refused from its Content-Length or while streaming, never buffered whole.
 */
export const DETECT_JSON_MAX_BODY = Math.ceil(((INLINE_MAX_BYTES * 4) / 3) * 1.03) + ENVELOPE;
export const DETECT_MULTIPART_MAX_BODY = INLINE_MAX_BYTES + ENVELOPE;
export const UPLOAD_RAW_MAX_BODY = REMOTE_MAX_BYTES;
export const UPLOAD_MULTIPART_MAX_BODY = REMOTE_MAX_BYTES + ENVELOPE;
/** Admin and other small JSON bodies. */
export const SMALL_BODY = 64 * 1024;

export const DOWNLOAD_TIMEOUT_MS = 15_000;
/**
 * Slow clients: a request's headers must arrive whole within 10 s, and the whole request
 * (headers and body) within 120 s, or the connection is answered 408 and closed. 120 s carries
 * the largest body (a 25 MB upload) at about 210 KB/s; a client that sends a byte a second
 * holds a connection for at most that long, never for ever.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 120_000;
export const MAX_REDIRECTS = 5;
export const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Upload storage per account (CONTRACT "Keys, accounts, uploads"): at most this many live
 * uploads and this many bytes of them; `daemon start --max-uploads-per-account` and
 * `--max-upload-bytes-per-account` change them. Past either, 429 upload_limit_exceeded.
 */
export const UPLOADS_PER_ACCOUNT = 100;
export const UPLOAD_BYTES_PER_ACCOUNT = 1024 * MB;
/** Free space an upload must leave on the data dir's disk (`--storage-floor`); under it, 503 storage_full. */
export const STORAGE_FLOOR_BYTES = 1024 * MB;
/** How often expired uploads are deleted (and their disk space freed). */
export const UPLOAD_SWEEP_MS = 10 * 60 * 1000;
/** Retry-After of storage_full: the sweep's interval, the soonest the daemon frees disk by itself. */
export const STORAGE_FULL_RETRY_SECONDS = UPLOAD_SWEEP_MS / 1000;

export function tooLargeMessage(limitBytes: number, source: string): string {
  return `The file is larger than the ${limitBytes / MB} MB limit for ${source} (1 MB = 1,048,576 bytes).`;
}
