// `--files-from FILE|-`: the inputs to check, one per line (or NUL-separated with -0), read as a
// stream so a list of millions of paths never sits in memory at once.
import { createReadStream } from 'node:fs';
import { utf8Name, type FsPath } from './byte-paths.js';

/** Entries as strings; an entry that is not valid UTF-8 as its bytes, which name the file (byte-paths.ts). */
export async function* readFileList(stream: NodeJS.ReadableStream, nulSeparated: boolean): AsyncGenerator<FsPath> {
  const separator = nulSeparated ? 0 : 0x0a;
  let rest = Buffer.alloc(0);
  for await (const chunk of stream) {
    let buf = Buffer.concat([rest, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
    let at: number;
    while ((at = buf.indexOf(separator)) !== -1) {
      const entry = clean(buf.subarray(0, at), nulSeparated);
      if (entry) yield entry;
      buf = buf.subarray(at + 1);
    }
    rest = Buffer.from(buf);
  }
  const last = clean(rest, nulSeparated);
  if (last) yield last;
}

// Newline lists come from editors and Windows tools too: drop a trailing CR. NUL lists (find
// -print0) may hold any byte, so their entries are taken exactly.
function clean(bytes: Buffer, nulSeparated: boolean): FsPath {
  const entry = !nulSeparated && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
  return utf8Name(entry) ?? Buffer.from(entry);
}

export function openFileList(path: string, stdin: NodeJS.ReadableStream): NodeJS.ReadableStream {
  return path === '-' ? stdin : createReadStream(path);
}
