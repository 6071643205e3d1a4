// The embedded store: the daemon's state held in memory, on disk as a snapshot (one JSON
// document, through lowdb) plus a journal of the changes made since (journal.ts). The only
// module that knows the files' layout or imports lowdb.
//
// Every change is applied in memory and queued as one journal line (store-document.ts). Lines
// are appended and fsynced in grouped writes: every change made while a write is pending or
// running is carried by the next single append, so N concurrent requests cost about one fsync,
// and an append costs the same with one account or 100,000. `commit()` resolves only once an
// append holding the caller's change is on disk; the detect route awaits it before answering 200,
// so a counted call is never lost to a crash. Every method changes the in-memory data in one
// synchronous step, so a check and its change (a reservation, a token's use) can never
// interleave with another request's.
//
// Compaction folds the journal into the snapshot: at start (when the journal holds anything),
// when the journal passes `compactBytes`, and at close. It writes the snapshot atomically (temp
// file, fsync, rename), record by record so that requests go on meanwhile, stamped with the
// sequence number S of the last change made when the write began; then it replaces the journal
// with the lines appended since. The snapshot holds every change up to S, and some later ones
// (records changed while it was written): those are in the new journal too, and replaying a
// change the snapshot holds already is harmless, since every change sets a value. A crash
// between the rename and the journal's replacement leaves a snapshot and a journal whose older
// lines it holds already: load skips lines up to S. Appends go on while the snapshot is
// written; only the journal's replacement waits for the append in flight.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Low } from 'lowdb';
import type { AccountRecord } from '../contract/api-types.js';
import { AtomicJsonFile, StoreCorruptError } from './atomic-json-file.js';
import { BurstWindows } from './burst-window.js';
import { Journal, JOURNAL_FILE, readJournal, syncDir, type JournalContents } from './journal.js';
import { applyChange, dictionary, emptyData, withDictionaries, type StoreChange, type StoreData } from './store-document.js';
import type { WriteFaults } from './write-faults.js';

export type { StoreData } from './store-document.js';
import { UploadFiles } from './upload-files.js';
import {
  sortSnapshot,
  STORE_SNAPSHOT_FORMAT,
  STORE_SNAPSHOT_VERSION,
  StoreConflictError,
  type BurstDecision,
  type LiveUploads,
  type StoreSnapshot,
  type Store,
  type StoredKey,
  type StoredSession,
  type StoredSigninToken,
  type StoredUpload,
  type TokenUse,
  type UploadAdmission,
  type UploadCaps,
  exceedsUploadCaps,
} from './store.js';

export { StoreCorruptError };
export { JOURNAL_FILE } from './journal.js';

export const STORE_FILE = 'provenance.json';

/** Journal size past which it is folded into the snapshot (PROVENANCE_STORE_COMPACT_BYTES overrides it for a daemon). */
export const DEFAULT_COMPACT_BYTES = 16 * 1024 * 1024;

export interface FileStoreOptions {
  /** fsync each write (default true). */
  durable?: boolean;
  /** How long a first change waits for others to join its write. */
  groupMs?: number;
  /** Fold the journal into the snapshot once it holds this many bytes (default 16 MiB). */
  compactBytes?: number;
  /** Tests only: makes chosen writes fail as a failing disk would (write-faults.ts). */
  faults?: WriteFaults;
}

/** After a compaction failed (a full disk, say), the next one is tried no sooner than this. */
const COMPACTION_RETRY_MS = 5000;

interface PendingWrite {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
  timer?: NodeJS.Timeout;
}

/** Records leave the store as copies: a caller's change never skips the store's methods. */
const copy = <T extends object>(record: T | undefined): T | undefined => (record ? { ...record } : undefined);

export class FileStore implements Store {
  /** SHA-256 of a key -> key record, so authentication is one map lookup. */
  private readonly byHash = new Map<string, StoredKey>();
  /**
   * E-mail address -> account id (addresses are unique and never change). Built on first use:
   * counted calls never need it, and a start with 100,000 accounts need not wait for it.
   */
  private emails: Map<string, string> | undefined;
  /**
   * Account id -> the ids of its upload records (expired ones too, until swept), so an upload's
   * caps count one account's records, not every account's. Built on first use, like `emails`.
   */
  private uploadIds: Map<string, Set<string>> | undefined;
  private burst = new BurstWindows();
  /** Upload bytes: files in the data dir's uploads folder. */
  private readonly files: UploadFiles;
  private appendCount = 0;
  private compactionCount = 0;
  /** Sequence number of the last change made (in memory). */
  private seq: number;
  /** Journal lines made but not yet handed to an append. */
  private pending = '';
  private running: Promise<void> | undefined;
  private next: PendingWrite | undefined;
  /** A compaction's snapshot is on disk: the journal's replacement waits for the append in flight. */
  private swap: { run: () => Promise<void> } | undefined;
  /** Lines appended since the running compaction took its snapshot (they go into the new journal). */
  private tail: string[] | undefined;
  private compacting: Promise<void> | undefined;
  /** An append failed and could not be cut back: no line goes after it until the journal is repaired. */
  private failed: unknown;
  /** A compaction failed: no background one starts before this time (ms). */
  private compactRetryAt = 0;
  /** close() has begun: no compaction starts in the background any more. */
  private closing = false;
  private closed = false;

  private constructor(
    private readonly db: Low<StoreData>,
    private readonly data: StoreData,
    private readonly journal: Journal,
    readonly file: string,
    private readonly groupMs: number,
    private readonly compactBytes: number,
  ) {
    this.seq = data.journal_seq ?? 0;
    this.files = new UploadFiles(dirname(file));
    for (const id in data.keys) {
      const key = data.keys[id]!;
      this.byHash.set(key.sha256, key);
    }
  }

  private get byEmail(): Map<string, string> {
    if (!this.emails) {
      this.emails = new Map();
      for (const account of Object.values(this.data.accounts)) this.emails.set(account.email, account.id);
    }
    return this.emails;
  }

  /** The ids of an account's upload records. */
  private uploadsOf(accountId: string): Set<string> {
    if (!this.uploadIds) {
      this.uploadIds = new Map();
      for (const upload of Object.values(this.data.uploads)) this.uploadsOf(upload.account).add(upload.id);
    }
    let ids = this.uploadIds.get(accountId);
    if (!ids) this.uploadIds.set(accountId, (ids = new Set()));
    return ids;
  }

  static async open(dataDir: string, options: FileStoreOptions = {}): Promise<FileStore> {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, STORE_FILE);
    const journalFile = join(dataDir, JOURNAL_FILE);
    const durable = options.durable ?? true;
    // A temp file left by a killed process is garbage: the rename never happened.
    for (const name of readdirSync(dataDir)) {
      if ((name.startsWith(`.${STORE_FILE}.`) && name.endsWith('.tmp')) || name === `.${JOURNAL_FILE}.tmp`) rmSync(join(dataDir, name), { force: true });
    }
    const { Low } = await import('lowdb');
    const db: Low<StoreData> = new Low(new AtomicJsonFile<StoreData>(file, durable, options.faults), emptyData());
    await db.read();
    const data = withDictionaries({ ...emptyData(), ...db.data });
    db.data = data;
    // Replay the changes the snapshot does not hold yet (a store written before the journal
    // existed has no journal_seq and no journal: nothing to replay).
    const contents = readJournal(journalFile);
    const last = replay(data, contents);
    const journal = await Journal.open(journalFile, contents, durable, options.faults);
    const store = new FileStore(db, data, journal, file, options.groupMs ?? 1, options.compactBytes ?? DEFAULT_COMPACT_BYTES);
    store.seq = last;
    // Fold what was replayed into the snapshot, in the background: the daemon serves meanwhile.
    if (contents.bytes > 0) store.startCompaction();
    return store;
  }

  get location(): string {
    return this.file;
  }

  /** Number of journal appends so far (tests check that writes are grouped). */
  get writes(): number {
    return this.appendCount;
  }

  /** Number of compactions finished so far. */
  get compactions(): number {
    return this.compactionCount;
  }

  /** Applies a change in memory and queues its journal line. */
  private record(change: StoreChange): void {
    const added = applyChange(this.data, change);
    if (added) this.byHash.set(added.sha256, added);
    this.seq++;
    this.pending += `${JSON.stringify({ s: this.seq, ...change })}\n`;
  }

  // Accounts

  async insertAccount(account: AccountRecord): Promise<void> {
    if (this.byEmail.has(account.email)) throw new StoreConflictError(`An account for ${account.email} exists already.`);
    this.record({ o: 'account', account });
    this.byEmail.set(account.email, account.id);
  }

  async setAccountPlan(id: string, { plan, quota }: Pick<AccountRecord, 'plan' | 'quota'>): Promise<AccountRecord | undefined> {
    if (!this.data.accounts[id]) return undefined;
    this.record(quota === undefined ? { o: 'plan', id, plan } : { o: 'plan', id, plan, quota });
    return copy(this.data.accounts[id]);
  }

  async accountById(id: string): Promise<AccountRecord | undefined> {
    return copy(this.data.accounts[id]);
  }

  async accountByEmail(email: string): Promise<AccountRecord | undefined> {
    const id = this.byEmail.get(email);
    return id === undefined ? undefined : copy(this.data.accounts[id]);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    return Object.values(this.data.accounts).map((a) => ({ ...a }));
  }

  // Keys

  async insertKey(key: StoredKey, maxActive?: number): Promise<boolean> {
    // Counted and added in one synchronous step: no other request runs in between.
    if (maxActive !== undefined) {
      let active = 0;
      for (const id in this.data.keys) {
        const k = this.data.keys[id]!;
        if (k.account === key.account && !k.revoked_at) active++;
      }
      if (active >= maxActive) return false;
    }
    this.record({ o: 'key', key });
    return true;
  }

  async keyById(id: string): Promise<StoredKey | undefined> {
    return copy(this.data.keys[id]);
  }

  async keyByHash(sha256: string): Promise<StoredKey | undefined> {
    return copy(this.byHash.get(sha256));
  }

  async listKeys(accountId?: string): Promise<StoredKey[]> {
    return Object.values(this.data.keys)
      .filter((k) => accountId === undefined || k.account === accountId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map((k) => ({ ...k }));
  }

  async revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    const key = this.data.keys[id];
    if (!key) return undefined;
    if (key.revoked_at === null) this.record({ o: 'revoke', id, at });
    return { ...key };
  }

  async touchKey(id: string, at: string): Promise<void> {
    if (this.data.keys[id]) this.record({ o: 'touch', id, at });
  }

  async restoreKey(id: string, name: string): Promise<StoredKey | undefined> {
    const key = this.data.keys[id];
    if (!key) return undefined;
    // The whole record as one change (the journal's 'key'): replay sets it again, idempotent.
    this.record({ o: 'key', key: { ...key, name, revoked_at: null } });
    return copy(this.data.keys[id]);
  }

  // Usage

  async usage(accountId: string, period: string): Promise<number> {
    return this.data.usage[accountId]?.[period] ?? 0;
  }

  async reserveCall(accountId: string, period: string, limit: number): Promise<number | undefined> {
    const used = this.data.usage[accountId]?.[period] ?? 0;
    if (used >= limit) return undefined;
    this.record({ o: 'usage', account: accountId, period, n: used + 1 });
    return used + 1;
  }

  async releaseCall(accountId: string, period: string): Promise<void> {
    const used = this.data.usage[accountId]?.[period];
    if (used) this.record({ o: 'usage', account: accountId, period, n: used - 1 });
  }
  async setUsage(accountId: string, period: string, calls: number): Promise<void> {
    this.record({ o: 'usage', account: accountId, period, n: calls });
  }


  // Burst (in memory only: a window lasts 60 s, a restart may forget it)

  async takeBurst(keyId: string, limit: number, nowMs: number): Promise<BurstDecision> {
    return this.burst.take(keyId, limit, nowMs);
  }

  async peekBurst(keyId: string, limit: number, nowMs: number): Promise<BurstDecision> {
    return this.burst.peek(keyId, limit, nowMs);
  }

  async sweepBurst(nowMs: number): Promise<void> {
    this.burst.sweep(nowMs);
  }

  // Uploads

  async insertUpload(upload: StoredUpload, caps?: UploadCaps): Promise<UploadAdmission> {
    // Counted and added in one synchronous step (no await): no other request runs in between.
    if (caps) {
      const live = this.live(upload.account, caps.nowMs);
      if (exceedsUploadCaps(live, upload.bytes, caps)) return { stored: false, live };
    }
    this.record({ o: 'upload', upload });
    this.uploadsOf(upload.account).add(upload.id);
    return { stored: true };
  }

  async liveUploads(accountId: string, nowMs: number): Promise<LiveUploads> {
    return this.live(accountId, nowMs);
  }

  /** Synchronous, so that insertUpload counts and adds in one step. */
  private live(accountId: string, nowMs: number): LiveUploads {
    const live: LiveUploads = { count: 0, bytes: 0, oldestExpiresMs: undefined };
    for (const id of this.uploadsOf(accountId)) {
      const upload = this.data.uploads[id];
      const expires = upload ? Date.parse(upload.expires_at) : 0;
      if (!upload || expires <= nowMs) continue;
      live.count++;
      live.bytes += upload.bytes;
      if (live.oldestExpiresMs === undefined || expires < live.oldestExpiresMs) live.oldestExpiresMs = expires;
    }
    return live;
  }

  async uploadById(id: string): Promise<StoredUpload | undefined> {
    return copy(this.data.uploads[id]);
  }

  async deleteUpload(id: string): Promise<void> {
    const upload = this.data.uploads[id];
    if (!upload) return;
    this.record({ o: 'upload-', id });
    this.uploadsOf(upload.account).delete(id);
  }

  async takeExpiredUploads(nowMs: number): Promise<StoredUpload[]> {
    const expired = Object.values(this.data.uploads).filter((u) => Date.parse(u.expires_at) <= nowMs);
    for (const upload of expired) {
      this.record({ o: 'upload-', id: upload.id });
      this.uploadsOf(upload.account).delete(upload.id);
    }
    return expired;
  }

  async liveUploadTotals(nowMs: number): Promise<{ count: number; bytes: number }> {
    let count = 0;
    let bytes = 0;
    for (const upload of Object.values(this.data.uploads)) {
      if (Date.parse(upload.expires_at) <= nowMs) continue;
      count++;
      bytes += upload.bytes;
    }
    return { count, bytes };
  }

  async uploadFiles(): Promise<Set<string>> {
    return new Set(Object.values(this.data.uploads).map((u) => u.file));
  }
  putUploadBytes(id: string, tempFile: string): Promise<void> {
    return this.files.put(id, tempFile);
  }

  readUploadBytes(upload: StoredUpload): Promise<Uint8Array | undefined> {
    return this.files.read(upload);
  }

  deleteUploadBytes(upload: StoredUpload): Promise<void> {
    return this.files.delete(upload);
  }


  // Sessions

  async insertSession(session: StoredSession): Promise<void> {
    this.record({ o: 'session', session });
  }

  async sessionByHash(sha256: string): Promise<StoredSession | undefined> {
    return copy(this.data.sessions[sha256]);
  }

  async deleteSession(sha256: string): Promise<boolean> {
    if (!this.data.sessions[sha256]) return false;
    this.record({ o: 'session-', sha256 });
    return true;
  }

  async deleteExpiredSessions(nowMs: number): Promise<number> {
    let removed = 0;
    for (const [hash, session] of Object.entries(this.data.sessions)) {
      if (Date.parse(session.expires_at) <= nowMs) {
        this.record({ o: 'session-', sha256: hash });
        removed++;
      }
    }
    return removed;
  }

  // Sign-in tokens

  async insertSigninToken(token: StoredSigninToken): Promise<void> {
    this.record({ o: 'token', token });
  }

  async signinTokenByHash(sha256: string): Promise<StoredSigninToken | undefined> {
    return copy(this.data.signin_tokens[sha256]);
  }

  async useSigninToken(sha256: string, at: Date): Promise<TokenUse> {
    const record = this.data.signin_tokens[sha256];
    if (!record) return { ok: false, problem: 'unknown' };
    if (record.used_at) return { ok: false, problem: 'used', record: { ...record } };
    if (Date.parse(record.expires_at) <= at.getTime()) return { ok: false, problem: 'expired', record: { ...record } };
    this.record({ o: 'token', token: { ...record, used_at: at.toISOString() } });
    return { ok: true, record: { ...this.data.signin_tokens[sha256]! } };
  }

  async deleteSigninTokensExpiredBefore(cutoffMs: number): Promise<number> {
    let removed = 0;
    for (const [hash, record] of Object.entries(this.data.signin_tokens)) {
      if (Date.parse(record.expires_at) <= cutoffMs) {
        this.record({ o: 'token-', sha256: hash });
        removed++;
      }
    }
    return removed;
  }

  // The whole state (test mode's export, import and reset; issue 15)

  async exportState(): Promise<StoreSnapshot> {
    const d = this.data;
    const usage = Object.entries(d.usage).flatMap(([account, periods]) =>
      Object.entries(periods).map(([period, calls]) => ({ account, period, calls })),
    );
    return structuredClone(
      sortSnapshot({
        format: STORE_SNAPSHOT_FORMAT,
        version: STORE_SNAPSHOT_VERSION,
        accounts: Object.values(d.accounts),
        keys: Object.values(d.keys),
        usage,
        uploads: Object.values(d.uploads),
        sessions: Object.values(d.sessions),
        signin_tokens: Object.values(d.signin_tokens),
      }),
    );
  }

  async importState(snapshot: StoreSnapshot): Promise<void> {
    const s = structuredClone(snapshot);
    const index = <T>(list: T[], key: (t: T) => string) => dictionary(list.map((t) => [key(t), t] as const));
    const usage: StoreData['usage'] = dictionary();
    for (const row of s.usage) (usage[row.account] ??= dictionary())[row.period] = row.calls;
    await this.replaceWhole({
      accounts: index(s.accounts, (a) => a.id),
      keys: index(s.keys, (k) => k.id),
      usage,
      uploads: index(s.uploads, (u) => u.id),
      sessions: index(s.sessions, (x) => x.sha256),
      signin_tokens: index(s.signin_tokens, (t) => t.sha256),
    });
  }

  async reset({ keepAccounts }: { keepAccounts: boolean }): Promise<StoredUpload[]> {
    const uploads = Object.values(this.data.uploads);
    await this.replaceWhole({ usage: dictionary(), uploads: dictionary(), sessions: dictionary(), signin_tokens: dictionary(), ...(keepAccounts ? {} : { accounts: dictionary(), keys: dictionary() }) });
    return uploads;
  }

  /**
   * Replaces parts of the state wholesale. Such a change has no journal line: it goes straight
   * into a new snapshot (a compaction), which also drops every earlier journal line, and it
   * resolves only once that is on disk. A compaction already running is waited for first, so
   * no snapshot mixes the old state with the new.
   */
  private async replaceWhole(parts: Partial<Omit<StoreData, 'version' | 'journal_seq'>>): Promise<void> {
    await this.compacting?.catch(() => undefined);
    await this.commit();
    // Replaced in place: lowdb writes this very object.
    Object.assign(this.data, parts);
    this.byHash.clear();
    for (const key of Object.values(this.data.keys)) this.byHash.set(key.sha256, key);
    this.emails = undefined;
    this.uploadIds = undefined;
    this.burst = new BurstWindows();
    await this.compact();
  }

  // Durability

  commit(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The store is closed.'));
    if (!this.next) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.next = { promise, resolve, reject };
      if (!this.running) this.next.timer = setTimeout(this.runNext, this.groupMs);
    }
    return this.next.promise;
  }

  /** Folds the journal into the snapshot now (also run past `compactBytes`, at start and at close). */
  compact(): Promise<void> {
    if (this.closing) return Promise.reject(new Error('The store is closed.'));
    return this.compacting ?? this.runCompaction();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    await this.compacting?.catch(() => undefined);
    await this.commit();
    // Everything goes into the snapshot, so the next start reads one file and replays nothing.
    if (this.seq > (this.data.journal_seq ?? 0) || this.journal.bytes > 0) await this.runCompaction();
    // Changes made while that ran (none in the daemon: it closes the store after its last request).
    if (this.pending) await this.commit();
    this.closed = true;
    await this.journal.close();
  }

  /** Starts a compaction in the background; a failure leaves the journal as it is, to be tried again later. */
  private startCompaction(): void {
    if (this.compacting || this.closing || Date.now() < this.compactRetryAt) return;
    this.runCompaction().catch(() => {
      this.compactRetryAt = Date.now() + COMPACTION_RETRY_MS;
    });
  }

  private runCompaction(): Promise<void> {
    this.compacting = (async () => {
      // Every change up to `seq` is in memory now, so in the snapshot the adapter writes from it
      // (record by record: later changes may be in it too, and are in the journal as well).
      this.data.journal_seq = this.seq;
      const tail: string[] = [];
      this.tail = tail;
      try {
        await this.db.write();
        await syncDir(dirname(this.file));
        // The snapshot holds every line the journal has had up to now: replace the journal with
        // the lines appended while the snapshot was written, between two appends.
        await new Promise<void>((resolve, reject) => {
          this.swap = {
            run: async () => {
              try {
                this.tail = undefined;
                await this.journal.replace(tail.join(''));
                this.compactionCount++;
                resolve();
              } catch (err) {
                reject(err);
              }
            },
          };
          this.runNext();
        });
      } finally {
        if (this.tail === tail) this.tail = undefined;
      }
    })().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }

  private readonly runNext = (): void => {
    if (this.running) return;
    if (this.swap) {
      const swap = this.swap;
      this.swap = undefined;
      this.running = swap.run().finally(this.afterRun);
      return;
    }
    if (!this.next) return;
    const batch = this.next;
    this.next = undefined;
    clearTimeout(batch.timer);
    this.running = (async () => {
      if (this.failed) {
        // The journal may end in part of a line: cut it back first (throws while the disk
        // still fails, and the lines made meanwhile wait in `pending`), then go on as before.
        await this.journal.repair();
        this.failed = undefined;
      }
      const text = this.pending;
      this.pending = '';
      if (!text) return;
      try {
        this.appendCount++;
        await this.journal.append(text);
        this.tail?.push(text);
      } catch (err) {
        // The file was cut back to before this append (or will be, by repair()): its lines go
        // with the next one, which also carries the changes made meanwhile.
        if (this.journal.broken) this.failed = err;
        this.pending = text + this.pending;
        throw err;
      }
    })()
      .then(batch.resolve, batch.reject)
      .finally(this.afterRun);
  };

  private readonly afterRun = (): void => {
    this.running = undefined;
    if (this.journal.bytes >= this.compactBytes) this.startCompaction();
    // Changes made during this write were waiting for it: they go in one write now.
    if (this.swap || this.next) {
      if (this.next) clearTimeout(this.next.timer);
      const timer = setTimeout(this.runNext, 0);
      if (this.next) this.next.timer = timer;
    }
  };
}

/** Applies the journal lines the snapshot does not hold; returns the last sequence number. */
function replay(data: StoreData, contents: JournalContents): number {
  const snapshotSeq = data.journal_seq ?? 0;
  let last = snapshotSeq;
  for (const line of contents.lines) {
    if (line.s <= snapshotSeq) continue;
    if (line.s <= last) throw new StoreCorruptError(`${JOURNAL_FILE}: sequence number ${line.s} after ${last}; the journal is out of order.`);
    applyChange(data, line);
    last = line.s;
  }
  return last;
}

/**
 * The state a data dir holds on disk right now (snapshot plus journal), read without opening the
 * store: for tests and tools that look at the files while a daemon may be running.
 */
export function readStoreFiles(dataDir: string): StoreData {
  let data = emptyData();
  try {
    data = withDictionaries({ ...data, ...(JSON.parse(readFileSync(join(dataDir, STORE_FILE), 'utf8')) as StoreData) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  replay(data, readJournal(join(dataDir, JOURNAL_FILE)));
  return data;
}

/** Opens (or creates) the embedded store in a data dir. */
export function openStore(dataDir: string, options: FileStoreOptions = {}): Promise<FileStore> {
  return FileStore.open(dataDir, options);
}
