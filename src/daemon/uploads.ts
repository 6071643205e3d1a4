// Uploaded files (CONTRACT "Keys, accounts, uploads"): streamed to the data dir's uploads
// folder under a temp name, hashed on the way, renamed when complete, then recorded in the
// store. An upload is found only by its own account and only until it expires; a missing,
// expired or foreign id look the same to the caller (404), so ids cannot be probed.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { sniffMediaType } from '../engine/sniff.js';
import type { UploadRecord } from './api-types.js';
import { ApiError } from './errors.js';
import { newId } from './key-format.js';
import { REMOTE_MAX_BYTES, tooLargeMessage } from './limits.js';
import type { Store, StoredUpload } from './store.js';
import type { Clock } from './time.js';

/** Bytes sniffed without reading the file back (ISO BMFF types need the whole file, see save). */
const HEAD_BYTES = 64 * 1024;

export class Uploads {
  readonly dir: string;

  constructor(
    dataDir: string,
    private readonly store: Store,
    private readonly now: Clock,
    private readonly ttlMs: number,
  ) {
    this.dir = join(dataDir, 'uploads');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /** Streams one file to disk with the 25 MB cap enforced while streaming. */
  async save(accountId: string, source: Readable, maxBytes = REMOTE_MAX_BYTES, emptyMessage = 'The upload is empty.'): Promise<UploadRecord> {
    const id = newId('upl');
    const partial = join(this.dir, `${id}.part`);
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let headBytes = 0;
    let total = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        if (total > maxBytes) return done(new ApiError('media_too_large', tooLargeMessage(maxBytes, 'upload')));
        hash.update(chunk);
        if (headBytes < HEAD_BYTES) {
          head.push(chunk.subarray(0, HEAD_BYTES - headBytes));
          headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes);
        }
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(partial, { mode: 0o600 }));
      if (total === 0) throw new ApiError('invalid_request', emptyMessage);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    let type = await sniffMediaType(Buffer.concat(head));
    if (type === 'video/mp4' || type === 'audio/mp4') {
      // Whether an MP4 is audio-only is decided from its moov box, which may sit at the end.
      type = await sniffMediaType(await readFile(partial));
    }
    await rename(partial, join(this.dir, id));
    const created = this.now();
    const stored: StoredUpload = {
      id,
      account: accountId,
      bytes: total,
      sha256: hash.digest('hex'),
      type,
      created_at: created.toISOString(),
      expires_at: new Date(created.getTime() + this.ttlMs).toISOString(),
      file: id,
    };
    this.store.data.uploads[id] = stored;
    await this.store.commit();
    return toRecord(stored);
  }

  /** The upload's bytes, if `id` is a live upload of this account; else undefined. */
  async read(id: string, accountId: string): Promise<Uint8Array | undefined> {
    const upload = this.store.data.uploads[id];
    if (!upload || upload.account !== accountId || this.expired(upload)) return undefined;
    try {
      return await readFile(join(this.dir, upload.file));
    } catch {
      return undefined;
    }
  }

  /** Deletes expired uploads, and files no record points to (left by a crash mid-upload). */
  async sweep(): Promise<number> {
    let removed = 0;
    for (const upload of Object.values(this.store.data.uploads)) {
      if (!this.expired(upload)) continue;
      delete this.store.data.uploads[upload.id];
      await rm(join(this.dir, upload.file), { force: true });
      removed++;
    }
    const known = new Set(Object.values(this.store.data.uploads).map((u) => u.file));
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

function toRecord({ id, bytes, sha256, type, created_at, expires_at }: StoredUpload): UploadRecord {
  return { id, bytes, sha256, type, created_at, expires_at };
}
