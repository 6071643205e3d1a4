// The daemon's state in one JSON file in the data dir, through lowdb behind a small interface.
//
// Writes are atomic: the JSON goes to a temp file, is fsynced, then renamed over the old file,
// so a crash (kill -9, power loss after the fsync) leaves either the old or the new state,
// never half of one. Writes are grouped: every change made while a write is pending or running
// is carried by the next single write, so N concurrent requests cost about one write, not N.
// `commit()` resolves only once a write that includes the caller's change is on disk; the
// detect route awaits it before answering 200, so a counted call is never lost to a crash.
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter, Low } from 'lowdb';
import type { AccountRecord } from './api-types.js';

export const STORE_FILE = 'provenance.json';

export interface StoredKey {
  id: string;
  account: string;
  name: string;
  prefix: string;
  sha256: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface StoredUpload {
  id: string;
  account: string;
  bytes: number;
  sha256: string;
  type: string;
  created_at: string;
  expires_at: string;
  /** File name inside the data dir's uploads folder. */
  file: string;
}

/** A dashboard session, keyed by the SHA-256 of its cookie value (the value itself is never kept). */
export interface StoredSession {
  sha256: string;
  account: string;
  created_at: string;
  expires_at: string;
}

/** A sign-in link's token, keyed by its SHA-256; kept after use (until swept) to say "already used". */
export interface StoredSigninToken {
  sha256: string;
  email: string;
  /** Where to go after signing in (a checked local path). */
  next: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface StoreData {
  version: 1;
  accounts: Record<string, AccountRecord>;
  keys: Record<string, StoredKey>;
  /** API calls per account per UTC month: usage[accountId]['2026-11'] = 42. */
  usage: Record<string, Record<string, number>>;
  uploads: Record<string, StoredUpload>;
  sessions: Record<string, StoredSession>;
  signin_tokens: Record<string, StoredSigninToken>;
}

export function emptyData(): StoreData {
  return { version: 1, accounts: {}, keys: {}, usage: {}, uploads: {}, sessions: {}, signin_tokens: {} };
}

export class StoreCorruptError extends Error {}

/** lowdb adapter: temp file + fsync + rename (lowdb's own JSONFile renames but never fsyncs). */
export class AtomicJsonFile<T> implements Adapter<T> {
  private readonly tmp: string;
  constructor(
    private readonly file: string,
    private readonly durable = true,
  ) {
    this.tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
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
    // answers requests. Only one write runs at a time (openStore serialises them), so the
    // single temp file is never written twice at once.
    const text = JSON.stringify(data);
    const handle = await open(this.tmp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.tmp, this.file);
  }
}

export interface Store {
  readonly data: StoreData;
  readonly file: string;
  /** Resolves once a write that includes every change made so far is on disk. */
  commit(): Promise<void>;
  /** Number of file writes so far (tests check that writes are grouped). */
  readonly writes: number;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** fsync each write (default true). */
  durable?: boolean;
  /** How long a first change waits for others to join its write. */
  groupMs?: number;
}

export async function openStore(dataDir: string, options: StoreOptions = {}): Promise<Store> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, STORE_FILE);
  // A temp file left by a killed process is garbage: the rename never happened.
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith(`.${STORE_FILE}.`) && name.endsWith('.tmp')) rmSync(join(dataDir, name), { force: true });
  }
  const { Low } = await import('lowdb');
  const db: Low<StoreData> = new Low(new AtomicJsonFile<StoreData>(file, options.durable ?? true), emptyData());
  await db.read();
  const data = { ...emptyData(), ...db.data };
  db.data = data;

  const groupMs = options.groupMs ?? 1;
  let writes = 0;
  let running: Promise<void> | undefined;
  let next: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void; timer?: NodeJS.Timeout } | undefined;
  let closed = false;

  const runNext = () => {
    if (!next || running) return;
    const batch = next;
    next = undefined;
    clearTimeout(batch.timer);
    running = (async () => {
      try {
        writes++;
        await db.write();
        batch.resolve();
      } catch (err) {
        batch.reject(err);
      }
    })().finally(() => {
      running = undefined;
      // Changes made during this write were waiting for it: they go in one write now.
      if (next) next.timer = setTimeout(runNext, 0);
    });
  };

  return {
    data,
    file,
    get writes() {
      return writes;
    },
    commit() {
      if (closed) return Promise.reject(new Error('The store is closed.'));
      if (!next) {
        let resolve!: () => void;
        let reject!: (e: unknown) => void;
        const promise = new Promise<void>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        next = { promise, resolve, reject };
        if (!running) next.timer = setTimeout(runNext, groupMs);
      }
      return next.promise;
    },
    async close() {
      if (closed) return;
      while (running || next) {
        if (running) await running;
        else runNext();
      }
      closed = true;
    },
  };
}
