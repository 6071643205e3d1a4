import type { ErrorInfo } from '../types.js';

/** An input that could not be read; reported on its own line while the run goes on. */
export class InputError extends Error {
  constructor(
    readonly type: 'not_found' | 'permission_denied' | 'directory_loop' | 'file_too_large' | 'read_error',
    message: string,
  ) {
    super(message);
  }

  toInfo(): ErrorInfo {
    return { type: this.type, message: this.message };
  }
}

/** Maps a filesystem error to the per-input error a user can act on. */
export function inputErrorFrom(err: unknown, source: string): InputError {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new InputError('not_found', `${source}: no such file or folder.`);
    case 'EACCES':
    case 'EPERM':
      return new InputError('permission_denied', `${source}: permission denied.`);
    case 'ELOOP':
      return new InputError('directory_loop', `${source}: too many levels of symbolic links.`);
    case 'ERR_FS_FILE_TOO_LARGE':
      return new InputError('file_too_large', `${source}: the file is too large to check.`);
    default:
      if (err instanceof InputError) return err;
      return new InputError('read_error', `${source}: ${(err as Error)?.message ?? String(err)}`);
  }
}
