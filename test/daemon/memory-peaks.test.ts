// Peak memory of the built daemon as users run it (bin/provenance.js, the worker pool on) under
// the loads of issue 34, each of which took it far past its media budget: decode bombs (two
// uploads of a 3 KB WebP that says 8,192 x 8,192: 1.45 GB with --media-memory 256MiB) and 48
// anonymous 25 MB bodies sent to the Verify page (1.3 GB). Done when the peak stays within
// --media-memory + 150 MB. The peak is the kernel's high-water mark of the daemon's resident
// memory (VmHWM in /proc/PID/status). Every connection is to 127.0.0.1 and every loop is bounded.
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from './helpers.js';
import { startDaemonProcess, type DaemonProcess } from './process.js';

const MB = 1_048_576;
const MEDIA_MEMORY = 256 * MB;
const ALLOWED = MEDIA_MEMORY + 150 * 1_000_000;
const HAS_PROC = existsSync('/proc/self/status');

const { dir, cleanup } = tempDir('prov-memory-peaks-');
let key: string;
beforeAll(async () => {
  if (!HAS_PROC) return;
  const created = await runCli(['daemon', 'accounts', 'create', '--email', 'peaks@example.test', '--plan', 'custom', '--quota', '100000', '--data-dir', dir, '--json']);
  if (created.code !== 0) throw new Error(created.stderr);
  key = JSON.parse(created.stdout).key.value;
}, 30_000);
afterAll(() => cleanup());

/** A daemon of its own for each load: the high-water mark is the process's whole life's. */
let daemon: DaemonProcess;
beforeEach(async () => {
  if (HAS_PROC) daemon = await startDaemonProcess(['--data-dir', dir, '--media-memory', '256MiB']);
}, 30_000);
afterEach(async () => {
  if (!daemon) return;
  daemon.child.kill('SIGTERM');
  await daemon.exited;
});

/** The daemon's resident-memory high-water mark so far, in bytes. */
function peak(): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${daemon.child.pid}/status`, 'utf8'));
  return Number(kb![1]) * 1024;
}

const flatWebp = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } }).webp({ lossless: true }).toBuffer();

describe.skipIf(!HAS_PROC)('peak memory of the built daemon (--media-memory 256MiB)', () => {
  it('two decode bombs of 8,192 x 8,192 and two pictures at the decode bound, checked at once', async () => {
    const files = [await flatWebp(8192), await flatWebp(8192), await flatWebp(3072), await flatWebp(3072)];
    expect(Math.max(...files.map((f) => f.length))).toBeLessThan(4096);
    const ids: string[] = [];
    for (const file of files) {
      const r = await fetch(`${daemon.url}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'image/webp' }, body: file });
      expect(r.status).toBe(201);
      ids.push(((await r.json()) as { id: string }).id);
    }
    const answers = await Promise.all(
      ids.map(async (upload) => {
        const r = await fetch(`${daemon.url}/v1/detect`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ upload }),
        });
        return { status: r.status, body: (await r.json()) as { matches?: { check: string; result: string }[] } };
      }),
    );
    for (const a of answers) expect(a.status).toBe(200);
    expect(peak(), `peak ${(peak() / 1e6).toFixed(0)} MB`).toBeLessThan(ALLOWED);
  }, 60_000);

  it('48 anonymous Verify bodies of 25 MB at once: each refused unread, the peak within the budget', async () => {
    const body = Buffer.alloc(25 * MB, 7);
    const host = new URL(daemon.url).host;
    const port = Number(new URL(daemon.url).port);
    const statuses = await Promise.all(
      Array.from(
        { length: 48 },
        () =>
          new Promise<number>((resolve) => {
            const socket = connect(port, '127.0.0.1');
            let text = '';
            // Bounded: a connection the daemon neither answers nor closes is cut after 30 s.
            const timer = setTimeout(() => socket.destroy(), 30_000);
            socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
            socket.on('error', () => {});
            socket.on('close', () => {
              clearTimeout(timer);
              resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0));
            });
            socket.on('connect', () => {
              socket.write(`POST /verify/detect HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`);
              socket.end(body);
            });
          }),
      ),
    );
    expect(statuses).toEqual(Array(48).fill(401));
    expect(peak(), `peak ${(peak() / 1e6).toFixed(0)} MB`).toBeLessThan(ALLOWED);
  }, 90_000);
});
