// docs/SECURITY.md "What is stored, and how": the data dir is 0700 and every file the daemon
// creates in it is 0600, the pid file included (issue 26). A daemon started in this process on
// 127.0.0.1 with the embedded store; its files are listed once it serves and has written.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from '../../src/daemon/http/server.js';
import { tinyJpeg } from '../fixtures/make.js';
import { b64, http, tempDir } from './helpers.js';

describe('file modes in the data dir', () => {
  const data = tempDir('prov-modes-');
  const dataDir = join(data.dir, 'data');
  let daemon: RunningDaemon;
  const umask = process.umask(0o022);
  beforeAll(async () => {
    daemon = await startDaemon({ dataDir, port: 0, workers: 0 });
  });
  afterAll(async () => {
    await daemon?.stop();
    process.umask(umask);
    data.cleanup();
  });

  it('every file the daemon writes is 0600 (daemon.pid, admin.token, daemon.json, the store and its journal, uploads), every folder 0700', async () => {
    const key = (await daemon.app.services.accounts.createAccount({ email: 'modes@example.test' })).key.value;
    await daemon.app.services.store.commit();
    expect((await http(daemon.url, 'POST', '/v1/uploads', { key, body: tinyJpeg(), headers: { 'content-type': 'image/jpeg' } })).status).toBe(201);
    expect((await http(daemon.url, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg()) } })).status).toBe(200);
    const modes: Record<string, string> = {};
    const walk = (dir: string, prefix: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const st = statSync(path);
        modes[`${prefix}${name}${st.isDirectory() ? '/' : ''}`] = (st.mode & 0o777).toString(8);
        if (st.isDirectory()) walk(path, `${prefix}${name}/`);
      }
    };
    walk(dataDir, '');
    expect(modes).toMatchObject({ 'daemon.pid': '600', 'admin.token': '600', 'daemon.json': '600', 'provenance.journal': '600', 'uploads/': '700' });
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    for (const [name, mode] of Object.entries(modes)) expect(mode, name).toBe(name.endsWith('/') ? '700' : '600');
  });
});
