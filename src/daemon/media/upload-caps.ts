// What one account may keep in uploads (CONTRACT "Keys, accounts, uploads": at most 100 live
// uploads and 1 GiB of them by default; past either, 429 upload_limit_exceeded with Retry-After
// until the account's oldest live upload expires). Uploads are free and live 24 hours, so without
// this one key could fill the disk (issue 26).
//
// Checked twice. Before the body is read, a look at the account's live uploads refuses a request
// that cannot fit, so a key at its limit does not stream 25 MB first. That look reserves nothing:
// the exact check is the store's, counting and recording in one atomic step when the upload is
// kept (Store.insertUpload), so concurrent uploads, through any number of daemons on one
// database, never pass the caps together.
import { ApiError } from '../contract/errors.js';
import { formatByteSize } from '../contract/byte-size.js';
import type { Clock } from '../contract/time.js';
import { exceedsUploadCaps, type LiveUploads, type Store, type StoredUpload } from '../store/store.js';

export interface UploadCapsOptions {
  /** Live uploads an account may keep (default UPLOADS_PER_ACCOUNT). */
  maxCount: number;
  /** Bytes of live uploads an account may keep (default UPLOAD_BYTES_PER_ACCOUNT). */
  maxBytes: number;
}

export class UploadCaps {
  readonly maxCount: number;
  readonly maxBytes: number;

  constructor(
    private readonly store: Store,
    private readonly now: Clock,
    { maxCount, maxBytes }: UploadCapsOptions,
  ) {
    if (!(Number.isSafeInteger(maxCount) && maxCount >= 1)) throw new RangeError(`uploads per account: must be a whole number of 1 or more, not ${maxCount}`);
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 1)) throw new RangeError(`upload bytes per account: must be a whole number of 1 or more, not ${maxBytes}`);
    this.maxCount = maxCount;
    this.maxBytes = maxBytes;
  }

  /**
   * Before an upload streams: refuses it when the account keeps as many uploads as it may, or
   * when its live bytes and `bytes` (the file's size, when the request states it; else at least
   * one byte) pass the cap. A file larger than the whole cap could never be kept: 413, not a wait.
   */
  async precheck(accountId: string, bytes?: number): Promise<void> {
    if (bytes !== undefined) this.refuseAlwaysTooLarge(bytes);
    const nowMs = this.now().getTime();
    const live = await this.store.liveUploads(accountId, nowMs);
    if (exceedsUploadCaps(live, bytes ?? 1, this)) throw this.refusal(live, bytes);
  }

  /** Records an upload within the caps, counted and added atomically by the store; 429 when past them. */
  async insert(upload: StoredUpload): Promise<void> {
    this.refuseAlwaysTooLarge(upload.bytes);
    const nowMs = this.now().getTime();
    const admission = await this.store.insertUpload(upload, { maxCount: this.maxCount, maxBytes: this.maxBytes, nowMs });
    if (!admission.stored) throw this.refusal(admission.live, upload.bytes);
  }

  private refuseAlwaysTooLarge(bytes: number): void {
    if (bytes > this.maxBytes) {
      throw new ApiError('media_too_large', `The file is larger than the ${formatByteSize(this.maxBytes)} an account may keep in uploads (1 MB = 1,048,576 bytes); send a smaller file.`);
    }
  }

  private refusal(live: LiveUploads, bytes: number | undefined): ApiError {
    // A refused upload has at least one live upload before it (a file over the whole cap is a
    // 413 above), so there is an oldest to wait for. The wait is counted from the clock read after
    // the store answered: an upload another request began after this one's check started can be
    // among the live ones, and counting from the earlier reading said 86401 s for a 24 h upload.
    const nowMs = this.now().getTime();
    const retryAfter = Math.max(1, Math.ceil(((live.oldestExpiresMs ?? nowMs) - nowMs) / 1000));
    const what =
      live.count + 1 > this.maxCount
        ? `This account keeps ${live.count} live upload${live.count === 1 ? '' : 's'}, the most it may (${this.maxCount})`
        : `This account's live uploads hold ${formatByteSize(live.bytes)} of the ${formatByteSize(this.maxBytes)} it may keep, ${bytes === undefined ? 'no room for another file' : `and this file (${formatByteSize(bytes)}) does not fit`}`;
    return new ApiError(
      'upload_limit_exceeded',
      `${what}; nothing was stored. Retry in ${retryAfter} s, when its oldest upload expires, detect with an upload already made, or send files up to 4 MB inline.`,
      undefined,
      retryAfter,
    );
  }
}
