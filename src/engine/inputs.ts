// Expands what the user named (files, folders, `-`) into the inputs to check, lazily and in a
// deterministic order: folders recursively, entries sorted by name, symlinks followed, and a
// link back to an enclosing folder reported as a loop instead of walked forever. `s3://` inputs
// are listed by s3-source.ts, which loads the AWS SDK only when one appears; an `https://` input
// is one URL, read by https-source.ts, which loads undici only then (`http://` is refused there).
import type { Dirent, Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { displayPath, joinBytes, utf8Name, type FsPath } from './byte-paths.js';
import { resolveLossyPath } from './lossy-path.js';
import { InputError, inputErrorFrom } from './input-error.js';
import type { PathFilter } from './path-filter.js';
import { readRegularFile } from './local-file.js';
import type { ReadRoom } from './read-budget.js';
import { httpsInput, isHttpsUrl, isPlainHttpUrl, openHttps, type HttpsConnection, type HttpsObjectRef } from './https-source.js';
import { expandS3, isS3Url, openS3, type S3Connection, type S3ObjectRef } from './s3-source.js';

/**
 * `path` is a string, or the path's bytes when they are not valid UTF-8 (byte-paths.ts); then
 * `source` is their escaped form (`bad\xffname.png`).
 */
export type InputItem =
  | { source: string; kind: 'file'; path: FsPath }
  | { source: string; kind: 'stdin' }
  /** An S3 object (`source` is its s3://bucket/key URL), read in this thread. */
  | { source: string; kind: 's3'; object: S3ObjectRef }
  /** One https:// URL (`source` is the URL with its secrets masked), read in this thread. */
  | { source: string; kind: 'https'; object: HttpsObjectRef }
  | { source: string; kind: 'error'; error: InputError };

export const STDIN = '-';

export interface ExpandOptions {
  /** --include / --exclude, applied to what folder walks find. */
  filter?: PathFilter;
  /** false: `-` is a file of that name, not standard input (the library's scan()). Default true. */
  stdin?: boolean;
  /** One S3 object's or https:// URL's whole read, at most (`--read-timeout`; default READ_DEADLINE_MS, read-deadline.ts). */
  readTimeoutMs?: number;
}

/** Inputs are strings, or bytes (a --files-from list's entry that is not valid UTF-8). */
export async function* expandInputs(inputs: AsyncIterable<FsPath> | Iterable<FsPath>, options: ExpandOptions = {}): AsyncGenerator<InputItem> {
  /** The S3 client, made for the first s3:// input and shared by the rest of the run. */
  let s3: Promise<S3Connection> | undefined;
  /** The connections (undici), opened for the first https:// input and shared by the rest. */
  let https: Promise<HttpsConnection> | undefined;
  for await (const given of inputs) {
    if (given === STDIN && options.stdin !== false) {
      yield { source: STDIN, kind: 'stdin' };
      continue;
    }
    if (isS3Url(given)) {
      yield* expandS3(given, await (s3 ??= openS3(process.env, options.readTimeoutMs)), options.filter);
      continue;
    }
    if (isHttpsUrl(given) || isPlainHttpUrl(given)) {
      yield await httpsInput(given, () => (https ??= openHttps({ deadlineMs: options.readTimeoutMs })));
      continue;
    }
    let input = given;
    let st: Stats;
    try {
      st = await stat(input);
    } catch (err) {
      const found = await lossyArgument(input, err);
      if (found instanceof InputError) {
        yield { source: displayPath(input), kind: 'error', error: found };
        continue;
      }
      if (!found) {
        yield { source: displayPath(input), kind: 'error', error: inputErrorFrom(err, displayPath(input), input) };
        continue;
      }
      [input, st] = found;
    }
    if (st.isDirectory()) yield* walkFolder(input, input, new Set([inode(st)]), options.filter);
    else yield fileItem(input, st);
  }
}

/**
 * A command-line argument naming a file whose name is not valid UTF-8 reaches us with U+FFFD in
 * place of the odd bytes (Node decodes argv as UTF-8), and names no file. The file it meant,
 * found by its folder's listing (lossy-path.ts resolveLossyPath), with its stat; an InputError
 * when several names fit; undefined when this is not such a case or nothing fits.
 */
async function lossyArgument(input: FsPath, err: unknown): Promise<[Buffer, Stats] | InputError | undefined> {
  if (typeof input !== 'string' || !input.includes('\uFFFD') || (err as NodeJS.ErrnoException)?.code !== 'ENOENT') return undefined;
  const match = await resolveLossyPath(input);
  if (match.kind === 'none') return undefined;
  if (match.kind === 'ambiguous') {
    // A handful named, so that a folder of thousands of such names gives one readable line.
    const names = match.paths.slice(0, 5).map(displayPath).join(', ') + (match.paths.length > 5 ? ` and ${match.paths.length - 5} more` : '');
    return new InputError(
      'read_error',
      `${input}: its name is not valid UTF-8 (each \uFFFD stands for bytes that are not), and ${match.paths.length} files fit it: ${names}; name their folder instead, or list the one meant with --files-from and -0.`,
    );
  }
  try {
    return [match.path, await stat(match.path)];
  } catch (e) {
    return inputErrorFrom(e, displayPath(match.path), match.path);
  }
}

function inode(st: Stats): string {
  return `${st.dev}:${st.ino}`;
}

function fileItem(path: FsPath, st: Stats): InputItem {
  const source = displayPath(path);
  if (st.isFile()) return { source, kind: 'file', path };
  return {
    source,
    kind: 'error',
    error: new InputError('read_error', `${source}: not a regular file or folder.`),
  };
}

/**
 * Path below the walked root, with `/` separators on every platform (for globs). A path kept as
 * bytes is matched by its decoding (U+FFFD for the odd bytes: `*.png` matches `bad\xffname.png`).
 */
function below(root: FsPath, path: FsPath): string {
  const text = (p: FsPath) => (typeof p === 'string' ? p : p.toString('utf8'));
  const rel = relative(text(root), text(path));
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/**
 * `join(folder, name)` for the entries of one folder, with the folder normalised once rather than
 * per entry (path.join normalises the whole path each time: 30 ms of the main thread's CPU in a
 * 1,100-file scan). A name from readdir holds no separator and is never `.` or `..`, so the
 * result is exactly join's (test/child-paths.test.ts holds it to join).
 */
export function childPathsOf(folder: string): (name: string) => string {
  // join keeps an ordinary last component as it is, so what it puts before one is the prefix.
  const prefix = join(folder, 'x').slice(0, -1);
  return (name) => prefix + name;
}

/** One entry of a folder: its path (bytes when its name is not valid UTF-8) and what readdir says it is. */
interface Entry {
  path: FsPath;
  dirent: Dirent | Dirent<Buffer>;
}

/**
 * The entries of `folder`, sorted by name. Read as strings; a name that is not valid UTF-8 comes
 * back with U+FFFD in it, and only then is the folder read again as bytes, so that such names
 * keep their bytes (and ordinary folders cost what they did).
 */
async function listFolder(folder: FsPath): Promise<Entry[]> {
  if (typeof folder === 'string') {
    const entries = await readdir(folder, { withFileTypes: true });
    if (!entries.some((e) => e.name.includes('\uFFFD'))) {
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const childPath = childPathsOf(folder);
      return entries.map((dirent) => ({ path: childPath(dirent.name), dirent }));
    }
  }
  const raw = await readdir(folder, { withFileTypes: true, encoding: 'buffer' });
  // Sorted as the string names are (by their decoding), the bytes deciding between names that decode alike.
  const named = raw.map((dirent) => ({ dirent, text: dirent.name.toString('utf8') }));
  named.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : Buffer.compare(a.dirent.name, b.dirent.name)));
  if (typeof folder !== 'string') return named.map(({ dirent }) => ({ path: joinBytes(folder, dirent.name), dirent }));
  const childPath = childPathsOf(folder);
  const prefix = Buffer.from(childPath(''), 'utf8');
  return named.map(({ dirent }) => {
    const name = utf8Name(dirent.name);
    return { path: name !== undefined ? childPath(name) : Buffer.concat([prefix, dirent.name]), dirent };
  });
}

async function* walkFolder(root: FsPath, folder: FsPath, ancestors: Set<string>, filter?: PathFilter): AsyncGenerator<InputItem> {
  let entries: Entry[];
  try {
    entries = await listFolder(folder);
  } catch (err) {
    yield { source: displayPath(folder), kind: 'error', error: inputErrorFrom(err, displayPath(folder), folder) };
    return;
  }
  for (const { path, dirent: entry } of entries) {
    // A regular file needs no stat: readdir already says what it is, and a stat per file was
    // 60 ms of the main thread's CPU in a 1,100-file scan. Folders are stat'ed for their inode
    // (loop detection); symlinks and unknown types to see what they point to.
    if (entry.isFile()) {
      if (!filter || filter.includesFile(below(root, path))) yield { source: displayPath(path), kind: 'file', path };
      continue;
    }
    let st: Stats;
    try {
      st = await stat(path);
    } catch (err) {
      yield { source: displayPath(path), kind: 'error', error: inputErrorFrom(err, displayPath(path), path) };
      continue;
    }
    if (!st.isDirectory()) {
      if (!filter || filter.includesFile(below(root, path))) yield fileItem(path, st);
      continue;
    }
    if (filter && !filter.entersFolder(below(root, path))) continue;
    const key = inode(st);
    if (ancestors.has(key)) {
      yield {
        source: displayPath(path),
        kind: 'error',
        error: new InputError('directory_loop', `${displayPath(path)}: links back to a folder that contains it; not walked again.`),
      };
      continue;
    }
    yield* walkFolder(root, path, new Set([...ancestors, key]), filter);
  }
}

export async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Reads an input's bytes; filesystem failures become an InputError naming the source. */
export async function readInput(item: InputItem, stdin: NodeJS.ReadableStream, room?: ReadRoom): Promise<Uint8Array> {
  if (item.kind === 'error') throw item.error;
  // Their errors are InputErrors already, naming the object or URL. `room`: the read budget's
  // hold, which their reads grow as their bytes arrive (read-budget.ts).
  if (item.kind === 's3' || item.kind === 'https') return item.object.read(room);
  try {
    return item.kind === 'stdin' ? await readStream(stdin) : await readRegularFile(item.path);
  } catch (err) {
    throw inputErrorFrom(err, item.source, item.kind === 'file' ? item.path : item.source);
  }
}
