// How a file's bytes go to POST /v1/detect: the one decision that both the library's
// ProvenanceClient.detect and the CLI's remote mode (commands/remote-checker.ts) make, here once
// so the two cannot drift apart. The contract's limits (src/types.ts): up to 4 MB as multipart,
// larger through POST /v1/uploads (free) and then by upload id, nothing above 25 MB.
import { INLINE_MAX_BYTES, REMOTE_MAX_BYTES } from '../types.js';
import type { ApiClient, ApiDetectionResult, RequestOptions } from './api.js';
import { MediaTooLargeError } from './errors.js';

/** More bytes than the API takes (25 MB): such a file is never sent. */
export function exceedsApiLimit(bytes: number): boolean {
  return bytes > REMOTE_MAX_BYTES;
}

/** Throws the MediaTooLargeError the API would answer (413), instead of sending up to 25 MB for nothing. */
export function refuseOverLimit(bytes: Uint8Array): void {
  if (exceedsApiLimit(bytes.byteLength)) {
    throw new MediaTooLargeError(413, 'media_too_large', `The file is ${bytes.byteLength} bytes; the API takes files up to 25 MB (26,214,400 bytes).`, 'file');
  }
}

/**
 * A file's bytes checked by the API the cheapest way: up to 4 MB as multipart, larger (up to
 * 25 MB) through POST /v1/uploads and then by upload id. One call of the quota either way.
 *
 * @throws MediaTooLargeError above 25 MB, before anything is sent.
 */
export async function detectFileBytes(
  api: ApiClient,
  file: { bytes: Uint8Array; name: string },
  checks?: readonly string[],
  options: RequestOptions = {},
): Promise<ApiDetectionResult> {
  const { bytes, name } = file;
  refuseOverLimit(bytes);
  if (bytes.byteLength <= INLINE_MAX_BYTES) return api.detectFile(bytes, name, checks, options);
  const upload = await api.createUpload(bytes, options);
  return api.detectUpload(upload.id, checks, options);
}
