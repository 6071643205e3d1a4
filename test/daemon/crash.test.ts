// kill -9 during a detect load, five times on one data dir (issue 3 "Done when"): the store
// always loads, every key works, and usage is never below the number of 200s clients received.
import { afterAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { runCli } from '../helpers/run-cli.js';
import { b64, http, tempDir } from './helpers.js';
import { startDaemonProcess } from './process.js';

const { dir, cleanup } = tempDir('prov-crash-');
afterAll(cleanup);
const body = JSON.stringify({ media: b64(tinyJpeg()) });

async function admin(args: string[]) {
  const r = await runCli(['daemon', ...args, '--data-dir', dir, '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

/** Detect requests from `clients` loops until the daemon dies; returns the 200s per key. */
async function load(url: string, keys: string[], clients: number): Promise<Map<string, number>> {
  const ok = new Map(keys.map((k) => [k, 0]));
  let alive = true;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const key = keys[i % keys.length]!;
      // Bounded: at most 2000 requests per client, and the loop ends when the daemon dies.
      for (let n = 0; alive && n < 2000; n++) {
        try {
          const r = await fetch(`${url}/v1/detect`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body,
          });
          await r.arrayBuffer();
          if (r.status === 200) ok.set(key, ok.get(key)! + 1);
        } catch {
          alive = false;
        }
      }
    }),
  );
  return ok;
}

describe('kill -9 under load', () => {
  it('five times on one data dir', async () => {
    const a = (await admin(['accounts', 'create', '--email', 'a@example.test', '--plan', 'custom', '--quota', '1000000'])).key.value;
    const b = (await admin(['accounts', 'create', '--email', 'b@example.test', '--plan', 'custom', '--quota', '1000000'])).key.value;
    const extra = (await admin(['keys', 'create', '--email', 'a@example.test'])).key.value;
    const keys = [a, b, extra];
    const received = { 'a@example.test': 0, 'b@example.test': 0 };
    const accountOf = (k: string) => (k === b ? 'b@example.test' : 'a@example.test');

    for (let round = 0; round < 5; round++) {
      const daemon = await startDaemonProcess(['--data-dir', dir]);
      // The store loaded (the daemon listens) and every key works.
      for (const key of keys) {
        const r = await http(daemon.url, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json' } });
        expect(r.status, `round ${round}`).toBe(200);
        received[accountOf(key)]++;
      }
      const running = load(daemon.url, keys, 8);
      await new Promise((r) => setTimeout(r, 300 + round * 100));
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      for (const [key, n] of await running) received[accountOf(key)] += n;
    }

    // Offline now (the lock of the killed daemon is stale and is taken over).
    const { accounts } = await admin(['accounts', 'list']);
    for (const account of accounts) {
      const got = received[account.email as keyof typeof received];
      console.log(`[crash] ${account.email}: ${got} 200s received, usage ${account.usage.used}`);
      expect(got).toBeGreaterThan(20);
      expect(account.usage.used, account.email).toBeGreaterThanOrEqual(got);
    }
    // And a final start still serves every key.
    const daemon = await startDaemonProcess(['--data-dir', dir]);
    for (const key of keys) expect((await http(daemon.url, 'POST', '/v1/detect', { key, body, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});
