// `provenance upload <file> [--json]`: POST /v1/uploads (free: no quota, no burst). Prints the
// upload record, whose id a detect request can name ({"upload": "upl_..."}) for 24 hours.
import { UPLOAD_MAX_BYTES } from '../client/api.js';
import { ApiError, NetworkError, ProtocolError } from '../client/errors.js';
import { openSession, SessionError, type RemoteDeps } from '../client/session.js';
import { inputErrorFrom } from '../engine/input-error.js';
import { readRegularFile } from '../engine/local-file.js';
import { formatBytes } from '../ui/text-report.js';
import { EXIT, type CommandIO } from './io.js';
import { printable } from '../ui/terminal-text.js';

export interface UploadOptions {
  file: string;
  json: boolean;
}

export async function runUpload(options: UploadOptions, io: CommandIO, deps: RemoteDeps = {}): Promise<number> {
  const fail = (message: string, code: number) => {
    io.stderr.write(`provenance: ${message}\n`);
    return code;
  };
  let bytes: Uint8Array;
  try {
    // Opened without blocking, refused unless a regular file, read at most to the limit (local-file.ts).
    bytes = await readRegularFile(options.file, { maxBytes: UPLOAD_MAX_BYTES + 1 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'ERR_FS_FILE_TOO_LARGE') return fail(`${options.file}: larger than the API's 25 MB upload limit (1 MB = 1,048,576 bytes).`, EXIT.unreadable);
    return fail(inputErrorFrom(err, options.file).message, EXIT.unreadable);
  }
  let session;
  try {
    session = await openSession(io.env, { deps, maxInFlight: 1 });
  } catch (err) {
    if (err instanceof SessionError) return fail(err.message, EXIT.usage);
    throw err;
  }
  if (session.warning) io.stderr.write(`provenance: warning: ${session.warning}\n`);
  try {
    const record = await session.client.createUpload(bytes);
    if (options.json) {
      io.stdout.write(`${JSON.stringify(record)}\n`);
    } else {
      io.stdout.write(
        // The record is the API's: every word of it reaches the terminal through printable().
        `Uploaded ${options.file} to ${session.apiUrl} as ${printable(record.id)}\n` +
          `  ${formatBytes(record.bytes)}, ${printable(record.type)}, sha256 ${printable(record.sha256)}\n` +
          `  usable by this account until ${printable(record.expires_at)}: POST /v1/detect {"upload": "${printable(record.id)}"}\n`,
      );
    }
    return EXIT.ok;
  } catch (err) {
    if (err instanceof ApiError || err instanceof NetworkError || err instanceof ProtocolError) {
      const type = err instanceof ApiError ? ` (${err.type})` : '';
      return fail(printable(`${err.message}${type}`), err instanceof ApiError && err.status === 401 ? EXIT.usage : EXIT.unreadable);
    }
    throw err;
  } finally {
    await session.client.close();
  }
}
