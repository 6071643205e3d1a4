// Three daemons (real processes of the built CLI) on one PostgreSQL database: quota, burst,
// uploads and revocation hold across them, and a kill -9 of one loses nothing the others
// served. Runs in the `postgres` project only (vitest.config.ts), against a real server, in a
// database of its own that is dropped afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { runCli } from '../helpers/run-cli.js';
import { createTestDatabase, sql, type TestDatabase } from '../helpers/postgres.js';
import { b64, http, tempDir } from '../daemon/helpers.js';
import { startDaemonProcess, type DaemonProcess } from '../daemon/process.js';

let db: TestDatabase;
const dirs = [tempDir('prov-pg-a-'), tempDir('prov-pg-b-'), tempDir('prov-pg-c-')];
let daemons: DaemonProcess[] = [];
const jpeg = tinyJpeg();
const body = JSON.stringify({ media: b64(jpeg) });
const json = { 'content-type': 'application/json' };

async function admin(args: string[]) {
  const r = await runCli(['daemon', ...args, '--store', db.url, '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

const usageOf = async (email: string) =>
  Number((await sql(db.url, 'SELECT coalesce(sum(used), 0) AS n FROM usage u JOIN accounts a ON a.id = u.account WHERE a.email = $1', [email]))[0]!.n);

beforeAll(async () => {
  db = await createTestDatabase();
  // Started together: the migrations' advisory lock lets exactly one of them create the schema.
  daemons = await Promise.all(dirs.map((d) => startDaemonProcess(['--data-dir', d.dir, '--store', db.url])));
});

afterAll(async () => {
  for (const d of daemons) if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGTERM');
  await Promise.all(daemons.map((d) => d.exited));
  await db?.drop();
  for (const d of dirs) d.cleanup();
});

describe('three daemons on one PostgreSQL database', () => {
  it('were migrated once although they started together', async () => {
    expect(await sql(db.url, 'SELECT version FROM schema_migrations ORDER BY 1')).toEqual([{ version: 1 }, { version: 2 }]);
  });

  it('250 concurrent detects over the three, 100 calls left: exactly 100 200s with X-Quota-Used 1..100 once each, the rest 429 quota_exceeded', async () => {
    const { key } = await admin(['accounts', 'create', '--email', 'quota@example.test', '--plan', 'custom', '--quota', '100']);
    const { Agent, request } = await import('undici');
    const agent = new Agent({ connections: 100 });
    try {
      const results = await Promise.all(
        Array.from({ length: 250 }, async (_, i) => {
          const r = await request(`${daemons[i % 3]!.url}/v1/detect`, {
            method: 'POST',
            dispatcher: agent,
            headers: { authorization: `Bearer ${key.value}`, ...json },
            body,
          });
          const parsed = (await r.body.json()) as { error?: { type: string } };
          return { status: r.statusCode, used: Number(r.headers['x-quota-used']), type: parsed.error?.type, daemon: i % 3 };
        }),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused.map((r) => `${r.status} ${r.type}`)).toEqual(Array(150).fill('429 quota_exceeded'));
      expect(ok.map((r) => r.used).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      // Each daemon got 83 or 84 of the requests: with a count of its own, each would have
      // answered all of them 200. Which daemon served which 200 is up to scheduling.
      expect(await usageOf('quota@example.test')).toBe(100);
    } finally {
      await agent.close();
    }
  });

  it("a free key's burst of 10 per minute holds across two daemons: exactly 10 200s", async () => {
    const { key } = await admin(['accounts', 'create', '--email', 'burst@example.test', '--plan', 'free']);
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => http(daemons[i % 2]!.url, 'POST', '/v1/detect', { key: key.value, body, headers: json })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429).map((r) => r.body.error.type)).toEqual(Array(14).fill('rate_limited'));
    expect(results.filter((r) => r.status === 429).every((r) => Number(r.headers['retry-after']) >= 1)).toBe(true);
  });

  it('an upload made through one daemon is detected through another', async () => {
    const { key } = await admin(['accounts', 'create', '--email', 'upload@example.test', '--plan', 'starter']);
    const up = await http(daemons[0]!.url, 'POST', '/v1/uploads', { key: key.value, body: jpeg as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/octet-stream' } });
    expect(up.status).toBe(201);
    for (const d of [daemons[1]!, daemons[2]!]) {
      const r = await http(d.url, 'POST', '/v1/detect', { key: key.value, json: { upload: up.body.id } });
      expect(r.status).toBe(200);
      expect(r.body.media.sha256).toBe(up.body.sha256);
    }
  });

  it('a key revoked through one daemon gets 401 from the others at the next request', async () => {
    const { key } = await admin(['accounts', 'create', '--email', 'revoke@example.test', '--plan', 'starter']);
    for (const d of daemons) expect((await http(d.url, 'POST', '/v1/detect', { key: key.value, body, headers: json })).status).toBe(200);
    // Through daemon A's admin endpoint (the admin command finds it by its data dir).
    const revoked = await runCli(['daemon', 'keys', 'revoke', key.id, '--data-dir', dirs[0]!.dir]);
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const d of [daemons[1]!, daemons[2]!, daemons[0]!]) {
      const r = await http(d.url, 'POST', '/v1/detect', { key: key.value, body, headers: json });
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe('authentication_error');
    }
  });

  it('kill -9 of one daemon under load: the other two keep answering, usage never below the 200s sent', async () => {
    const { key } = await admin(['accounts', 'create', '--email', 'kill@example.test', '--plan', 'custom', '--quota', '1000000']);
    // One key per client: each stays under the plan's per-key burst limit of 300 a minute.
    const keys = [key.value];
    for (let i = 1; i < 6; i++) keys.push((await admin(['keys', 'create', '--email', 'kill@example.test'])).key.value);
    let ok = 0;
    let okAfterKill = 0;
    let killed = false;
    const errorsFromSurvivors: string[] = [];
    const victim = daemons[0]!;
    const clients = Array.from({ length: 6 }, async (_, i) => {
      const daemon = daemons[i % 3]!;
      // Bounded: 150 requests per client at most; a client of the killed daemon stops at its death.
      for (let n = 0; n < 150; n++) {
        try {
          const r = await fetch(`${daemon.url}/v1/detect`, { method: 'POST', headers: { authorization: `Bearer ${keys[i]}`, ...json }, body });
          const text = await r.text();
          if (r.status === 200) {
            ok++;
            if (killed && daemon !== victim) okAfterKill++;
          } else if (daemon !== victim) errorsFromSurvivors.push(`${r.status} ${text}`);
        } catch (err) {
          if (daemon !== victim) errorsFromSurvivors.push(String(err));
          if (daemon === victim) return;
        }
      }
    });
    await new Promise((r) => setTimeout(r, 700));
    victim.child.kill('SIGKILL');
    await victim.exited;
    killed = true;
    await Promise.all(clients);
    const used = await usageOf('kill@example.test');
    console.log(`[pg kill -9] ${ok} 200s received (${okAfterKill} after the kill), usage ${used}`);
    expect(okAfterKill).toBeGreaterThan(20);
    expect(errorsFromSurvivors).toEqual([]);
    expect(used).toBeGreaterThanOrEqual(ok);
  });
});
