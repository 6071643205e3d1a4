import { readlinkSync } from 'node:fs';
import type { ErrorInfo } from '../types.js';
import { displayPath, utf8Name } from './byte-paths.js';

/** The most a check reads: Node's limit for one file read into memory (2 GiB). */
export const MAX_FILE_BYTES_TEXT = '2 GiB';

/** The code of local-file.ts's NotRegularFileError (its `kind`: "a named pipe", ...). */
export const NOT_REGULAR_FILE = 'ERR_NOT_REGULAR_FILE';

/** An input that could not be read; reported on its own line while the run goes on. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly type: 'not_found' | 'permission_denied' | 'directory_loop' | 'symlink_loop' | 'file_too_large' | 'read_error',
    message: string,
  ) {
    super(message);
  }

  toInfo(): ErrorInfo {
    return { type: this.type, message: this.message };
  }
}

function linkTarget(path: string | Buffer): string | Buffer | undefined {
  try {
    const target = readlinkSync(path, { encoding: 'buffer' });
    return utf8Name(target) ?? target;
  } catch {
    return undefined;
  }
}

/** A path of a few hundred characters at most, for a message or a readable report's heading: its start and its end. */
export function shortened(path: string): string {
  return path.length <= 200 ? path : `${path.slice(0, 120)}…${path.slice(-60)}`;
}

/**
 * Maps a filesystem error to the per-input error a user can act on. `path` is the path itself
 * when `source` only shows it (a path kept as bytes, shown escaped: byte-paths.ts).
 */
export function inputErrorFrom(err: unknown, source: string, path: string | Buffer = source): InputError {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT': {
      // A symlink whose target is gone: say so, and where it points, not "no such file".
      const target = linkTarget(path);
      if (target !== undefined) return new InputError('not_found', `${source}: a broken symbolic link (it points to ${displayPath(target)}, which does not exist).`);
      // A command-line name that was not valid UTF-8 reaches us with U+FFFD where its odd bytes
      // were; inputs.ts looks for the file it meant, and comes here when no name fits.
      if (typeof path === 'string' && path.includes('\uFFFD')) {
        return new InputError('not_found', `${source}: no such file or folder (each \uFFFD stands for bytes that are not valid UTF-8, and no name in its folder fits).`);
      }
      return new InputError('not_found', `${source}: no such file or folder.`);
    }
    case 'ENOTDIR':
      return new InputError('not_found', `${source}: no such file or folder.`);
    case 'EACCES':
    case 'EPERM':
      return new InputError('permission_denied', `${source}: permission denied.`);
    case 'ELOOP':
      // Links that point at each other (a -> b -> a), or a chain longer than the system follows.
      return new InputError('symlink_loop', `${source}: symbolic links that lead back to themselves (or too many in a row); no file at the end.`);
    case 'ERR_FS_FILE_TOO_LARGE':
      return new InputError('file_too_large', `${source}: the file is ${MAX_FILE_BYTES_TEXT} or larger; a check reads files smaller than ${MAX_FILE_BYTES_TEXT}.`);
    case NOT_REGULAR_FILE:
      // A symlink to /dev/zero, a FIFO, a device or a folder where a file was named or listed.
      return new InputError('read_error', `${source}: not a regular file (${(err as { kind?: string }).kind ?? 'not a file'}); only regular files are read.`);
    case 'ENAMETOOLONG':
      return new InputError('read_error', `${shortened(source)}: the path is longer than the system allows (${Buffer.byteLength(source)} bytes).`);
    default:
      if (err instanceof InputError) return err;
      return new InputError('read_error', `${source}: ${(err as Error)?.message ?? String(err)}`);
  }
}
