// The library's client on the upload-storage refusals (issue 26): a 429 upload_limit_exceeded
// is thrown at once as UploadLimitExceededError, not waited out like rate_limited (its
// Retry-After is the hours until the account's oldest upload expires), and a 503 storage_full
// is a StorageFullError. Against the real daemon on 127.0.0.1; files over 4 MB go as uploads.
import { describe, expect, it } from 'vitest';
import { ProvenanceClient, RateLimitedError, StorageFullError, UploadLimitExceededError } from '../../src/index.js';
import { tinyJpeg } from '../fixtures/make.js';
import { listen, makeApp } from '../daemon/helpers.js';

/** A 5 MB file (a JPEG at its start): over the 4 MB inline limit, so the client uploads it first. */
function bigFile(): Uint8Array {
  const bytes = new Uint8Array(5 * 1024 * 1024);
  bytes.set(tinyJpeg());
  return bytes;
}

describe('ProvenanceClient and the upload bounds', () => {
  it('upload_limit_exceeded: UploadLimitExceededError at once, with Retry-After, no rate-limit wait', async () => {
    const t = await makeApp({ uploadLimits: { perAccount: 1 } });
    try {
      const base = await listen(t.app);
      const { key } = await t.account('client-bounds', 'growth');
      const waits: number[] = [];
      const client = new ProvenanceClient({ apiKey: key, baseUrl: base, onRateLimited: (s) => waits.push(s) });
      expect((await client.detect({ bytes: bigFile(), checks: ['c2pa'] })).media.bytes).toBe(5 * 1024 * 1024);
      const started = Date.now();
      const err = await client.detect({ bytes: bigFile(), checks: ['c2pa'] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UploadLimitExceededError);
      expect(err).not.toBeInstanceOf(RateLimitedError);
      expect(err).toMatchObject({ status: 429, type: 'upload_limit_exceeded', retryAfter: 86_400 });
      expect(waits).toEqual([]);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await t.close();
    }
  });

  it('storage_full: StorageFullError', async () => {
    const t = await makeApp({ uploadLimits: { storageFloorBytes: Number.MAX_SAFE_INTEGER } });
    try {
      const base = await listen(t.app);
      const { key } = await t.account('client-full', 'growth');
      const client = new ProvenanceClient({ apiKey: key, baseUrl: base });
      const err = await client.detect({ bytes: bigFile() }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StorageFullError);
      expect(err).toMatchObject({ status: 503, type: 'storage_full', retryAfter: 600 });
    } finally {
      await t.close();
    }
  });
});
