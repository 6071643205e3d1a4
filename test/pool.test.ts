// The detect pool: real worker threads running the engine on real files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../src/engine/detect.js';
import { DetectPool, PoolTaskError } from '../src/engine/pool.js';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg, tinyPng } from './fixtures/make.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

let dir: string;
let signed: SignedSet;
let pool: DetectPool;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-pool-'));
  signed = await makeSignedSet();
  pool = new DetectPool({ size: 2 });
});
afterAll(async () => {
  await pool?.close();
  signed?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const strip = ({ id: _id, duration_ms: _d, ...rest }: any) => rest;

describe('DetectPool', () => {
  it('gives the same result as the in-process engine, for paths and for bytes', async () => {
    const camera = tinyJpeg({ exif: exifApp1({ make: 'Apple', model: 'iPhone 13', software: '16.0', makerNote: APPLE_MAKER_NOTE }) });
    const files = { 'signed.jpg': signed.jpeg, 'camera.jpg': camera, 'plain.png': tinyPng() };
    for (const [name, bytes] of Object.entries(files)) {
      writeFileSync(join(dir, name), bytes);
      const local = await detect(bytes);
      expect(strip((await pool.run({ source: name, path: join(dir, name) })).result)).toEqual(strip(local));
      expect(strip((await pool.run({ source: name, bytes: Uint8Array.from(bytes) })).result)).toEqual(strip(local));
    }
  });

  it('passes check selections through', async () => {
    const { result } = await pool.run({ source: 'x', bytes: tinyPng() }, { checks: ['camera_reference'] });
    expect(result.checks_run).toEqual(['camera_reference']);
  });

  it('runs many tasks concurrently and answers each', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.run({ source: `n${i}`, bytes: tinyJpeg({ seed: i }) })));
    expect(new Set(results.map((r) => r.result.media.sha256)).size).toBe(40);
  });

  it('reports an unreadable path as an input error', async () => {
    const attempt = pool.run({ source: 'gone.jpg', path: join(dir, 'gone.jpg') });
    await expect(attempt).rejects.toBeInstanceOf(PoolTaskError);
    await expect(attempt).rejects.toMatchObject({ inputError: true, info: { type: 'not_found' } });
  });

  it('replaces a worker that overruns the time limit and keeps working', async () => {
    const slow = new DetectPool({ size: 1, taskTimeoutMs: 1 });
    try {
      await expect(slow.run({ source: 'big', bytes: new Uint8Array(64 * 1024 * 1024) })).rejects.toMatchObject({ info: { type: 'timeout' } });
    } finally {
      await slow.close();
    }
    expect((await pool.run({ source: 'after', bytes: tinyPng() })).result.media.type).toBe('image/png');
  });
});

describe('DetectPool byte hand-over', () => {
  it('moves a buffer that owns its memory, and copies a pooled one without detaching the pool', async () => {
    const owned = Uint8Array.from(tinyPng({ seed: 77 }));
    const { result } = await pool.run({ source: 'owned', bytes: owned });
    expect(result.media.type).toBe('image/png');
    expect(owned.byteLength).toBe(0); // transferred: detached here

    const pooled = Buffer.from('tiny bytes from the shared pool');
    expect(pooled.byteLength).toBeLessThan(pooled.buffer.byteLength);
    const before = Buffer.from(pooled);
    await pool.run({ source: 'pooled', bytes: pooled });
    expect(Buffer.compare(pooled, before)).toBe(0); // still readable: copied, not moved
  });

  it('copies, never moves, the bytes of a caller that reads them after the check (keepBytes)', async () => {
    const owned = Uint8Array.from(tinyPng({ seed: 78 }));
    const before = Uint8Array.from(owned);
    const { result } = await pool.run({ source: 'kept', bytes: owned, keepBytes: true });
    expect(result.media.bytes).toBe(before.byteLength);
    expect(owned.byteLength).toBe(before.byteLength);
    expect(Buffer.compare(owned, before)).toBe(0);
  });
});
