// engine/scan-cache.ts on its own: the last-use time a hit refreshes (what pruning goes by), the
// CRC that turns a damaged value into a miss, and identities and scopes as keys.
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanCache, scanCacheStats, scanScope, type CachedCheck } from '../src/engine/scan-cache.js';
import type { DetectionResult } from '../src/types.js';

let dir: string;
const PAST = new Date('2026-01-01T00:00:00Z');
const DAY = 24 * 3600 * 1000;
const scope = scanScope({ engine: 'test', checks: ['c2pa'] });

function resultFor(sha256: string): DetectionResult {
  return {
    id: 'chk_aaaaaaaaaaaaaaaaaaaaaaaa',
    media: { type: 'image/png', bytes: 3, sha256 },
    matches: [{ check: 'c2pa', result: 'not_found', confidence: 1 }],
    checks_run: ['c2pa'],
    duration_ms: 4,
  } as DetectionResult;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  utimesSync(path, PAST, PAST);
  return path;
}

async function open(cacheDir: string, startedAt: number, warnings: string[] = []): Promise<ScanCache> {
  return ScanCache.open({ dir: cacheDir, scope, startedAt, warn: (m) => warnings.push(m) });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-scan-cache-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ScanCache', () => {
  it('a hit a week or more after the last use refreshes it; an earlier one does not', async () => {
    const cacheDir = join(dir, 'touch');
    const a = file('a.png', 'aaa');
    const b = file('b.png', 'bbb');
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    let cache = await open(cacheDir, t0);
    cache.put(cache.identify(a)!, { result: resultFor('a'.repeat(64)) });
    cache.put(cache.identify(b)!, { result: resultFor('b'.repeat(64)) });
    await cache.close();
    expect(await scanCacheStats(cacheDir)).toMatchObject({ entries: 2, oldest_use: new Date(t0).toISOString(), newest_use: new Date(t0).toISOString() });
    // Six days later: a hit, nothing rewritten.
    cache = await open(cacheDir, t0 + 6 * DAY);
    expect(cache.get(cache.identify(a)!)?.result.media.sha256).toBe('a'.repeat(64));
    await cache.close();
    expect((await scanCacheStats(cacheDir)).newest_use).toBe(new Date(t0).toISOString());
    // Eight days later: a's hit moves its last use; b, not looked up, stays the oldest.
    cache = await open(cacheDir, t0 + 8 * DAY);
    expect(cache.get(cache.identify(a)!)?.result.media.sha256).toBe('a'.repeat(64));
    await cache.close();
    expect(await scanCacheStats(cacheDir)).toMatchObject({ oldest_use: new Date(t0).toISOString(), newest_use: new Date(t0 + 8 * DAY).toISOString() });
    // The refreshed entry is still whole.
    cache = await open(cacheDir, t0 + 8 * DAY);
    expect(cache.get(cache.identify(a)!)?.result).toEqual({ ...resultFor('a'.repeat(64)), duration_ms: 0, id: 'chk_000000000000000000000000' });
    await cache.close();
  });

  it('a value damaged inside the file fails its CRC and is a miss, not a wrong result', async () => {
    const cacheDir = join(dir, 'crc');
    const a = file('c.png', 'ccc');
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    let cache = await open(cacheDir, t0);
    cache.put(cache.identify(a)!, { result: resultFor('c'.repeat(64)) });
    await cache.close();
    const data = join(cacheDir, 'scan.mdb');
    const bytes = readFileSync(data);
    const at = bytes.indexOf('c'.repeat(64));
    expect(at).toBeGreaterThan(0);
    bytes[at + 10] = 'd'.charCodeAt(0); // still valid JSON, a different sha256
    writeFileSync(data, bytes);
    cache = await open(cacheDir, t0);
    expect(cache.get(cache.identify(a)!)).toBeUndefined();
    await cache.close();
  });

  it('identify() answers undefined, never throws, for paths a stat cannot follow', async () => {
    // Such paths are reported by the checker behind the cache; a throw here ended the scan.
    const loop = join(dir, 'loop.jpg');
    symlinkSync(loop, loop);
    const cache = await open(join(dir, 'identify'), Date.now());
    expect(cache.identify(loop)).toBeUndefined(); // ELOOP
    expect(cache.identify(join(dir, 'a.png', 'x.jpg'))).toBeUndefined(); // ENOTDIR
    expect(cache.identify(join(dir, 'missing.jpg'))).toBeUndefined();
    expect(cache.identify(dir)).toBeUndefined(); // a folder
    await cache.close();
  });

  it('keys on the identity and the scope: another size, times or scope is a miss', async () => {
    const cacheDir = join(dir, 'keys');
    const a = file('e.png', 'eee');
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const writer = await open(cacheDir, t0);
    const stored: CachedCheck = { result: resultFor('e'.repeat(64)), hints: { iptc_digital_source_type: 'x' } };
    const before = writer.identify(a)!;
    writer.put(before, stored);
    await writer.close(); // writes are committed in the background: read them from a new handle
    const cache = await open(cacheDir, t0);
    expect(cache.get(before)?.hints).toEqual(stored.hints);
    // The same file touched to another modification time: another identity, a miss.
    utimesSync(a, new Date('2026-02-01T00:00:00Z'), new Date('2026-02-01T00:00:00Z'));
    expect(cache.get(cache.identify(a)!)).toBeUndefined();
    expect(statSync(a).size).toBe(3);
    await cache.close();
    // Another scope (other checks) reads none of it.
    const other = await ScanCache.open({ dir: cacheDir, scope: scanScope({ engine: 'test', checks: ['camera_reference'] }), startedAt: t0, warn: () => {} });
    expect(other.get(before)).toBeUndefined();
    await other.close();
  });
});
