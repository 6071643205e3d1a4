// Reads a JSON document a command was given (fixtures, an exported state).
import { readFileSync } from 'node:fs';
import type { CommandIO } from './io.js';

/** Why a file could not be read, in the words the rest of the CLI uses. */
function readProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file.';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied.';
  if (code === 'EISDIR') return 'it is a folder, not a file.';
  return code ?? (err as Error).message;
}

/** Reads a JSON file for seed/import/--fixtures; a one-line error (and undefined) when it cannot. */
export function readJsonFile(file: string, what: string, io: CommandIO): { value: unknown } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    io.stderr.write(`provenance: cannot read the ${what} ${file}: ${readProblem(err)}\n`);
    return undefined;
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    io.stderr.write(`provenance: the ${what} ${file} is not JSON: ${(err as Error).message}\n`);
    return undefined;
  }
}
