// `daemon start --max-uploads-per-account N --max-upload-bytes-per-account SIZE --storage-floor SIZE`:
// the bounds on upload storage (CONTRACT "Keys, accounts, uploads"; daemon/media/upload-caps.ts
// and disk-floor.ts), read from their flags' text before anything starts.
import { parseByteSize } from '../daemon/contract/byte-size.js';
import type { UploadLimits } from '../daemon/media/uploads.js';

export interface UploadLimitFlags {
  maxUploadsPerAccount?: string;
  maxUploadBytesPerAccount?: string;
  storageFloor?: string;
}

/** The flags' limits; a RangeError whose message names the flag and an example when one is not usable. */
export function parseUploadLimitFlags(flags: UploadLimitFlags): UploadLimits {
  const limits: UploadLimits = {};
  if (flags.maxUploadsPerAccount !== undefined) {
    const text = flags.maxUploadsPerAccount;
    const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
    if (!(Number.isSafeInteger(n) && n >= 1)) throw new RangeError(`--max-uploads-per-account must be a whole number of 1 or more, e.g. 100, not "${text}"`);
    limits.perAccount = n;
  }
  if (flags.maxUploadBytesPerAccount !== undefined) {
    const text = flags.maxUploadBytesPerAccount;
    const bytes = parseByteSize(text);
    if (bytes === undefined || bytes < 1) throw new RangeError(`--max-upload-bytes-per-account must be a size of 1 byte or more, e.g. 1GiB, 500MB or 1073741824 (bytes), not "${text}"`);
    limits.bytesPerAccount = bytes;
  }
  if (flags.storageFloor !== undefined) {
    const text = flags.storageFloor;
    const bytes = parseByteSize(text);
    if (bytes === undefined) throw new RangeError(`--storage-floor must be a size, e.g. 1GiB, 500MB, 1073741824 (bytes) or 0 (no floor), not "${text}"`);
    limits.storageFloorBytes = bytes;
  }
  return limits;
}
