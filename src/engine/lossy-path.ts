// The file a command-line argument meant when its name's bytes are not valid UTF-8 (see
// byte-paths.ts). Apart from byte-paths.ts because it lists folders: byte-paths.ts is imported by
// the library's entry (through input-error.ts), which must not load node:fs/promises on import
// (test/library-import.test.ts), and a chunk shared by the entry and the engine keeps every
// function of a module it holds (scripts/build.mjs).
import { readdir } from 'node:fs/promises';
import { sep } from 'node:path';
import { joinBytes, utf8Name, type FsPath } from './byte-paths.js';

export type LossyMatch = { kind: 'found'; path: Buffer } | { kind: 'ambiguous'; paths: Buffer[] } | { kind: 'none' };

/**
 * The file a command-line argument meant, when the argument holds U+FFFD: Node decodes argv as
 * UTF-8 and puts U+FFFD where the bytes were not valid, so the bytes typed are gone. Each part
 * of the path holding U+FFFD is matched against the names its folder lists (read as bytes):
 * the names whose decoding gives that part. One match is the file; several are ambiguous.
 */
export async function resolveLossyPath(arg: string): Promise<LossyMatch> {
  const parts = arg.split(sep);
  let candidates: FsPath[] = [''];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const next: FsPath[] = [];
    for (const prefix of candidates) {
      if (!part.includes('\uFFFD')) {
        next.push(i === 0 ? part : typeof prefix === 'string' ? prefix + sep + part : joinBytes(prefix, Buffer.from(part, 'utf8')));
        continue;
      }
      const folder: FsPath = i === 0 ? '.' : prefix === '' ? sep : prefix;
      let names: Buffer[];
      try {
        names = await readdir(folder, { encoding: 'buffer' });
      } catch {
        continue;
      }
      for (const name of names) {
        if (utf8Name(name) !== undefined || name.toString('utf8') !== part) continue;
        next.push(i === 0 ? name : joinBytes(prefix === '' ? sep : prefix, name));
      }
    }
    candidates = next;
    if (!candidates.length) return { kind: 'none' };
  }
  const paths = candidates.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c));
  return paths.length === 1 ? { kind: 'found', path: paths[0]! } : { kind: 'ambiguous', paths };
}
