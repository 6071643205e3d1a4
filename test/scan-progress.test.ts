// A scan in a terminal: the live display (ink) starts only after a delay, draws ASCII frames and
// leaves the screen clean when it ends; the table that ends the scan is plain text.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi } from '../src/commands/io.js';
import { LiveProgress } from '../src/ui/live-progress.js';
import { ScanStats } from '../src/ui/scan-stats.js';
import { formatScanTable } from '../src/ui/scan-table.js';
import { makeStyle } from '../src/ui/style.js';
import type { DetectionResult } from '../src/types.js';
import { replay } from './helpers/terminal.js';

function result(c2pa: 'found' | 'not_found', camera: 'found' | 'not_found' | 'unavailable'): DetectionResult {
  return {
    id: 'chk_test',
    media: { type: 'image/jpeg', bytes: 1, sha256: '0'.repeat(64) },
    matches: [
      { check: 'c2pa', result: c2pa, confidence: 1 },
      { check: 'camera_reference', result: camera, confidence: camera === 'found' ? 0.6 : camera === 'not_found' ? 1 : 0 },
    ],
    checks_run: ['c2pa', 'camera_reference'],
    duration_ms: 1,
  } as DetectionResult;
}

function statsOf(results: DetectionResult[], unreadable = 0): ScanStats {
  const stats = new ScanStats();
  for (const r of results) stats.add(r);
  stats.unreadable = unreadable;
  stats.discovered = results.length + unreadable;
  stats.walking = false;
  return stats;
}

/** A terminal-like stream 80 columns wide that keeps what is written to it. */
function fakeTerminal(columns = 80) {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns, rows: 24 });
  let written = '';
  stream.on('data', (c: Buffer) => (written += c.toString('utf8')));
  return { stream: stream as unknown as NodeJS.WriteStream, written: () => written };
}

const until = async (cond: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('formatScanTable', () => {
  it('counts each check, with files, unreadable, time and rate on the first line', () => {
    const stats = statsOf([result('found', 'not_found'), result('not_found', 'found'), result('not_found', 'unavailable')], 1);
    const text = formatScanTable(stats, makeStyle(false), stats.startedAt + 2000);
    expect(text.split('\n')).toEqual([
      '3 checked · 1 unreadable · 2.0 s · 2 files/s',
      'check                   found  not found  unavailable',
      'c2pa                        1          2            0',
      'camera_reference            1          1            1',
      '',
    ]);
  });

  it('groups the thousands of every count, as in "1,087 from cache"', () => {
    const results = [...Array.from({ length: 1200 }, () => result('found', 'not_found')), ...Array.from({ length: 34 }, () => result('not_found', 'unavailable'))];
    const stats = statsOf(results, 1001);
    const text = formatScanTable(stats, makeStyle(false), stats.startedAt + 1000);
    expect(text.split('\n')).toEqual([
      '1,234 checked · 1,001 unreadable · 1.0 s · 2,235 files/s',
      'check                   found  not found  unavailable',
      'c2pa                    1,200         34            0',
      'camera_reference            0      1,200           34',
      '',
    ]);
  });

  it('is bold in its header and green where something was found, with colour on', () => {
    const text = formatScanTable(statsOf([result('found', 'not_found')]), makeStyle(true));
    expect(text).toContain('\u001b[1mcheck ');
    expect(text).toContain('\u001b[32m       1\u001b[39m');
  });
});

describe('LiveProgress', () => {
  // ink reads CI from the environment when it is first imported (which LiveProgress does on its
  // first start) and, in CI, draws only a last frame at unmount. These tests watch the frames.
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  beforeAll(() => {
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
  });
  afterAll(() => {
    for (const [key, value] of Object.entries(saved)) if (value !== undefined) process.env[key] = value;
  });

  it('draws ASCII frames once its delay has passed, and leaves one empty line when it ends', async () => {
    const term = fakeTerminal();
    const stats = statsOf([result('found', 'not_found')]);
    stats.discovered = 10;
    const live = new LiveProgress(stats, term.stream, false, 0);
    await until(() => term.written().includes('files |'));
    const frame = replay(term.written()).lines.join('\n');
    expect(frame).toMatch(/^\[#{2}\.{22}\] 1\/10 files \| [\d.]+ files\/s \| ETA \d+ s\nfound: c2pa 1 \| camera_reference 0/);
    expect(frame).toMatch(/^[\x20-\x7e\n]*$/);
    expect(live.end()).toBe(true);
    const screen = replay(term.written());
    expect(screen.lines.filter((l) => l !== '')).toEqual([]);
    expect(screen.cursorVisible).toBe(true);
  });

  it('never draws when the scan ends before the delay', async () => {
    const term = fakeTerminal();
    const live = new LiveProgress(statsOf([]), term.stream, false, 50);
    expect(live.end()).toBe(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(term.written()).toBe('');
  });

  it('draws nothing on a terminal that reports no width', async () => {
    const term = fakeTerminal(0);
    const live = new LiveProgress(statsOf([]), term.stream, false, 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(live.end()).toBe(false);
    expect(term.written()).toBe('');
  });
});

describe('isCi', () => {
  it('follows ink: CI or CONTINUOUS_INTEGRATION set to anything but 0 or false, even empty', () => {
    expect(isCi({})).toBe(false);
    expect(isCi({ CI: '' })).toBe(true);
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: '1' })).toBe(true);
    expect(isCi({ CI: '0' })).toBe(false);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({ CONTINUOUS_INTEGRATION: 'yes' })).toBe(true);
  });
});
