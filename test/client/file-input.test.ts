// The library's ProvenanceClient reads a path or a stream no further than the API takes (25 MB):
// a FIFO, /dev/zero, a file over the limit, a stream that never ends, each refused before a
// request is sent and without reading it whole. Before, `readFile` read /dev/zero until Node's
// 2 GiB limit and waited for ever on a FIFO. Against the real daemon on 127.0.0.1, which counts
// the calls that reached it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaTooLargeError, ProvenanceClient } from '../../src/index.js';
import { readFileForUpload, readStreamForUpload } from '../../src/client/file-input.js';
import { tinyJpeg } from '../fixtures/make.js';
import { listen, makeApp } from '../daemon/helpers.js';

const MAX = 25 * 1024 * 1024;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-client-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('readFileForUpload', () => {
  it('reads a regular file whole, byte for byte', async () => {
    const file = join(dir, 'small.jpg');
    writeFileSync(file, tinyJpeg());
    expect(Buffer.compare(await readFileForUpload(file), Buffer.from(tinyJpeg()))).toBe(0);
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    expect((await readFileForUpload(empty)).byteLength).toBe(0);
  });

  it('refuses a file over 25 MB from its size, before reading it (a sparse 3 GB file)', async () => {
    const file = join(dir, 'huge.bin');
    writeFileSync(file, '');
    truncateSync(file, 3 * 1024 ** 3);
    const err = await failure(readFileForUpload(file));
    expect(err).toBeInstanceOf(MediaTooLargeError);
    expect((err as Error).message).toMatch(/The file is 3221225472 bytes; the API takes files up to 25 MB/);
    // Exactly at the limit is read.
    const at = join(dir, 'at-limit.bin');
    writeFileSync(at, '');
    truncateSync(at, MAX);
    expect((await readFileForUpload(at)).byteLength).toBe(MAX);
  });

  it('refuses a folder, a named pipe and /dev/zero through a symlink at once', async () => {
    expect(await failure(readFileForUpload(dir))).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/is not a regular file \(a folder\)/) });
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await failure(readFileForUpload(fifo))).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/\(a named pipe\)/) });
    const zero = join(dir, 'zero.jpg');
    symlinkSync('/dev/zero', zero);
    expect(await failure(readFileForUpload(zero))).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/\(a character device\)/) });
  });

  it('a file larger than fstat says (a /proc file, size 0) is read to its end, and refused once past the limit', async () => {
    // What a file growing between fstat and the reads looks like, without a race: /proc's files
    // are regular files whose fstat size is 0.
    const whole = await readFileForUpload('/proc/self/status');
    expect(whole.toString()).toMatch(/^Name:/);
    expect(whole.byteLength).toBeGreaterThan(100);
    const err = await failure(readFileForUpload('/proc/self/status', undefined, 50));
    expect(err).toBeInstanceOf(MediaTooLargeError);
    expect((err as Error).message).toMatch(/grew past 50 bytes while it was read/);
  });
});

describe('readStreamForUpload', () => {
  it('stops an endless stream past the limit and closes it', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(1024 * 1024));
      },
    });
    const err = await failure(readStreamForUpload(endless));
    expect(err).toBeInstanceOf(MediaTooLargeError);
    expect((err as Error).message).toMatch(/The stream passed 26214400 bytes/);
    expect(endless.destroyed).toBe(true);
    // 26 one-MB chunks pass the limit; the stream's read-ahead adds a few at most.
    expect(pulled).toBeLessThan(40);
  });

  it('reads a finite stream whole, strings included', async () => {
    expect((await readStreamForUpload(Readable.from(['ab', Buffer.from('cd')]))).toString()).toBe('abcd');
  });
});

describe('ProvenanceClient.detect with such inputs', () => {
  it('sends nothing for /dev/zero, a FIFO or an endless stream; a real file is checked', async () => {
    const t = await makeApp();
    try {
      const base = await listen(t.app);
      const { key } = await t.account('client-inputs', 'growth');
      const client = new ProvenanceClient({ apiKey: key, baseUrl: base });
      const zero = join(dir, 'zero2.jpg');
      symlinkSync('/dev/zero', zero);
      expect(await failure(client.detect({ file: zero }))).toBeInstanceOf(TypeError);
      const fifo = join(dir, 'pipe2');
      execFileSync('mkfifo', [fifo]);
      expect(await failure(client.detect({ file: fifo }))).toBeInstanceOf(TypeError);
      const endless = new Readable({
        read() {
          this.push(Buffer.alloc(1024 * 1024));
        },
      });
      expect(await failure(client.detect({ file: endless }))).toBeInstanceOf(MediaTooLargeError);
      const jpg = join(dir, 'ok.jpg');
      writeFileSync(jpg, tinyJpeg());
      const result = await client.detect({ file: jpg, checks: ['c2pa'] });
      expect(result.media.bytes).toBe(tinyJpeg().byteLength);
      // The first call the account made: none of the refused inputs reached the API.
      expect(result.quota?.used).toBe(1);
    } finally {
      await t.close();
    }
  });
});
