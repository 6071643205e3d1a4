// Paths whose bytes are not valid UTF-8 (`bad\xffname.png`). Node's strings cannot hold such a
// name (decoding puts U+FFFD in place of the odd bytes, and that string names no file), so these
// paths are kept as bytes (a Buffer, which every fs call takes) and shown in an escaped form.
import { sep } from 'node:path';

/** A path as the file system has it: a string, or its bytes when they are not valid UTF-8. */
export type FsPath = string | Buffer;

/** Number of bytes of the UTF-8 sequence starting at `at`, or 0 when it is not a valid one. */
function utf8SequenceAt(b: Uint8Array, at: number): number {
  const lead = b[at]!;
  if (lead < 0x80) return 1;
  // Second-byte ranges (Unicode table 3-7): no overlong forms, no surrogates, nothing past U+10FFFF.
  let n: number, lo = 0x80, hi = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) n = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    if (lead === 0xe0) lo = 0xa0;
    else if (lead === 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    if (lead === 0xf0) lo = 0x90;
    else if (lead === 0xf4) hi = 0x8f;
  } else return 0;
  if (at + n > b.length) return 0;
  const second = b[at + 1]!;
  if (second < lo || second > hi) return 0;
  for (let i = 2; i < n; i++) if ((b[at + i]! & 0xc0) !== 0x80) return 0;
  return n;
}

/**
 * The escaped form of a path's bytes, used as its `source` and in every message: valid UTF-8
 * as it is, each byte that is not part of a valid UTF-8 sequence as `\xHH` (two lowercase hex
 * digits), and, so that the form can be read back, each backslash as `\\`. Only paths that are
 * not valid UTF-8 are written this way; every other path is shown exactly as it is.
 */
export function escapePath(bytes: Uint8Array): string {
  let out = '';
  let run = 0; // start of the current stretch of valid UTF-8
  const flush = (end: number) => {
    if (end > run) out += Buffer.from(bytes.buffer, bytes.byteOffset + run, end - run).toString('utf8').replace(/\\/g, '\\\\');
  };
  for (let i = 0; i < bytes.length; ) {
    const n = utf8SequenceAt(bytes, i);
    if (n) {
      i += n;
      continue;
    }
    flush(i);
    out += `\\x${bytes[i]!.toString(16).padStart(2, '0')}`;
    run = ++i;
  }
  flush(bytes.length);
  return out;
}

/** How a path is shown: a string as it is, bytes escaped (escapePath). */
export function displayPath(path: FsPath | Uint8Array): string {
  return typeof path === 'string' ? path : escapePath(path);
}

/** `name` as a string when its bytes are valid UTF-8 (the string names the same file), else undefined. */
export function utf8Name(name: Buffer): string | undefined {
  const text = name.toString('utf8');
  // Decoding puts U+FFFD only where bytes are not valid UTF-8, or where the name holds U+FFFD itself.
  if (!text.includes('\uFFFD') || Buffer.from(text, 'utf8').equals(name)) return text;
  return undefined;
}

/** `folder` + separator + `name`, as bytes. */
export function joinBytes(folder: FsPath, name: Buffer): Buffer {
  const head = typeof folder === 'string' ? Buffer.from(folder, 'utf8') : folder;
  const needsSep = head.length > 0 && head[head.length - 1] !== sep.charCodeAt(0);
  return Buffer.concat(needsSep ? [head, Buffer.from(sep), name] : [head, name]);
}
