// Uploaded files (CONTRACT "Keys, accounts, uploads"): streamed to the data dir's uploads
// folder under a temp name, hashed on the way, then recorded in the store, which takes the
// complete file over (the embedded store renames it in place; PostgreSQL keeps the bytes in the
// database, where every daemon reaches them). An upload is found only by its own account and only until it expires; a missing,
// expired or foreign id look the same to the caller (404), so ids cannot be probed.
//
// Storage is bounded (issue 26): each account's live uploads by count and bytes (upload-caps.ts),
// and the disk by a free-space floor (disk-floor.ts). Both are looked at before a byte is read
// and checked again when the upload is recorded; a refused upload leaves nothing behind.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { sniffMediaType } from '../../media/sniff.js';
import type { UploadRecord } from '../contract/api-types.js';
import { ApiError } from '../contract/errors.js';
import { newId } from '../accounts/key-format.js';
import { REMOTE_MAX_BYTES, STORAGE_FLOOR_BYTES, tooLargeMessage, UPLOAD_BYTES_PER_ACCOUNT, UPLOADS_PER_ACCOUNT } from '../contract/limits.js';
import { StoreUnavailableError, type Store, type StoredUpload } from '../store/store.js';
import { UPLOADS_DIR } from '../store/upload-files.js';
import type { Clock } from '../contract/time.js';
import { failIfFaulted, type WriteFaults } from '../store/write-faults.js';
import { DiskFloor } from './disk-floor.js';
import { UploadCaps } from './upload-caps.js';

/** Bytes sniffed without reading the file back (ISO BMFF types need the whole file, see save). */
const HEAD_BYTES = 64 * 1024;

/** The operator's bounds on upload storage (`daemon start` flags); defaults in contract/limits.ts. */
export interface UploadLimits {
  /** Live uploads per account (default 100). */
  perAccount?: number;
  /** Bytes of live uploads per account (default 1 GiB). */
  bytesPerAccount?: number;
  /** Free space every upload must leave on the data dir's disk (default 1 GiB; 0: no floor). */
  storageFloorBytes?: number;
}

/** How one file is read by `receive`. */
export interface ReceiveOptions {
  /** The cap, enforced while streaming (default 25 MB). */
  maxBytes?: number;
  /** The 400's message and param for a file of zero bytes. */
  emptyMessage?: string;
  emptyParam?: string;
  /**
   * What the request says of the file's size before it is read: `exact` (a raw body's
   * Content-Length) and the `most` it can be (a multipart body's Content-Length). The bounds
   * refuse with them before streaming; the bytes actually read are checked again at the end.
   */
  announced?: { exact?: number; most?: number };
}

/** A file on disk under its temp name, not recorded yet (Uploads.receive). */
export interface ReceivedUpload {
  partial: string;
  upload: Omit<StoredUpload, 'created_at' | 'expires_at'>;
}

export class Uploads {
  readonly dir: string;
  private readonly caps: UploadCaps;
  private readonly floor: DiskFloor;

  constructor(
    dataDir: string,
    private readonly store: Store,
    private readonly now: Clock,
    private readonly ttlMs: number,
    limits: UploadLimits = {},
    /** Tests only: makes the upload's bytes fail to be written (write-faults.ts). */
    private readonly faults?: WriteFaults,
  ) {
    this.dir = join(dataDir, UPLOADS_DIR);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.caps = new UploadCaps(store, now, { maxCount: limits.perAccount ?? UPLOADS_PER_ACCOUNT, maxBytes: limits.bytesPerAccount ?? UPLOAD_BYTES_PER_ACCOUNT });
    this.floor = new DiskFloor(this.dir, limits.storageFloorBytes ?? STORAGE_FLOOR_BYTES);
  }

  /** Streams one file to disk and records it: `receive` then `keep`. */
  async save(accountId: string, source: Readable, options: ReceiveOptions = {}): Promise<UploadRecord> {
    return this.keep(await this.receive(accountId, source, options));
  }

  /**
   * Streams one file to disk with the 25 MB cap enforced while streaming, under a temp name: no
   * record yet, so nothing can see the upload until `keep` (or it goes with `drop`). A multipart
   * request's file is complete before its body is (other parts, the closing boundary), and is
   * kept only once the whole body has arrived. Refused before a byte is read when the account's
   * caps or the disk's floor leave no room for it (429 upload_limit_exceeded, 503 storage_full).
   */
  async receive(accountId: string, source: Readable, options: ReceiveOptions = {}): Promise<ReceivedUpload> {
    const { maxBytes = REMOTE_MAX_BYTES, emptyMessage = 'The upload is empty.', emptyParam, announced = {} } = options;
    await this.caps.precheck(accountId, announced.exact);
    // Room on the disk for as much as the upload may write, given back as it is written.
    const room = await this.floor.reserve(Math.min(announced.exact ?? announced.most ?? maxBytes, maxBytes));
    const id = newId('upl');
    const partial = join(this.dir, `${id}.part`);
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headBytes = 0;
    let total = 0;
    const faults = this.faults;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        try {
          failIfFaulted(faults, 'upload');
        } catch (err) {
          return done(err as Error);
        }
        total += chunk.length;
        if (total > maxBytes) return done(new ApiError('media_too_large', tooLargeMessage(maxBytes, 'upload')));
        room.wrote(chunk.length);
        hash.update(chunk);
        if (headBytes < HEAD_BYTES) {
          head.push(chunk.subarray(0, HEAD_BYTES - headBytes));
          headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes);
        }
        done(null, chunk);
      },
    });
    try {
      await pipeline(chunksOf(source), meter, createWriteStream(partial, { mode: 0o600 }));
      if (total === 0) throw new ApiError('invalid_request', emptyMessage, emptyParam);
      let type = await sniffMediaType(Buffer.concat(head));
      if (type === 'video/mp4' || type === 'audio/mp4') {
        // Whether an MP4 is audio-only is decided from its moov box, which may sit at the end.
        type = await sniffMediaType(await readFile(partial));
      }
      return { partial, upload: { id, account: accountId, bytes: total, sha256: hash.digest('hex'), type, file: id } };
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    } finally {
      // Whatever was written is on the disk now, where the free space counts it.
      room.release();
    }
  }

  /** Records a received upload (its lifetime starts now) and hands its bytes to the store. */
  async keep({ partial, upload }: ReceivedUpload): Promise<UploadRecord> {
    const created = this.now();
    const stored: StoredUpload = {
      ...upload,
      created_at: created.toISOString(),
      expires_at: new Date(created.getTime() + this.ttlMs).toISOString(),
    };
    // Recorded whole or not at all: should the bytes or the record fail to be stored (a full or
    // failing disk, the database gone), the record and the bytes are removed again, the caller
    // gets the error (a 500), and no id is ever handed out for an upload that is not there.
    // Past the disk's floor or the account's caps (the exact, atomic check), nothing is recorded.
    let inserted = false;
    try {
      await this.floor.check();
      await this.caps.insert(stored);
      inserted = true;
      await this.store.putUploadBytes(stored.id, partial);
      await this.store.commit();
    } catch (err) {
      if (inserted) {
        const cleanup = (async () => {
          await this.store.deleteUpload(stored.id).catch(() => undefined);
          await this.store.deleteUploadBytes(stored).catch(() => undefined);
        })();
        // A database that did not answer is not waited for a second time (the 500 would come
        // only after two timeouts): the clean-up goes on behind the answer, and a record it
        // cannot remove has no bytes, was never handed out, and is swept when it expires.
        if (!(err instanceof StoreUnavailableError)) await cleanup;
      }
      throw err;
    } finally {
      await rm(partial, { force: true });
    }
    return toRecord(stored);
  }

  /** Forgets a received upload whose request turned out invalid after all (uploads route). */
  async drop({ partial }: ReceivedUpload): Promise<void> {
    await rm(partial, { force: true });
  }

  /**
   * The record of `id` if it is a live upload of this account; else undefined. Its size lets a
   * caller take the media budget before `readBytes` brings the file into memory.
   */
  async find(id: string, accountId: string): Promise<StoredUpload | undefined> {
    const upload = await this.store.uploadById(id);
    return !upload || upload.account !== accountId || this.expired(upload) ? undefined : upload;
  }

  /** The bytes of an upload `find` returned; undefined if they are gone (swept since). */
  readBytes(upload: StoredUpload): Promise<Uint8Array | undefined> {
    return this.store.readUploadBytes(upload);
  }

  /** Deletes expired uploads, and files here no record points to (left by a crash mid-upload). */
  async sweep(): Promise<number> {
    const expired = await this.store.takeExpiredUploads(this.now().getTime());
    for (const upload of expired) await this.store.deleteUploadBytes(upload);
    const removed = expired.length;
    const known = await this.store.uploadFiles();
    for (const name of readdirSync(this.dir)) {
      if (known.has(name)) continue;
      // A .part of an upload still streaming is young; only crash leftovers are old. File times
      // are real time, so they are compared with the real clock, not the injectable one.
      const stat = statSync(join(this.dir, name), { throwIfNoEntry: false });
      if (stat && Date.now() - stat.mtimeMs > 60 * 60 * 1000) rmSync(join(this.dir, name), { force: true });
    }
    if (removed) await this.store.commit();
    return removed;
  }

  private expired(upload: StoredUpload): boolean {
    return Date.parse(upload.expires_at) <= this.now().getTime();
  }
}

/**
 * The stream's chunks, read through its async iterator rather than piped. @fastify/multipart
 * destroys the current file stream (without an error) when busboy reports a form that ends
 * without its closing boundary; if that lands after the file's last chunk was pushed but before
 * its 'end' was emitted, `pipeline(stream, ...)` takes the source for finished yet never ends
 * the next stream, and the upload hangs (the fuzz suite found it). The iterator ends there, with
 * every byte read, and throws for a stream destroyed before its end.
 */
async function* chunksOf(source: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of source) yield chunk as Buffer;
}

function toRecord({ id, bytes, sha256, type, created_at, expires_at }: StoredUpload): UploadRecord {
  return { id, bytes, sha256, type, created_at, expires_at };
}
