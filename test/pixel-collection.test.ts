// Decoded pixels freed once their file is checked (engine/detect.ts): on the CLI's own thread when
// it checks many files in it (`check --concurrency 1`), a young-generation collection after each
// file, so that the next decode reuses their memory instead of pages fresh from the system.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectYoungNow } from '../src/engine/idle-collect.js';
import { parseLines, runBin } from './helpers/run-cli.js';

let dir: string;
let pictures: string[];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-collect-'));
  // 400 x 400 RGB: 480 KB of pixels each, past the 256 KB from which a file's pixels are collected.
  pictures = [];
  for (const [i, mean] of [96, 160].entries()) {
    const file = join(dir, `noise-${i}.png`);
    await sharp({ create: { width: 400, height: 400, channels: 3, background: '#000', noise: { type: 'gaussian', mean, sigma: 30 } } }).png().toFile(file);
    pictures.push(file);
  }
  // A preloaded hook counts the forced young-generation collections of the built CLI's main
  // thread (V8 flags a gc() call's collections as forced; its own are not) and reports at exit.
  const hook = join(dir, 'count-forced-scavenges.mjs');
  writeFileSync(
    hook,
    `import { PerformanceObserver, constants } from 'node:perf_hooks';
import { writeSync } from 'node:fs';
let forced = 0;
const count = (entries) => { for (const e of entries) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR && (e.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED)) forced++; };
const observer = new PerformanceObserver((list) => count(list.getEntries()));
observer.observe({ entryTypes: ['gc'] });
process.on('exit', () => { count(observer.takeRecords()); writeSync(2, 'forced scavenges: ' + forced + '\\n'); });
`,
  );
  env = { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import ${pathToFileURL(hook).href}`].filter(Boolean).join(' ') };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const forcedScavenges = (stderr: string) => Number(/forced scavenges: (\d+)/.exec(stderr)?.[1]);

describe('collecting a checked file\'s pixels', () => {
  it('collectYoungNow frees a buffer that died young', async () => {
    const held = () => process.memoryUsage().arrayBuffers;
    let pixels: Uint8Array | undefined = new Uint8Array(4 * 1024 * 1024).fill(7);
    const alive = held();
    expect(pixels.length).toBe(4 * 1024 * 1024);
    pixels = undefined;
    expect(collectYoungNow()).toBe(true);
    // Node 22 frees it within the collection, Node 20 and 24 just after (the sweep of array buffers).
    await new Promise((resolve) => setImmediate(resolve));
    expect(held()).toBeLessThan(alive - 3 * 1024 * 1024);
  });

  it('the built CLI collects after each decoded file when it checks many in its own thread', async () => {
    const run = await runBin(['check', '--json', '--concurrency', '1', ...pictures], { env });
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout).map((l) => l.source)).toEqual(pictures);
    expect(forcedScavenges(run.stderr)).toBe(2);
  });

  it('leaves collection to V8 for a single file, and where no check decodes the pixels', async () => {
    const single = await runBin(['check', '--json', pictures[0]!], { env });
    expect(single.code).toBe(0);
    expect(forcedScavenges(single.stderr)).toBe(0);
    const undecoded = await runBin(['check', '--json', '--concurrency', '1', '--checks', 'c2pa', ...pictures], { env });
    expect(parseLines(undecoded.stdout)).toHaveLength(2);
    expect(forcedScavenges(undecoded.stderr)).toBe(0);
  });
});
