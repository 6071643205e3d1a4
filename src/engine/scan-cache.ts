// The scan cache of `provenance check --incremental`: what a scan already read, so a rescan of an
// unchanged folder costs a stat and a lookup per file instead of a read and a hash.
//
// Store: LMDB (the `lmdb` package, loaded only here and only with --incremental). It is an
// embedded B-tree in one memory-mapped file, fit for millions of entries; a commit is atomic
// (a process killed mid-write leaves the last committed state), and any number of processes
// may read and write it at once (writers take turns on a lock in the lock file).
//
// An entry's key is the run's scope (engine build, checks, trust anchors: everything besides
// the file that can change a result) and the file's device and inode; its value holds the rest
// of the file's identity (size, modification and change times in nanoseconds) and the result.
// A lookup is a hit only when all of those are equal, so any change of size, times, inode or
// device is a miss, and a changed file's new entry replaces its old one.
//
// LMDB trusts its file: a damaged page crashes the process (SIGSEGV, SIGBUS, an assertion's
// abort) instead of failing. So the header is checked before every open, and the whole file
// (lmdb-file.ts) whenever it is not in the state a clean close sealed (checkUnlessSealed): after
// a scan was killed or crashed, while another scan writes, after a disk error or a hand edit.
// Every value carries a CRC-32 of itself and its key that is checked on every hit.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type BigIntStats } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import * as zlib from 'node:zlib';
import type { C2paDetails } from '../detectors/c2pa-manifest.js';
import type { DetectionResult } from '../types.js';
import type { Hints } from '../media/xmp-hints.js';
import { dataFileHead, validateDataFile, verifyDataFile } from './lmdb-file.js';

export { validateDataFile };

/**
 * Bumped when the layout of keys or values changes: older entries are then never read.
 * 2: the CRC covers the key too (its scope; the identity holds its device and inode).
 */
export const CACHE_FORMAT = 2;
/** The scan cache's folder inside the cache folder (paths.ts cacheDir). */
export const SCAN_CACHE_FOLDER = 'scan';
const DATA_FILE = 'scan.mdb';
/**
 * Beside the data file: its state (stateOf) when a scan last closed it cleanly, or `cache scan
 * stats` read it through; taken away by the next scan while it uses the cache (takeSeal).
 */
const SEAL_FILE = 'scan.sealed';
/** Default size bound: 1 GB of data pages. */
export const DEFAULT_MAX_BYTES = 1_000_000_000;
/**
 * A file modified this close to the scan's start (or later) is checked but not stored: it may
 * still be being written, and a change within the file system's timestamp resolution would
 * leave the same times behind (git's rule for racy timestamps).
 */
export const RACY_MS = 2000;
/**
 * A hit refreshes its entry's last-use time (for pruning) at most this often: a refresh rewrites
 * the entry, and once a day would have made every nightly rescan rewrite the whole cache.
 */
export const TOUCH_EVERY_MS = 7 * 24 * 60 * 60 * 1000;
/** Pruning takes the cache down to this share of its bound, so it does not run every scan. */
const PRUNE_TO = 0.9;

/** What is stored: what the check found, with the report's details. */
export interface CachedCheck {
  result: DetectionResult;
  hints?: Hints;
  details?: C2paDetails;
}

/** What a hit gives back: the stored check, and the result as JSON text for NDJSON output. */
export interface CachedHit extends CachedCheck {
  /**
   * `result` serialised, with RESULT_ID_PLACEHOLDER as its id and 0 as its duration_ms
   * (ndjsonLine fills in the rest): a rescan writes this text instead of serialising each
   * result again, which was the largest part of a hit's cost.
   */
  resultJson?: string;
}

/** The id a stored result's JSON carries; a hit's line gets a new one in its place. */
export const RESULT_ID_PLACEHOLDER = 'chk_000000000000000000000000';
const RESULT_JSON_HEAD = `{"id":"${RESULT_ID_PLACEHOLDER}",`;
const RESULT_JSON_TAIL = ',"duration_ms":0}';

/**
 * The NDJSON line `check --json` writes for a result, `{"source":...,...result,"hints":...}`,
 * from a hit's stored JSON, with `id` in the placeholder's place; exactly what JSON.stringify of
 * that object gives (test/incremental.test.ts compares the two).
 */
export function ndjsonLine(source: string, resultJson: string, id: string, hints: Hints | undefined): string {
  const body = resultJson.slice(RESULT_JSON_HEAD.length, -1);
  return `{"source":${JSON.stringify(source)},"id":"${id}",${body}${hints ? `,"hints":${JSON.stringify(hints)}` : ''}}`;
}

/** A file as the file system identifies it, packed for comparison (40 bytes). */
export type FileIdentity = Buffer;
const IDENTITY_BYTES = 40;

// Value layout: [0,8) last use, ms (float64 LE) | [8,12) CRC-32 of the scope and the rest | [12,52) identity |
// [52,...) UTF-8 text: JSON of { hints, details }, a newline, JSON of the result (with the
// placeholder id and duration 0). JSON text holds no raw newline, so the first one splits them.
const USED_AT = 0;
const CRC_AT = 8;
const IDENTITY_AT = 12;
const PAYLOAD_AT = IDENTITY_AT + IDENTITY_BYTES;
const SCOPE_BYTES = 16;

/** CRC-32, continuing from `crc` (zlib.crc32 from Node 20.15; a table-driven one before that). */
const crc32: (data: Uint8Array, crc?: number) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (zlib as unknown as { crc32(data: Uint8Array, crc?: number): number }).crc32
    : (() => {
        const table = new Uint32Array(256);
        for (let n = 0; n < 256; n++) {
          let c = n;
          for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
          table[n] = c >>> 0;
        }
        return (data: Uint8Array, crc = 0) => {
          let c = (crc ^ 0xffffffff) >>> 0;
          for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
          return (c ^ 0xffffffff) >>> 0;
        };
      })();

/**
 * The scope of a run: everything besides the file that can change its result. Entries of
 * another scope are never read (they are other keys).
 */
export function scanScope(parts: { engine: string; checks: readonly string[]; trustAnchorsPem?: string }): Buffer {
  const anchors = parts.trustAnchorsPem === undefined ? null : createHash('sha256').update(parts.trustAnchorsPem).digest('hex');
  return createHash('sha256')
    .update(JSON.stringify([CACHE_FORMAT, parts.engine, [...parts.checks], anchors]))
    .digest()
    .subarray(0, SCOPE_BYTES);
}

/** The identity of a file from a bigint stat: device, inode, size, mtime and ctime in ns. */
export function identityOf(st: BigIntStats): FileIdentity {
  // Through a BigInt64Array (the platform's byte order; the cache never leaves the machine):
  // Buffer's writeBigInt64LE splits each value with BigInt arithmetic, and the garbage of five
  // such writes per file was a third of a rescan's main thread in garbage collection.
  const words = new BigInt64Array(5);
  words[0] = st.dev;
  words[1] = st.ino;
  words[2] = st.size;
  words[3] = st.mtimeNs;
  words[4] = st.ctimeNs;
  return Buffer.from(words.buffer);
}

/**
 * The identity of an S3 object or https:// URL (`check --incremental s3://... https://...`), in a
 * file's 40 bytes: 16 bytes of the SHA-256 of its URL where a file has its device and inode (the
 * key), its size, its modification time, and 8 bytes of the SHA-256 of its version (an ETag). An
 * ETag changes when the object is written again, so no racy-time rule applies (the time word is
 * 0: put() always stores); a URL known by its Last-Modified time (https-source.ts httpsVersion)
 * gives that time, and the rule applies as to a file's.
 */
export function objectIdentity(url: string, version: string, size: number, modifiedMs = 0): FileIdentity {
  const identity = Buffer.alloc(IDENTITY_BYTES);
  // `s3\0` since the first, S3-only, form: the entries stored then stay valid.
  createHash('sha256').update(`s3\0${url}`).digest().copy(identity, 0, 0, 16);
  const words = new BigInt64Array(identity.buffer, identity.byteOffset, 5);
  words[2] = BigInt(size);
  words[3] = BigInt(Math.trunc(modifiedMs)) * 1_000_000n;
  createHash('sha256').update(version).digest().copy(identity, 32, 0, 8);
  return identity;
}

function mtimeMsOf(identity: FileIdentity): number {
  return Number(new BigInt64Array(identity.buffer, identity.byteOffset, 5)[3]! / 1_000_000n);
}

/** A data file's state: its identity as the file system reports it, and its newest transaction. */
function stateOf(file: string): string | undefined {
  const head = dataFileHead(file);
  if (!head || typeof head === 'string') return undefined;
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  return st && `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${head.txnid}`;
}

/**
 * Takes the seal when the data file is in the state it records: the file is then sound, and the
 * seal is gone until this run closes the cache cleanly and seals it again. A run that never gets
 * there (killed, or crashed in LMDB on a page that went bad on the disk since) leaves no seal, so
 * the next one checks the file whole instead of trusting it again.
 */
function takeSeal(dir: string, file: string): boolean {
  const path = join(dir, SEAL_FILE);
  let sealed: string;
  try {
    sealed = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  if (sealed !== stateOf(file)) return false;
  try {
    rmSync(path);
    return true;
  } catch {
    return false; // another scan took it first: this one checks the file itself
  }
}

/** Seals the data file's state now: the next run may trust it without reading it whole. */
function seal(dir: string, file: string): void {
  const state = stateOf(file);
  if (state === undefined) return;
  const temporary = join(dir, `${SEAL_FILE}.${process.pid}`);
  try {
    writeFileSync(temporary, state);
    renameSync(temporary, join(dir, SEAL_FILE));
  } catch {
    // Not sealed: the next scan checks the file whole again.
  }
}

/**
 * Why LMDB cannot use the data file, or undefined. A file in the state a clean close sealed was
 * left by LMDB itself and is trusted (its seal taken); any other (a scan killed mid-write, whose
 * committed state is sound; a scan writing right now; a disk error; a hand edit; a copy) is
 * checked whole first. That reads every page in use, so it is never the cost of a rescan after
 * a clean scan.
 *
 * `db`, open on the file, holds a read transaction meanwhile: LMDB then writes over no page of
 * the snapshot being read, whatever other scans on the cache commit.
 */
function checkUnlessSealed(dir: string, db: RootDatabase): string | undefined {
  const file = join(dir, DATA_FILE);
  if (takeSeal(dir, file)) return undefined;
  const reading = db.useReadTransaction();
  try {
    let problem: string | undefined;
    let state = stateOf(file);
    for (let attempt = 0; attempt < 3; attempt++) {
      problem = verifyDataFile(file);
      if (!problem) return undefined;
      // A problem while another scan committed may be a header read half-written: looked at again.
      const after = stateOf(file);
      if (after === state) return problem;
      state = after;
    }
    return problem;
  } finally {
    reading.done();
  }
}

/** dev:ino of a file, to tell whether the data file is still the one a store opened. */
function inodeOf(file: string): string | undefined {
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  return st && `${st.dev}:${st.ino}`;
}

type LmdbModule = typeof import('lmdb');
type Database = import('lmdb').Database<Buffer, Buffer>;
type RootDatabase = import('lmdb').RootDatabase<Buffer, Buffer>;

/**
 * lmdb through require(), which loads its one-file CommonJS build (dist/index.cjs), where
 * import() loads its ES module tree file by file: about 30 ms against 85 ms on this machine,
 * on every `--incremental` start. A computed specifier keeps it out of every bundle (it is a
 * native package, found in node_modules at run time).
 */
const requireExternal = createRequire(import.meta.url);
const loadLmdb = (): LmdbModule => requireExternal(['lm', 'db'].join('')) as LmdbModule;

/** lmdb-js's `commitError` promises seen: each rejects with its commit's cause, unhandled. */
const commitErrors = new WeakSet<Promise<unknown>>();
/** Rejections a cache took as its failed write (ScanCache.onStrayRejection). */
const strays = new WeakSet<Promise<unknown>>();

export interface ScanCacheOptions {
  /** The scan cache's folder (paths.ts scanCacheDir). */
  dir: string;
  /** scanScope() of the run. */
  scope: Buffer;
  /** Size bound in bytes (data pages in use); pruned oldest first when over it. */
  maxBytes?: number;
  /** When the scan started (ms since the epoch), for the racy-timestamp rule. */
  startedAt?: number;
  /** Told once about a damaged or unreadable cache. */
  warn(message: string): void;
}

export class ScanCache {
  private db?: RootDatabase;
  private readonly scope: Buffer;
  private readonly key = Buffer.alloc(SCOPE_BYTES + 16);
  /**
   * Where each value's CRC starts: the scope's own. A value is then right for its key only (the
   * key is the scope and the file's device and inode, which the value's identity holds), at the
   * cost of one CRC call per hit, as before.
   */
  private readonly scopeCrc: number;
  private readonly startedAt: number;
  private readonly maxBytes: number;
  private damaged = false;
  /** The data file the store has open (inodeOf), sealed at a clean close if it is still there. */
  private openedFile?: string;
  /** A write failed (a full disk, say): nothing more is stored in this run. */
  private writesFailed = false;
  /** Entries stored and hits served by this run. */
  stored = 0;
  hits = 0;

  private constructor(
    private readonly lmdb: LmdbModule | undefined,
    private readonly options: ScanCacheOptions,
  ) {
    this.scope = options.scope;
    this.scope.copy(this.key, 0);
    this.scopeCrc = crc32(this.scope);
    this.startedAt = options.startedAt ?? Date.now();
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /**
   * Opens (or makes) the cache. A damaged one is reported, moved aside and made again; one that
   * cannot be made at all is reported and the run goes on without (every lookup a miss).
   */
  static async open(options: ScanCacheOptions): Promise<ScanCache> {
    let lmdb: LmdbModule | undefined;
    try {
      lmdb = loadLmdb();
    } catch (err) {
      // No prebuilt binary for this platform, say: the scan goes on, every file checked.
      options.warn(`the scan cache cannot be used: the lmdb package did not load (${(err as Error).message.split('\n')[0]}); this scan runs without it.`);
    }
    const cache = new ScanCache(lmdb, options);
    if (lmdb) {
      process.on('unhandledRejection', cache.onStrayRejection);
      process.on('rejectionHandled', cache.onLateHandler);
      cache.db = cache.openStore();
    }
    return cache;
  }

  /**
   * When a commit fails (a full disk, say), lmdb-js also rejects a promise of its own that
   * nothing can handle, and Node ends the process on it. While the cache is open, such a
   * rejection is this cache's failed write; any other is thrown, as Node would have.
   */
  private readonly onStrayRejection = (reason: unknown, promise: Promise<unknown>): void => {
    if (commitErrors.has(promise)) {
      strays.add(promise);
      return;
    }
    if (!(reason instanceof Error && 'commitError' in reason)) throw reason;
    strays.add(promise);
    this.writeFailed(reason);
  };
  /**
   * lmdb-js's close() waits on the failed commit's promise, which handles its rejection late:
   * Node warns about that on stderr unless someone listens. Others' late handlers still warn.
   */
  private readonly onLateHandler = (promise: Promise<unknown>): void => {
    if (!strays.has(promise)) process.emitWarning('Promise rejection was handled asynchronously', 'PromiseRejectionHandledWarning');
  };

  private openStore(): RootDatabase | undefined {
    const { dir } = this.options;
    const file = join(dir, DATA_FILE);
    // A scan making the cache right now has a file whose header LMDB has not written yet (it
    // does that under its lock, which this check does not take): a header that looks damaged is
    // looked at again a little later before the cache is moved aside.
    let problem = validateDataFile(file);
    for (let retry = 0; problem && retry < 3; retry++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      problem = validateDataFile(file);
    }
    if (problem) return this.recover(problem);
    let db: RootDatabase;
    try {
      db = this.openAt(file);
    } catch (err) {
      return this.recover((err as Error).message);
    }
    try {
      problem = checkUnlessSealed(dir, db);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (!problem) return db;
    try {
      void db.close().catch(() => {});
    } catch {
      // closing a damaged store may fail too
    }
    return this.recover(problem);
  }

  private openAt(file: string): RootDatabase {
    mkdirSync(this.options.dir, { recursive: true });
    // txnStartThreshold is an lmdb-js option its type declarations leave out.
    const options: import('lmdb').RootDatabaseOptionsWithPath & { txnStartThreshold: number } = {
      path: file,
      encoding: 'binary',
      keyEncoding: 'binary',
      // Address space reserved up front (the file grows only with its data): lmdb-js would
      // otherwise start at 128 kB and grow the map again and again during a first scan, each
      // growth a remap that every other process on the cache must follow. 16 GiB, or 4x the bound.
      mapSize: Math.max(2 ** 34, 4 * this.maxBytes),
      // Plain LMDB commits (the commit returns once synced), not lmdb-js's overlapping syncs:
      // fewer moving parts with two processes on one file.
      overlappingSync: false,
      // Puts of 50 ms (or 1,000 puts) go in one transaction. By default lmdb-js commits every
      // turn of the event loop, and once 5 puts wait for a commit, it starts one at each put:
      // with a sync per commit, that was 7 % of the main thread in a first scan.
      commitDelay: 50,
      txnStartThreshold: 1000,
    };
    const db = this.lmdb!.open<Buffer, Buffer>(options) as RootDatabase;
    this.openedFile = inodeOf(file);
    return db;
  }

  /** Reports the damage once, moves the cache folder aside and opens a new one. */
  private recover(why: string): RootDatabase | undefined {
    const { dir } = this.options;
    if (this.damaged) return undefined;
    this.damaged = true;
    const aside = `${dir}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
    try {
      renameSync(dir, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.options.warn(`the scan cache in ${dir} cannot be used (${why}) nor moved aside (${(err as Error).message}); this scan runs without it.`);
        return undefined;
      }
    }
    try {
      const db = this.openAt(join(dir, DATA_FILE));
      this.options.warn(`the scan cache in ${dir} was damaged (${why}); moved to ${aside} and started again.`);
      return db;
    } catch (err) {
      this.options.warn(`the scan cache in ${dir} cannot be used (${why}; then: ${(err as Error).message}); this scan runs without it.`);
      return undefined;
    }
  }

  /** A read failed inside LMDB: the store is damaged; carry on with a new one. */
  private failed(err: unknown): void {
    const old = this.db;
    this.db = undefined;
    try {
      void old?.close();
    } catch {
      // closing a broken store may fail too
    }
    this.db = this.recover((err as Error).message);
  }

  private keyOf(identity: FileIdentity): Buffer {
    identity.copy(this.key, SCOPE_BYTES, 0, 16); // device and inode
    return this.key;
  }

  /**
   * The identity of the file at `path` now, or undefined when it cannot be stat'ed. Bytes for a
   * path that is not valid UTF-8: the key is the file's identity, never its path.
   */
  identify(path: string | Buffer): FileIdentity | undefined {
    try {
      const st = statSync(path, { bigint: true, throwIfNoEntry: false });
      return st && st.isFile() ? identityOf(st) : undefined;
    } catch {
      return undefined; // not a folder on the way, no permission, ...: the checker reports it
    }
  }

  /** The stored result of this very file (same identity, same scope), or undefined. */
  get(identity: FileIdentity): CachedHit | undefined {
    const db = this.db;
    if (!db) return undefined;
    let value: Buffer | undefined;
    try {
      // getBinary copies the value. getBinaryFast (a view of lmdb-js's shared read buffer) gives,
      // on Node 24, a Buffer whose reads go wrong (a copy of it throws "offset is out of
      // bounds"), so every lookup missed there; a copy costs little beside the JSON parse.
      value = db.getBinary(this.keyOf(identity));
    } catch (err) {
      this.failed(err);
      return undefined;
    }
    if (!value || value.length < PAYLOAD_AT) return undefined;
    if (value.compare(identity, 0, IDENTITY_BYTES, IDENTITY_AT, PAYLOAD_AT) !== 0) return undefined;
    if (crc32(value.subarray(IDENTITY_AT), this.scopeCrc) !== value.readUInt32LE(CRC_AT)) return undefined;
    let found: CachedHit;
    try {
      const text = value.toString('utf8', PAYLOAD_AT);
      const split = text.indexOf('\n');
      const meta = JSON.parse(text.slice(0, split)) as Omit<CachedCheck, 'result'>;
      const resultJson = text.slice(split + 1);
      found = { ...meta, result: JSON.parse(resultJson) as DetectionResult };
      if (resultJson.startsWith(RESULT_JSON_HEAD) && resultJson.endsWith(RESULT_JSON_TAIL)) found.resultJson = resultJson;
    } catch {
      return undefined;
    }
    const usedAt = value.readDoubleLE(USED_AT);
    if (!(this.startedAt - usedAt < TOUCH_EVERY_MS)) this.write(identity, value.subarray(IDENTITY_AT), this.startedAt);
    this.hits++;
    return found;
  }

  /** Stores a file's result, unless its modification time is too recent to trust (RACY_MS). */
  put(identity: FileIdentity, check: CachedCheck): boolean {
    if (!this.db || this.writesFailed || mtimeMsOf(identity) >= this.startedAt - RACY_MS) return false;
    const { result, ...meta } = check;
    const payload = Buffer.from(`${JSON.stringify(meta)}\n${JSON.stringify({ ...result, id: RESULT_ID_PLACEHOLDER, duration_ms: 0 })}`);
    const body = Buffer.allocUnsafe(IDENTITY_BYTES + payload.length);
    identity.copy(body, 0);
    payload.copy(body, IDENTITY_BYTES);
    this.write(identity, body, this.startedAt);
    this.stored++;
    return true;
  }

  /** Writes one entry: `body` is identity + payload; the write is committed in the background. */
  private write(identity: FileIdentity, body: Buffer, usedAt: number): void {
    if (this.writesFailed) return;
    const key = Buffer.from(this.keyOf(identity));
    const value = Buffer.allocUnsafe(IDENTITY_AT + body.length);
    value.writeDoubleLE(usedAt, USED_AT);
    value.writeUInt32LE(crc32(body, this.scopeCrc), CRC_AT);
    body.copy(value, IDENTITY_AT);
    try {
      // put() batches writes into one transaction per turn of the event loop.
      this.db!.put(key, value).catch((err: unknown) => this.writeFailed(err));
    } catch (err) {
      this.writeFailed(err);
    }
  }

  /**
   * A failed write says nothing of the entries already there (the disk may be full): reported
   * once, and this run stores nothing more; what it reads from the cache stays right.
   */
  private writeFailed(err: unknown): void {
    // lmdb-js rejects each waiting put with an error whose `commitError` promise it rejects with
    // the cause right after, with no handler: onStrayRejection lets that one pass. (A handler
    // attached here would come too late for Node, which then warns on stderr.)
    const commitError = (err as { commitError?: unknown } | undefined)?.commitError;
    if (commitError instanceof Promise) commitErrors.add(commitError);
    if (this.writesFailed) return;
    this.writesFailed = true;
    this.options.warn(`the scan cache in ${this.options.dir} could not be written (${(err as Error).message}); this scan's results are not stored.`);
  }

  /** Waits for the writes, prunes when over the bound, and closes the store. */
  async close(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    try {
      if (!db) return;
      if (!this.writesFailed) {
        await db.flushed;
        await pruneOldest(db, this.maxBytes);
      }
      await db.close();
      // Closed cleanly: the file is as LMDB left it, and the next scan need not check it whole.
      // Unless it is no longer the file this store had open (another scan moved it aside), or a
      // write failed: a full disk, or damage only a write meets (the free-page lists); the next
      // scan checks the file whole and knows which.
      const { dir } = this.options;
      const file = join(dir, DATA_FILE);
      if (!this.writesFailed && this.openedFile !== undefined && inodeOf(file) === this.openedFile) seal(dir, file);
    } catch (err) {
      this.writeFailed(err);
    } finally {
      // Late: Node tells of rejections handled late after this turn's promises have settled.
      setImmediate(() => {
        process.off('unhandledRejection', this.onStrayRejection);
        process.off('rejectionHandled', this.onLateHandler);
      });
    }
  }
}

/** Bytes of data pages in use and entries. */
function usage(db: Database | RootDatabase): { bytes: number; entries: number } {
  const s = db.getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number; entryCount: number };
  return { bytes: (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize, entries: s.entryCount };
}

/**
 * Over the bound: removes the entries used longest ago, as many as should bring the data to
 * PRUNE_TO of the bound (estimated from the average entry's share of the pages in use).
 */
async function pruneOldest(db: RootDatabase, maxBytes: number): Promise<number> {
  const { bytes, entries } = usage(db);
  if (bytes <= maxBytes || entries === 0) return 0;
  const perEntry = bytes / entries;
  const remove = Math.min(entries, Math.ceil((bytes - maxBytes * PRUNE_TO) / perEntry));
  const all: { usedAt: number; key: Buffer }[] = [];
  for (const { key, value } of db.getRange({})) {
    all.push({ usedAt: value.length >= 8 ? value.readDoubleLE(USED_AT) : 0, key: Buffer.from(key) });
  }
  all.sort((a, b) => a.usedAt - b.usedAt);
  for (const { key } of all.slice(0, remove)) void db.remove(key);
  await db.flushed;
  return remove;
}

export interface ScanCacheStats {
  dir: string;
  exists: boolean;
  entries: number;
  /** Data pages in use, bytes (what the size bound counts). */
  data_bytes: number;
  /** The data file's size on disk (LMDB reuses freed pages; the file does not shrink). */
  file_bytes: number;
  /** When the least and most recently used entries were last used (ISO 8601), if any. */
  oldest_use?: string;
  newest_use?: string;
}

export async function scanCacheStats(dir: string): Promise<ScanCacheStats> {
  const file = join(dir, DATA_FILE);
  let fileBytes: number;
  try {
    fileBytes = statSync(file).size;
  } catch {
    return { dir, exists: false, entries: 0, data_bytes: 0, file_bytes: 0 };
  }
  const damaged = (problem: string) => new Error(`the scan cache in ${dir} is damaged (${problem}); \`provenance cache scan clear\` removes it.`);
  const head = dataFileHead(file);
  if (typeof head === 'string') throw damaged(head);
  const lmdb = loadLmdb();
  const db = lmdb.open<Buffer, Buffer>({ path: file, encoding: 'binary', keyEncoding: 'binary', readOnly: true }) as RootDatabase;
  try {
    // Every entry is read below: LMDB must not meet a damaged page.
    const problem = checkUnlessSealed(dir, db);
    if (problem) throw damaged(problem);
    const { bytes, entries } = usage(db);
    let oldest = Infinity;
    let newest = -Infinity;
    for (const { value } of db.getRange({})) {
      if (value.length < 8) continue;
      const t = value.readDoubleLE(USED_AT);
      if (t < oldest) oldest = t;
      if (t > newest) newest = t;
    }
    seal(dir, file); // every page was read: sound (the seal was taken, or the file checked whole)
    return {
      dir,
      exists: true,
      entries,
      data_bytes: bytes,
      file_bytes: fileBytes,
      ...(entries && Number.isFinite(oldest) ? { oldest_use: new Date(oldest).toISOString(), newest_use: new Date(newest).toISOString() } : {}),
    };
  } finally {
    await db.close();
  }
}

/** Removes the scan cache (and caches moved aside as damaged); says how many entries it held. */
export async function clearScanCache(dir: string): Promise<{ entries: number; bytes: number; aside: number }> {
  // The count from the header alone: LMDB is not opened on a cache about to go, which may be
  // damaged (a damaged one is removed all the same, its count 0).
  const head = dataFileHead(join(dir, DATA_FILE));
  const entries = head && typeof head !== 'string' ? head.main.entries : 0;
  const bytes = head && typeof head !== 'string' ? head.size : 0;
  rmSync(dir, { recursive: true, force: true });
  // Caches moved aside as damaged (ScanCache.recover) are siblings named after this folder.
  const parent = dirname(dir);
  const prefix = `${basename(dir)}.damaged-`;
  let aside: string[] = [];
  try {
    aside = readdirSync(parent).filter((name) => name.startsWith(prefix));
  } catch {
    // no parent folder: nothing was ever cached
  }
  for (const name of aside) rmSync(join(parent, name), { recursive: true, force: true });
  return { entries, bytes, aside: aside.length };
}
