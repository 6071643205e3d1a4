// Reads a JSON document a command was given (fixtures, an exported state).
import { readFileSync } from 'node:fs';
import type { CommandIO } from './io.js';

/** Reads a JSON file for seed/import/--fixtures; a one-line error (and undefined) when it cannot. */
export function readJsonFile(file: string, what: string, io: CommandIO): { value: unknown } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    io.stderr.write(`provenance: cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return undefined;
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    io.stderr.write(`provenance: the ${what} ${file} is not JSON: ${(err as Error).message}\n`);
    return undefined;
  }
}
