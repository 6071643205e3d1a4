// The embedded store's journal: an append-only file of small changes next to the snapshot, one
// JSON line each (store-document.ts says which). A counted call appends about 150 bytes and an
// fsync instead of rewriting the whole snapshot, so its cost does not grow with the store.
//
// Crash safety: a line is acknowledged (its commit resolves) only after it and every line before
// it are written and fsynced. A kill -9 during an append can leave a last line without its
// newline: it was never acknowledged, so it is dropped at load (and cut off the file before the
// next append, so that it never ends up in the middle). The journal is replaced (after a
// compaction) by writing a temp file, fsyncing it and renaming it over the old one: a crash
// leaves either the old journal or the new one.
import { readFileSync, truncateSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { StoreCorruptError } from './atomic-json-file.js';
import { isJournalLine, type JournalLine } from './store-document.js';
import { failIfFaulted, type WriteFaults } from './write-faults.js';

export const JOURNAL_FILE = 'provenance.journal';

export interface JournalContents {
  /** The complete lines, in file order. */
  lines: JournalLine[];
  /** Bytes of the complete lines (a torn last line beyond them is not counted). */
  bytes: number;
  /** Bytes of a torn last line (a kill -9 during an append), 0 when the file ends with a newline. */
  tornBytes: number;
}

/** Reads a journal file; a missing file is an empty journal. A bad complete line is an error. */
export function readJournal(file: string): JournalContents {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], bytes: 0, tornBytes: 0 };
    throw err;
  }
  const bytes = buffer.lastIndexOf(0x0a) + 1;
  const lines: JournalLine[] = [];
  const text = buffer.toString('utf8', 0, bytes);
  let start = 0;
  for (let n = 1; start < text.length; n++) {
    const end = text.indexOf('\n', start);
    const raw = text.slice(start, end);
    start = end + 1;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      line = undefined;
    }
    // Lines before the last were acknowledged: never skip one silently (that would drop a key
    // or lower a usage count). A change of a kind this version does not know is refused too.
    if (!isJournalLine(line)) throw new StoreCorruptError(`${file}: line ${n} is not a store change; move the file aside only if losing its changes is acceptable.`);
    lines.push(line);
  }
  return { lines, bytes, tornBytes: buffer.length - bytes };
}

/** Makes a rename in `dir` durable (a no-op where directories cannot be opened, as on Windows). */
export async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Not supported on this platform: the rename is still atomic, only its durability on power loss is the OS's.
  } finally {
    await handle?.close();
  }
}

/** The open journal: appends, and replacement after a compaction. One operation at a time (the store serialises them). */
export class Journal {
  /** Set when a failed append could not be undone: the file may end in a partial line. */
  broken = false;

  private constructor(
    readonly file: string,
    private handle: FileHandle,
    /** The file's length: every byte of it is a complete, acknowledged or acknowledgeable line. */
    public bytes: number,
    private readonly durable: boolean,
    private readonly faults: WriteFaults | undefined,
  ) {}

  /** Opens for appending after `contents` was read: cuts off a torn last line first. */
  static async open(file: string, contents: JournalContents, durable: boolean, faults?: WriteFaults): Promise<Journal> {
    if (contents.tornBytes > 0) truncateSync(file, contents.bytes);
    const handle = await open(file, 'a', 0o600);
    if (contents.tornBytes > 0 && durable) await handle.sync();
    return new Journal(file, handle, contents.bytes, durable, faults);
  }

  /** The temp file a replacement is written to (a leftover one is garbage: its rename never happened). */
  static tempFile(file: string): string {
    return join(dirname(file), `.${basename(file)}.tmp`);
  }

  /** Appends whole lines and (durable) fsyncs them. On failure the file is cut back to its old length. */
  async append(text: string): Promise<void> {
    const data = Buffer.from(text, 'utf8');
    try {
      failIfFaulted(this.faults, 'journal');
      let written = 0;
      while (written < data.length) written += (await this.handle.write(data, written)).bytesWritten;
      if (this.durable) await this.handle.datasync();
      this.bytes += data.length;
    } catch (err) {
      try {
        failIfFaulted(this.faults, 'journal-cut');
        await this.handle.truncate(this.bytes);
      } catch {
        this.broken = true;
      }
      throw err;
    }
  }

  /**
   * After an append that failed and could not be cut back (`broken`): cuts the file back to its
   * acknowledged lines now. Throws while the disk still fails; then the journal is whole again.
   */
  async repair(): Promise<void> {
    failIfFaulted(this.faults, 'journal-cut');
    await this.handle.truncate(this.bytes);
    if (this.durable) await this.handle.datasync();
    this.broken = false;
  }

  /** Replaces the whole journal with `text` (the lines a new snapshot does not hold), atomically. */
  async replace(text: string): Promise<void> {
    const tmp = Journal.tempFile(this.file);
    const data = Buffer.from(text, 'utf8');
    try {
      failIfFaulted(this.faults, 'snapshot');
      const out = await open(tmp, 'w', 0o600);
      try {
        await out.writeFile(data);
        if (this.durable) await out.sync();
      } finally {
        await out.close();
      }
    } catch (err) {
      // A temp file the disk could not take whole is garbage; the journal is untouched.
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    await this.handle.close();
    try {
      await rename(tmp, this.file);
      if (this.durable) await syncDir(dirname(this.file));
    } finally {
      // Whether or not the rename happened, appends continue on the file now at the name.
      this.handle = await open(this.file, 'a', 0o600);
      this.bytes = (await this.handle.stat()).size;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
