// Issue 26, item 2: the per-account upload caps hold across daemons on one PostgreSQL database.
// Two daemons (apps listening on 127.0.0.1, each with its own data dir and connection pool) share
// one schema; parallel uploads of one account spread over both store exactly as many as the caps
// allow: the count and the insert happen under the account's advisory lock in the database, not
// in either daemon's memory.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { createTestSchema, sql } from '../helpers/postgres.js';
import { expectError, http, listen, makeApp, type TestApp } from '../daemon/helpers.js';

const KB = 1024;
const MB = 1024 * KB;
const jpeg = tinyJpeg();

function file(n: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(n);
  bytes.set(jpeg.subarray(0, Math.min(n, jpeg.length)));
  return bytes;
}

let schema: { url: string; drop(): Promise<void> };
let daemons: { t: TestApp; base: string }[] = [];

beforeAll(async () => {
  schema = await createTestSchema(inject('pgDatabaseUrl'));
  for (let i = 0; i < 2; i++) {
    const t = await makeApp({ storeUrl: schema.url, uploadLimits: { perAccount: 5, bytesPerAccount: 1 * MB } });
    daemons.push({ t, base: await listen(t.app) });
  }
});

afterAll(async () => {
  for (const d of daemons) await d.t.close();
  daemons = [];
  await schema?.drop();
});

const uploadsOf = async (accountId: string) => Number((await sql(schema.url, 'SELECT count(*)::int AS n FROM uploads WHERE account = $1', [accountId]))[0]!.n);

describe('two daemons on one PostgreSQL database', () => {
  it('20 parallel uploads of one account over both, room for 5: exactly 5 stored, 15 refused 429', async () => {
    const { key, accountId } = await daemons[0]!.t.account('count@example.test', 'growth');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http(daemons[i % 2]!.base, 'POST', '/v1/uploads', { key, body: file(10 * KB + i), headers: { 'content-type': 'application/octet-stream' } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 201)) {
      expectError(r, 429, 'upload_limit_exceeded');
      expect(r.headers['retry-after']).toBe('86400');
    }
    expect(await uploadsOf(accountId)).toBe(5);
    // Every stored upload is usable through either daemon; no temp file is left on either.
    for (const r of results.filter((x) => x.status === 201)) {
      for (const d of daemons) expect((await http(d.base, 'POST', '/v1/detect', { key, json: { upload: r.body.id, checks: ['c2pa'] } })).status).toBe(200);
    }
    for (const d of daemons) expect(readdirSync(d.t.app.services.uploads.dir)).toEqual([]);
  });

  it('10 parallel multipart uploads of 300 KB over both, a 1 MB cap: exactly 3 stored', async () => {
    const { key, accountId } = await daemons[1]!.t.account('bytes@example.test', 'growth');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const form = new FormData();
        form.append('file', new Blob([file(300 * KB)]), 'f.jpg');
        return http(daemons[i % 2]!.base, 'POST', '/v1/uploads', { key, body: form });
      }),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 429, 'upload_limit_exceeded');
    expect(await uploadsOf(accountId)).toBe(3);
    for (const d of daemons) expect(readdirSync(d.t.app.services.uploads.dir)).toEqual([]);
  });
});
