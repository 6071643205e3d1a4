// The embedded store's journal file on its own (journal.ts; issue 18): what a read returns for
// whole, torn and bad files, and which fsyncs make an acknowledged line durable. The store-level
// behaviour (replay, compaction, crashes) is in store-journal.test.ts and crash.test.ts.
//
// Durability cannot be seen in a file's contents until the power fails, so the fsyncs themselves
// are watched: FileHandle's sync and datasync are wrapped to note which file they were called on
// (/proc/self/fd, hence Linux only) and how long it was at that moment, then called as they are.
// Every byte still goes to a real file on a real disk.
import { appendFileSync, fstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreCorruptError } from '../../src/daemon/store/atomic-json-file.js';
import { Journal, JOURNAL_FILE, readJournal, syncDir } from '../../src/daemon/store/journal.js';
import type { WriteStep } from '../../src/daemon/store/write-faults.js';
import { tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A fresh directory (its real path: /proc/self/fd shows real paths) and its journal file's path. */
function dir(): { dir: string; file: string } {
  const d = tempDir('prov-journal-file-');
  cleanups.push(d.cleanup);
  const real = realpathSync(d.dir);
  return { dir: real, file: join(real, JOURNAL_FILE) };
}

const line = (s: number, n: number, account = 'acct_1') => `${JSON.stringify({ s, o: 'usage', account, period: '2026-11', n })}\n`;
const usage = (s: number, n: number, account = 'acct_1') => ({ s, o: 'usage', account, period: '2026-11', n });

/** The files this process has open now (what each of its descriptors points at). */
function openFiles(): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      paths.push(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return paths;
}
const openCount = (path: string) => openFiles().filter((p) => p === path).length;

interface SyncCall {
  call: 'sync' | 'datasync';
  /** The file synced (a directory for a rename's sync). */
  path: string;
  /** Its size at that moment. */
  size: number;
}
let syncs: SyncCall[] = [];
let restore: (() => void) | undefined;

beforeAll(async () => {
  const { file } = dir();
  const probe = await open(file, 'a');
  const proto = Object.getPrototypeOf(probe) as Record<'sync' | 'datasync', (this: FileHandle) => Promise<void>>;
  await probe.close();
  const original = { sync: proto.sync, datasync: proto.datasync };
  for (const call of ['sync', 'datasync'] as const) {
    proto[call] = function (this: FileHandle) {
      syncs.push({ call, path: readlinkSync(`/proc/self/fd/${this.fd}`), size: fstatSync(this.fd).size });
      return original[call].call(this);
    };
  }
  restore = () => Object.assign(proto, original);
});
afterAll(() => restore?.());
afterEach(() => {
  syncs = [];
});

/** Faults for the steps in `failing` (the store's test hook, write-faults.ts). */
function faultsFor(failing: Set<WriteStep>) {
  return (step: WriteStep) => (failing.has(step) ? Object.assign(new Error(`EIO: i/o error (injected at ${step})`), { code: 'EIO' }) : undefined);
}

const linux = process.platform === 'linux';
if (!linux) process.stderr.write('\nNOTICE: test/daemon/journal.test.ts needs /proc/self/fd (Linux); its tests are SKIPPED here.\n\n');

describe.runIf(linux)('journal file', () => {
  describe('readJournal', () => {
    it('a missing file is an empty journal', () => {
      expect(readJournal(join(dir().dir, 'none.journal'))).toEqual({ lines: [], bytes: 0, tornBytes: 0 });
    });

    it('an empty file is an empty journal', () => {
      const { file } = dir();
      writeFileSync(file, '');
      expect(readJournal(file)).toEqual({ lines: [], bytes: 0, tornBytes: 0 });
    });

    it('returns the complete lines in order and counts bytes, not characters; a torn last line is left out', () => {
      const { file } = dir();
      const torn = '{"s":3,"o":"usage","account":"müller';
      writeFileSync(file, line(1, 1, 'müller') + line(2, 2) + torn);
      expect(readJournal(file)).toEqual({
        lines: [usage(1, 1, 'müller'), usage(2, 2)],
        bytes: Buffer.byteLength(line(1, 1, 'müller') + line(2, 2)),
        tornBytes: Buffer.byteLength(torn),
      });
      expect(Buffer.byteLength(torn)).toBe(torn.length + 1);
    });

    it('a file that is only a torn line holds no lines', () => {
      const { file } = dir();
      writeFileSync(file, '{"s":1,"o":"us');
      expect(readJournal(file)).toEqual({ lines: [], bytes: 0, tornBytes: 14 });
    });

    it('a bad complete line is refused, naming the file and the line by number', () => {
      const { file } = dir();
      const message = (n: number) => `${file}: line ${n} is not a store change; move the file aside only if losing its changes is acceptable.`;
      writeFileSync(file, line(1, 1) + line(2, 2) + 'not json\n' + line(4, 3));
      expect(() => readJournal(file)).toThrow(new StoreCorruptError(message(3)));
      // JSON that is not a change, and an empty line, are refused as well, not skipped.
      writeFileSync(file, 'null\n');
      expect(() => readJournal(file)).toThrow(new StoreCorruptError(message(1)));
      writeFileSync(file, line(1, 1) + '\n' + line(2, 2));
      expect(() => readJournal(file)).toThrow(new StoreCorruptError(message(2)));
      expect(() => readJournal(file)).toThrow(StoreCorruptError);
    });

    it('a file that cannot be read is an error, not an empty journal', () => {
      const { dir: d } = dir();
      mkdirSync(join(d, 'a-directory'));
      expect(() => readJournal(join(d, 'a-directory'))).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    });
  });

  describe('Journal.open', () => {
    it('cuts off a torn last line and, durable, fsyncs the cut before any append', async () => {
      const { file } = dir();
      writeFileSync(file, line(1, 1) + '{"s":2,"o":"us');
      const journal = await Journal.open(file, readJournal(file), true);
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1));
      expect(syncs).toEqual([{ call: 'sync', path: file, size: line(1, 1).length }]);
      expect(journal.bytes).toBe(line(1, 1).length);
      expect(journal.broken).toBe(false);
      await journal.close();
    });

    it('not durable: cuts a torn line off without an fsync', async () => {
      const { file } = dir();
      writeFileSync(file, line(1, 1) + '{"s":2');
      const journal = await Journal.open(file, readJournal(file), false);
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1));
      expect(syncs).toEqual([]);
      await journal.close();
    });

    it('a whole journal (or none) is opened without an fsync, and appends go after its lines', async () => {
      const { file } = dir();
      writeFileSync(file, line(1, 1));
      const journal = await Journal.open(file, readJournal(file), true);
      expect(syncs).toEqual([]);
      expect(journal.broken).toBe(false);
      await journal.append(line(2, 2));
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1) + line(2, 2));
      await journal.close();

      const fresh = dir().file;
      const created = await Journal.open(fresh, readJournal(fresh), true);
      expect(syncs.filter((s) => s.call === 'sync')).toEqual([]);
      expect(created.bytes).toBe(0);
      await created.close();
    });
  });

  describe('append', () => {
    it('durable: each append is fdatasynced once its bytes are written, before it resolves', async () => {
      const { file } = dir();
      const journal = await Journal.open(file, readJournal(file), true);
      const first = line(1, 1, 'ünïcödé');
      await journal.append(first);
      expect(syncs).toEqual([{ call: 'datasync', path: file, size: Buffer.byteLength(first) }]);
      await journal.append(line(2, 2) + line(3, 3));
      const all = Buffer.byteLength(first + line(2, 2) + line(3, 3));
      expect(syncs).toEqual([
        { call: 'datasync', path: file, size: Buffer.byteLength(first) },
        { call: 'datasync', path: file, size: all },
      ]);
      // `bytes` counts bytes (the length the file is cut back to after a failed append).
      expect(journal.bytes).toBe(all);
      expect(readJournal(file).lines).toEqual([usage(1, 1, 'ünïcödé'), usage(2, 2), usage(3, 3)]);
      await journal.close();
    });

    it('not durable: the same file, no fsync', async () => {
      const { file } = dir();
      const journal = await Journal.open(file, readJournal(file), false);
      await journal.append(line(1, 1));
      await journal.append(line(2, 2));
      expect(syncs).toEqual([]);
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1) + line(2, 2));
      expect(journal.bytes).toBe(2 * line(1, 1).length);
      await journal.close();
    });

    it('a failed append rejects with the disk error and leaves the journal as it was, whole', async () => {
      const { file } = dir();
      const failing = new Set<WriteStep>(['journal']);
      const journal = await Journal.open(file, readJournal(file), true, faultsFor(failing));
      await expect(journal.append(line(1, 1))).rejects.toMatchObject({ code: 'EIO', message: 'EIO: i/o error (injected at journal)' });
      expect(journal.broken).toBe(false);
      expect(journal.bytes).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('');
      failing.clear();
      await journal.append(line(1, 1));
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1));
      await journal.close();
    });

    it('an append whose cut back fails too leaves it broken until repair() cuts the file back', async () => {
      const { file } = dir();
      const failing = new Set<WriteStep>();
      const journal = await Journal.open(file, readJournal(file), true, faultsFor(failing));
      await journal.append(line(1, 1));
      failing.add('journal').add('journal-cut');
      await expect(journal.append(line(2, 2))).rejects.toMatchObject({ message: 'EIO: i/o error (injected at journal)' });
      expect(journal.broken).toBe(true);
      // What a write cut short by the disk may have left: part of a line.
      appendFileSync(file, '{"s":2,"o":"usa');
      // While the disk still fails, repair fails and the journal stays broken.
      await expect(journal.repair()).rejects.toMatchObject({ message: 'EIO: i/o error (injected at journal-cut)' });
      expect(journal.broken).toBe(true);
      failing.clear();
      syncs = [];
      await journal.repair();
      expect(journal.broken).toBe(false);
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1));
      // Durable: the cut is fdatasynced.
      expect(syncs).toEqual([{ call: 'datasync', path: file, size: line(1, 1).length }]);
      await journal.close();
    });

    it('not durable: repair cuts back without an fsync', async () => {
      const { file } = dir();
      const failing = new Set<WriteStep>(['journal', 'journal-cut']);
      const journal = await Journal.open(file, readJournal(file), false, faultsFor(failing));
      await expect(journal.append(line(1, 1))).rejects.toThrow();
      appendFileSync(file, '{"s":1');
      failing.clear();
      await journal.repair();
      expect(journal.broken).toBe(false);
      expect(readFileSync(file, 'utf8')).toBe('');
      expect(syncs).toEqual([]);
      await journal.close();
    });
  });

  describe('replace', () => {
    it('durable: the temp file is fsynced before its rename, then the directory; appends go on in the new file', async () => {
      const { dir: d, file } = dir();
      writeFileSync(file, line(1, 1) + line(2, 2));
      const journal = await Journal.open(file, readJournal(file), true);
      const text = line(3, 3, 'ïñtl');
      await journal.replace(text);
      const tmp = Journal.tempFile(file);
      expect(tmp).toBe(join(d, `.${JOURNAL_FILE}.tmp`));
      // The sync names the temp file: the rename had not happened yet.
      expect(syncs).toEqual([
        { call: 'sync', path: tmp, size: Buffer.byteLength(text) },
        { call: 'sync', path: d, size: expect.any(Number) },
      ]);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(journal.bytes).toBe(Buffer.byteLength(text));
      expect(readdirSync(d)).toEqual([JOURNAL_FILE]);
      // Nothing left open but the journal's own handle: the temp file's is closed.
      expect(openCount(file)).toBe(1);
      expect(openCount(tmp)).toBe(0);
      await journal.append(line(4, 4));
      expect(readJournal(file).lines).toEqual([usage(3, 3, 'ïñtl'), usage(4, 4)]);
      await journal.close();
    });

    it('not durable: the same files, no fsync', async () => {
      const { dir: d, file } = dir();
      const journal = await Journal.open(file, readJournal(file), false);
      await journal.append(line(1, 1));
      await journal.replace(line(2, 2));
      expect(syncs).toEqual([]);
      expect(readFileSync(file, 'utf8')).toBe(line(2, 2));
      expect(readdirSync(d)).toEqual([JOURNAL_FILE]);
      expect(openCount(file)).toBe(1);
      await journal.close();
    });

    it('a replacement the disk refuses rejects with that error; the journal is untouched and appends go on', async () => {
      const { dir: d, file } = dir();
      const failing = new Set<WriteStep>(['snapshot']);
      const journal = await Journal.open(file, readJournal(file), true, faultsFor(failing));
      await journal.append(line(1, 1));
      await expect(journal.replace('')).rejects.toMatchObject({ code: 'EIO', message: 'EIO: i/o error (injected at snapshot)' });
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1));
      expect(journal.bytes).toBe(line(1, 1).length);
      expect(readdirSync(d)).toEqual([JOURNAL_FILE]);
      await journal.append(line(2, 2));
      expect(readFileSync(file, 'utf8')).toBe(line(1, 1) + line(2, 2));
      await journal.close();
    });
  });

  it('close() closes the file', async () => {
    const { file } = dir();
    const journal = await Journal.open(file, readJournal(file), false);
    expect(openCount(file)).toBe(1);
    await journal.close();
    expect(openCount(file)).toBe(0);
  });

  describe('syncDir', () => {
    it('fsyncs the directory (what makes a rename in it durable) and closes it again', async () => {
      const { dir: d } = dir();
      await syncDir(d);
      expect(syncs).toEqual([{ call: 'sync', path: d, size: expect.any(Number) }]);
      expect(openCount(d)).toBe(0);
    });

    it('a directory that cannot be opened is no error (as on Windows): nothing is synced', async () => {
      await expect(syncDir(join(dir().dir, 'missing'))).resolves.toBeUndefined();
      expect(syncs).toEqual([]);
    });
  });
});
