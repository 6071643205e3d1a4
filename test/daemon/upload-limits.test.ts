// Upload storage is bounded (CONTRACT "Keys, accounts, uploads", changed 2026-11-25; issue 26):
// per account at most 100 live uploads and 1 GiB of them (operator flags change both), past
// either 429 upload_limit_exceeded with Retry-After until the oldest live upload expires; and a
// free-space floor on the data dir's disk, under which 503 storage_full. Nothing is stored on a
// refusal, not even a temp file. Real HTTP on 127.0.0.1; run on both stores (vitest.config.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type ClientRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseUploadLimitFlags } from '../../src/commands/daemon-upload-flags.js';
import { runDaemonStart } from '../../src/commands/daemon.js';
import { tinyJpeg } from '../fixtures/make.js';
import { expectError, http, listen, makeApp, storeKind, tempDir, testClock, type TestApp, type TestClock } from './helpers.js';
import { sendUntilAnswered } from './raw-http.js';
import type { AppOptions } from '../../src/daemon/http/app.js';

const KB = 1024;
const MB = 1024 * KB;
const HOUR = 3600 * 1000;
const jpeg = tinyJpeg();

/** A file of `n` bytes (a JPEG at its start, so it is a picture like any other). */
function file(n: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(n);
  bytes.set(jpeg.subarray(0, Math.min(n, jpeg.length)));
  return bytes;
}

const raw = (base: string, key: string, bytes: Uint8Array<ArrayBuffer>) => http(base, 'POST', '/v1/uploads', { key, body: bytes, headers: { 'content-type': 'application/octet-stream' } });

function multipart(base: string, key: string, bytes: Uint8Array<ArrayBuffer>) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'f.jpg');
  return http(base, 'POST', '/v1/uploads', { key, body: form });
}

interface Daemon {
  t: TestApp;
  base: string;
  clock: TestClock;
  /** The account's upload records as the store holds them (expired ones too, until swept). */
  records(accountId: string): Promise<{ id: string; bytes: number }[]>;
  /** What the uploads folder holds: the kept files (embedded store) and any temp file. */
  files(): string[];
}

async function daemon(options: Partial<AppOptions> = {}, dir?: string): Promise<Daemon> {
  const clock = testClock('2026-11-15T12:00:00Z');
  const t = await makeApp({ now: clock, ...options }, dir);
  const base = await listen(t.app);
  return {
    t,
    base,
    clock,
    records: async (accountId) => (await t.app.services.store.exportState()).uploads.filter((u) => u.account === accountId),
    files: () => readdirSync(t.app.services.uploads.dir),
  };
}

/** The files a daemon keeps for `n` stored uploads: one each on the embedded store, none on PostgreSQL (the bytes are rows). */
const keptFiles = (n: number) => (storeKind() === 'file' ? n : 0);

describe('uploads per account: count', () => {
  it('the 101st live upload is refused 429 upload_limit_exceeded, Retry-After until the oldest expires; nothing stored; expiry frees room', async () => {
    const d = await daemon();
    try {
      const { key, accountId } = await d.t.account('hundred');
      expect((await raw(d.base, key, file(100))).status).toBe(201);
      d.clock.advance(HOUR);
      for (let i = 1; i < 100; i++) expect((await raw(d.base, key, file(100 + i))).status).toBe(201);
      expect(await d.records(accountId)).toHaveLength(100);

      const refused = await raw(d.base, key, file(300));
      const error = expectError(refused, 429, 'upload_limit_exceeded');
      // The oldest was made at 12:00 and lives 24 h; it is 13:00.
      expect(refused.headers['retry-after']).toBe(String(23 * 3600));
      expect(error.message).toContain('100');
      expect(error.message).toContain(`${23 * 3600} s`);
      // Multipart alike (the count is known before its body is read).
      const refusedPart = await multipart(d.base, key, file(300));
      expectError(refusedPart, 429, 'upload_limit_exceeded');
      expect(refusedPart.headers['retry-after']).toBe(String(23 * 3600));
      expect(await d.records(accountId)).toHaveLength(100);
      expect(d.files()).toHaveLength(keptFiles(100));

      // Another account is not held back by this one.
      const other = await d.t.account('other');
      expect((await raw(d.base, other.key, file(100))).status).toBe(201);

      // The oldest expires (not swept yet): it no longer counts, one more fits, and the next
      // waits for the then oldest (made at 13:00).
      d.clock.advance(23 * HOUR);
      expect((await raw(d.base, key, file(400))).status).toBe(201);
      const again = await raw(d.base, key, file(400));
      expectError(again, 429, 'upload_limit_exceeded');
      expect(again.headers['retry-after']).toBe('3600');
    } finally {
      await d.t.close();
    }
  });

  it('an account at its count is answered before its body is read: a 25 MB upload is not streamed first', async () => {
    const d = await daemon({ uploadLimits: { perAccount: 1 } });
    try {
      const { key, accountId } = await d.t.account('early');
      expect((await raw(d.base, key, file(100))).status).toBe(201);
      const port = Number(new URL(d.base).port);
      const head = `POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${25 * MB}\r\n\r\n`;
      const answer = await sendUntilAnswered(port, head, (i) => (i < 400 ? Buffer.alloc(64 * KB, 1) : undefined));
      expect(answer.status).toBe(429);
      expect(JSON.parse(answer.body).error.type).toBe('upload_limit_exceeded');
      expect(answer.head).toMatch(/\r\nretry-after: 86400\r\n/i);
      // Refused from what was known at the start, not once 25 MB had arrived.
      expect(answer.sentWhenAnswered).toBeLessThan(20 * MB);
      expect(await d.records(accountId)).toHaveLength(1);
      expect(d.files()).toHaveLength(keptFiles(1));
    } finally {
      await d.t.close();
    }
  });

  it('12 parallel uploads with room for 3: exactly 3 are stored, 9 refused 429, no temp file left', async () => {
    const d = await daemon({ uploadLimits: { perAccount: 3 } });
    try {
      const { key, accountId } = await d.t.account('parallel');
      // Raw and multipart mixed: every one passes the look before streaming (none is recorded
      // yet); the store's atomic count at record time lets exactly 3 through.
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? multipart : raw)(d.base, key, file(50 * KB + i))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([...Array(3).fill(201), ...Array(9).fill(429)]);
      for (const r of results.filter((x) => x.status === 429)) {
        expectError(r, 429, 'upload_limit_exceeded');
        expect(r.headers['retry-after']).toBe('86400');
      }
      const records = await d.records(accountId);
      expect(records.map((u) => u.id).sort()).toEqual(results.filter((r) => r.status === 201).map((r) => r.body.id).sort());
      expect(d.files().sort()).toEqual(storeKind() === 'file' ? records.map((u) => u.id).sort() : []);
    } finally {
      await d.t.close();
    }
  });
});

describe('uploads per account: bytes', () => {
  it('past the byte cap: 429 with Retry-After until the oldest expires; a file that fits still goes; a file over the whole cap is 413', async () => {
    const d = await daemon({ uploadLimits: { perAccount: 3, bytesPerAccount: 1 * MB } });
    try {
      const { key, accountId } = await d.t.account('bytes');
      expect((await raw(d.base, key, file(400 * KB))).status).toBe(201);
      d.clock.advance(2 * HOUR);
      expect((await raw(d.base, key, file(400 * KB))).status).toBe(201);

      // 800 KB live: 400 KB more would pass 1 MB. Raw (its size is known before it is read) and
      // multipart (known only once read: refused when it would be recorded) alike.
      for (const send of [raw, multipart]) {
        const r = await send(d.base, key, file(400 * KB));
        const error = expectError(r, 429, 'upload_limit_exceeded');
        expect(r.headers['retry-after']).toBe(String(22 * 3600));
        expect(error.message).toContain('1 MB');
      }
      expect(await d.records(accountId)).toHaveLength(2);
      expect(d.files()).toHaveLength(keptFiles(2));

      // Exactly to the cap fits (the count too: the third of 3).
      expect((await raw(d.base, key, file(224 * KB))).status).toBe(201);
      expect((await d.records(accountId)).reduce((n, u) => n + u.bytes, 0)).toBe(1 * MB);

      // Larger than the whole cap: no wait would help, so 413, before or after its body is read.
      const other = await d.t.account('huge');
      expectError(await raw(d.base, other.key, file(2 * MB)), 413, 'media_too_large');
      expectError(await multipart(d.base, other.key, file(2 * MB)), 413, 'media_too_large');
      expect(await d.records(other.accountId)).toHaveLength(0);
      expect(d.files()).toHaveLength(keptFiles(3));
    } finally {
      await d.t.close();
    }
  });

  it('10 parallel multipart uploads of 300 KB with a 1 MB cap: exactly 3 stored', async () => {
    const d = await daemon({ uploadLimits: { bytesPerAccount: 1 * MB } });
    try {
      const { key, accountId } = await d.t.account('parallel-bytes');
      const results = await Promise.all(Array.from({ length: 10 }, () => multipart(d.base, key, file(300 * KB))));
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      for (const r of results.filter((x) => x.status !== 201)) expectError(r, 429, 'upload_limit_exceeded');
      expect(await d.records(accountId)).toHaveLength(3);
      expect(d.files()).toHaveLength(keptFiles(3));
    } finally {
      await d.t.close();
    }
  });

  it('expired uploads free their room (a short lifetime; before the sweep as after it)', async () => {
    const d = await daemon({ uploadTtlMs: HOUR, uploadLimits: { perAccount: 2 } });
    try {
      const { key, accountId } = await d.t.account('expiry');
      expect((await raw(d.base, key, file(1000))).status).toBe(201);
      d.clock.advance(10 * 60 * 1000);
      expect((await raw(d.base, key, file(1000))).status).toBe(201);
      const full = await raw(d.base, key, file(1000));
      expectError(full, 429, 'upload_limit_exceeded');
      expect(full.headers['retry-after']).toBe('3000');
      // One second before the oldest expires: still refused, Retry-After 1 (never 0).
      d.clock.advance(50 * 60 * 1000 - 1000);
      expect((await raw(d.base, key, file(1000))).headers['retry-after']).toBe('1');
      d.clock.advance(1000);
      expect((await raw(d.base, key, file(1000))).status).toBe(201);
      await d.t.app.services.uploads.sweep();
      expect(await d.records(accountId)).toHaveLength(2);
      d.clock.advance(HOUR);
      await d.t.app.services.uploads.sweep();
      expect((await raw(d.base, key, file(1000))).status).toBe(201);
      expect((await raw(d.base, key, file(1000))).status).toBe(201);
      expect(await d.records(accountId)).toHaveLength(2);
      expect(d.files()).toHaveLength(keptFiles(2));
    } finally {
      await d.t.close();
    }
  });
});

describe('the free-space floor', () => {
  it('an upload that would take the disk under the floor: 503 storage_full with Retry-After, for every account, nothing stored', async () => {
    // A floor larger than any disk: the free space is always under it.
    const d = await daemon({ uploadLimits: { storageFloorBytes: Number.MAX_SAFE_INTEGER } });
    try {
      for (const name of ['first', 'second']) {
        const { key, accountId } = await d.t.account(name, 'growth');
        for (const send of [raw, multipart]) {
          const r = await send(d.base, key, file(10 * KB));
          const error = expectError(r, 503, 'storage_full');
          expect(r.headers['retry-after']).toBe('600');
          expect(error.message).toMatch(/disk/);
        }
        expect(await d.records(accountId)).toHaveLength(0);
      }
      expect(d.files()).toEqual([]);
    } finally {
      await d.t.close();
    }
  });

  it('on a 64 MB tmpfs with a 32 MB floor: room held for an upload still streaming refuses a second; a full disk refuses a third', async (ctx) => {
    const mount = mountTmpfs('64m');
    if (!mount) {
      console.warn('NOTICE: could not mount a tmpfs (needs root on Linux); the tmpfs floor test is skipped.');
      ctx.skip();
      return;
    }
    let d: Daemon | undefined;
    let slow: ClientRequest | undefined;
    try {
      d = await daemon({ uploadLimits: { storageFloorBytes: 32 * MB } }, mount.dir);
      const { key, accountId } = await d.t.account('tmpfs', 'growth');
      // A 20 MB upload starts and stalls after 1 MB: it holds room for all 20 MB.
      slow = request(`${d.base}/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': String(20 * MB) },
      });
      const answered = new Promise<number>((resolve, reject) => {
        slow!.on('response', (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        slow!.on('error', reject);
      });
      // Destroyed in `finally` when the test fails first: that rejection is nobody's.
      answered.catch(() => undefined);
      slow.write(Buffer.alloc(1 * MB, 7));
      await until(() => d!.files().some((n) => n.endsWith('.part')));
      // 64 MB free, 20 MB held (1 MB of it written): 20 MB more would leave 24 MB, under the floor.
      const second = await raw(d.base, key, file(20 * MB));
      expectError(second, 503, 'storage_full');
      slow.end(Buffer.alloc(19 * MB, 7));
      expect(await answered).toBe(201);
      expect(await d.records(accountId)).toHaveLength(1);
      // The embedded store keeps the 20 MB on this disk: 44 MB free, no room for 20 MB more.
      // PostgreSQL took the bytes into the database: the disk is free again.
      const third = await raw(d.base, key, file(20 * MB));
      if (storeKind() === 'file') expectError(third, 503, 'storage_full');
      else expect(third.status).toBe(201);
      expect(d.files().filter((n) => n.endsWith('.part'))).toEqual([]);
    } finally {
      // A request left stalled by a failure would hold the app's close.
      slow?.destroy();
      await d?.t.close();
      mount.unmount();
    }
  });
});

describe('daemon start flags', () => {
  it('parse counts and sizes (binary units, 0 turns the floor off); refuse what is not one', async () => {
    expect(parseUploadLimitFlags({ maxUploadsPerAccount: '100', maxUploadBytesPerAccount: '1GiB', storageFloor: '1GB' })).toEqual({
      perAccount: 100,
      bytesPerAccount: 2 ** 30,
      storageFloorBytes: 2 ** 30,
    });
    expect(parseUploadLimitFlags({ maxUploadBytesPerAccount: '1048576', storageFloor: '0' })).toEqual({ bytesPerAccount: MB, storageFloorBytes: 0 });
    expect(parseUploadLimitFlags({ maxUploadBytesPerAccount: '1.5 MB' })).toEqual({ bytesPerAccount: 1.5 * MB });
    expect(() => parseUploadLimitFlags({ maxUploadsPerAccount: '0' })).toThrow(/--max-uploads-per-account must be a whole number of 1 or more/);
    expect(() => parseUploadLimitFlags({ maxUploadsPerAccount: '2.5' })).toThrow(/--max-uploads-per-account/);
    expect(() => parseUploadLimitFlags({ maxUploadBytesPerAccount: '0' })).toThrow(/--max-upload-bytes-per-account/);
    expect(() => parseUploadLimitFlags({ maxUploadBytesPerAccount: 'lots' })).toThrow(/--max-upload-bytes-per-account/);
    expect(() => parseUploadLimitFlags({ storageFloor: '1 constructor' })).toThrow(/--storage-floor/);

    // `daemon start` with a bad value: one line, exit 2, before anything starts.
    const dir = tempDir();
    let stderr = '';
    const sink = new PassThrough();
    sink.on('data', (c) => (stderr += c));
    try {
      const code = await runDaemonStart(
        { host: '127.0.0.1', port: '0', dataDir: join(dir.dir, 'data'), allowPrivateUrls: false, detach: false, maxUploadsPerAccount: 'none' },
        { stdin: new PassThrough(), stdout: new PassThrough(), stderr: sink, env: { ...process.env } },
      );
      expect(code).toBe(2);
      expect(stderr).toBe('provenance: --max-uploads-per-account must be a whole number of 1 or more, e.g. 100, not "none"\n');
      expect(readdirSync(dir.dir)).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });
});

/** A fresh tmpfs of `size` (root on Linux only); undefined when it cannot be mounted here. */
function mountTmpfs(size: string): { dir: string; unmount(): void } | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'prov-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmdirSync(dir);
    return undefined;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmdirSync(dir);
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
