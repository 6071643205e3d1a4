// docs/SECURITY.md "What is stored, and how": the data dir is 0700 and every file the daemon
// creates in it is 0600, the pid file included (issue 26). A daemon started in this process on
// 127.0.0.1 with the embedded store; its files are listed once it serves and has written.
// An existing data dir with looser modes (an older version's, made by hand, restored from a
// backup) is tightened at start: the dir and its folders 0700, the daemon's files 0600.
import { chmodSync, lstatSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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

/** The mode of every entry under `dir` (symlinks as themselves), folders ending in `/`. */
function modesUnder(dir: string): Record<string, string> {
  const modes: Record<string, string> = {};
  const walk = (at: string, prefix: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const st = lstatSync(path);
      modes[`${prefix}${name}${st.isDirectory() ? '/' : ''}`] = st.isSymbolicLink() ? 'link' : (st.mode & 0o777).toString(8);
      if (st.isDirectory()) walk(path, `${prefix}${name}/`);
    }
  };
  walk(dir, '');
  return modes;
}

describe('an existing data dir with looser modes (issue 26)', () => {
  const data = tempDir('prov-modes-old-');
  const dataDir = join(data.dir, 'data');
  const umask = process.umask(0o022);
  let daemon: RunningDaemon | undefined;
  afterAll(async () => {
    await daemon?.stop();
    process.umask(umask);
    data.cleanup();
  });

  it('is tightened at start: the dir and its folders 0700, the daemon\'s own files 0600; others\' files and symlink targets untouched', async () => {
    // A data dir with a store, an upload and a sign-in mail, as a daemon leaves it...
    const first = await startDaemon({ dataDir, port: 0, workers: 0 });
    const key = (await first.app.services.accounts.createAccount({ email: 'old-modes@example.test' })).key.value;
    await first.app.services.store.commit();
    expect((await http(first.url, 'POST', '/v1/uploads', { key, body: tinyJpeg(), headers: { 'content-type': 'image/jpeg' } })).status).toBe(201);
    await first.stop();
    // ...then made world-readable, with the pid and state files of a daemon that was killed, a
    // file of the operator's own and a symlink to a file outside.
    for (const name of ['daemon.pid', 'daemon.json', 'admin.token']) writeFileSync(join(dataDir, name), 'left by a killed daemon\n', { mode: 0o644 });
    const outside = join(data.dir, 'outside.txt');
    writeFileSync(outside, 'not the daemon\'s\n', { mode: 0o644 });
    writeFileSync(join(dataDir, 'notes.txt'), 'the operator\'s\n', { mode: 0o644 });
    symlinkSync(outside, join(dataDir, 'daemon.log'));
    const loosen = (dir: string) => {
      chmodSync(dir, 0o755);
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const st = lstatSync(path);
        if (st.isSymbolicLink()) continue;
        if (st.isDirectory()) loosen(path);
        else chmodSync(path, 0o644);
      }
    };
    loosen(dataDir);
    const before = modesUnder(dataDir);
    expect(before).toMatchObject({ 'provenance.journal': '644', 'daemon.pid': '644', 'admin.token': '644', 'uploads/': '755' });
    expect(Object.keys(before).filter((n) => n.startsWith('uploads/') && !n.endsWith('/'))).toHaveLength(1);
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('755');

    daemon = await startDaemon({ dataDir, port: 0, workers: 0 });
    const after = modesUnder(dataDir);
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    for (const [name, mode] of Object.entries(after)) {
      if (name === 'notes.txt') expect(mode, name).toBe('644');
      else if (name === 'daemon.log') expect(mode, name).toBe('link');
      else expect(mode, name).toBe(name.endsWith('/') ? '700' : '600');
    }
    expect(Object.keys(after)).toEqual(expect.arrayContaining(['provenance.journal', 'daemon.pid', 'daemon.json', 'admin.token', 'uploads/']));
    // What the symlink points to is not the daemon's: left as it was.
    expect((statSync(outside).mode & 0o777).toString(8)).toBe('644');
    // And the daemon serves from the tightened dir.
    expect((await http(daemon.url, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg()) } })).status).toBe(200);
  });
});
