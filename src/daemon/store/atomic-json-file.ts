// lowdb adapter for the file store: temp file + fsync + rename, so a crash (kill -9, power loss
// after the fsync) leaves either the old or the new file, never half of one.
import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { failIfFaulted, type WriteFaults } from './write-faults.js';

export class StoreCorruptError extends Error {}

/** lowdb adapter: temp file + fsync + rename (lowdb's own JSONFile renames but never fsyncs). */
export class AtomicJsonFile<T> implements Adapter<T> {
  private readonly tmp: string;
  constructor(
    private readonly file: string,
    private readonly durable = true,
    private readonly faults?: WriteFaults,
  ) {
    this.tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      const bytes = readFileSync(this.file);
      // A store is nearly always ASCII (ids, hashes, times; e-mail addresses rarely are not):
      // then latin1 gives the same string without UTF-8 decoding, a third of the read's time
      // at 100,000 accounts.
      text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      // Never start over on top of a file we cannot read: that would silently drop every key.
      throw new StoreCorruptError(`${this.file} is not valid JSON (${(err as Error).message}); move it aside to start over.`);
    }
  }

  async write(data: T): Promise<void> {
    // Asynchronous file calls: the fsync runs on libuv's thread pool, not on the thread that
    // answers requests. Only one write runs at a time (the store serialises them), so the
    // single temp file is never written twice at once.
    try {
      failIfFaulted(this.faults, 'snapshot');
      const handle = await open(this.tmp, 'w', 0o600);
      try {
        for await (const piece of jsonPieces(data)) await handle.writeFile(piece);
        if (this.durable) await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (err) {
      // A full or failing disk: the half-written temp file goes, the store file stays as it was.
      await rm(this.tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    await rename(this.tmp, this.file);
  }
}

/** Records serialised per piece of the text: enough to write well, small enough to keep the event loop free. */
const PIECE_CHARS = 1 << 18;

/**
 * The document's JSON text (what JSON.stringify gives), piece by piece, yielding between pieces
 * (each is written before the next is made). A top-level object of records is serialised record
 * by record, so a store of 100,000 accounts never holds the thread for the whole document.
 *
 * The document may change between pieces: a record is always serialised whole, in one step, but
 * the text as a whole is "fuzzy" (each record as it was when reached). The file store relies on
 * this being harmless: the snapshot is stamped with the journal sequence number of the moment the
 * write began, every later change is in the journal, and replaying a change the snapshot already
 * holds sets a value to what it already is.
 */
export async function* jsonPieces(data: unknown): AsyncGenerator<string> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    yield JSON.stringify(data);
    return;
  }
  let piece = '{';
  let firstField = true;
  for (const [field, value] of Object.entries(data)) {
    if (value === undefined || typeof value === 'function') continue;
    piece += `${firstField ? '' : ','}${JSON.stringify(field)}:`;
    firstField = false;
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      piece += JSON.stringify(value);
      continue;
    }
    const records = value as Record<string, unknown>;
    piece += '{';
    let firstRecord = true;
    for (const id of Object.keys(records)) {
      const record = records[id];
      // Removed since the keys were listed (a later change, in the journal), or not JSON.
      if (record === undefined || typeof record === 'function') continue;
      piece += `${firstRecord ? '' : ','}${JSON.stringify(id)}:${JSON.stringify(record)}`;
      firstRecord = false;
      if (piece.length >= PIECE_CHARS) {
        yield piece;
        piece = '';
      }
    }
    piece += '}';
  }
  yield `${piece}}`;
}
