// A multipart/form-data body for POST /v1/detect (CONTRACT: file part `file`, optional field
// `checks` as a comma-separated list), built in memory: the file is at most 4 MB, and a body of
// known length goes out with a Content-Length instead of chunked.
import { basename } from 'node:path';

/** A file name that is safe inside a quoted header parameter: ASCII, no quotes or separators. */
export function headerSafeName(name: string): string {
  const base = basename(name.replace(/\\/g, '/')) || 'file';
  return base.replace(/[^\x20-\x7e]|["\\;]/g, '_').slice(0, 200) || 'file';
}

export function multipartBody(fields: Record<string, string>, file: { bytes: Uint8Array; name: string }): { body: Buffer; contentType: string } {
  // Web Crypto's random (global): node:crypto at import time would slow the library's import.
  const boundary = `----provenance${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${headerSafeName(file.name)}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
