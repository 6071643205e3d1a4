// The one-file check's pixel check on a second thread (engine/pixel-offload.ts, issue 32): the
// same result as in this thread, for a marked picture, an unmarked one, one too small to read
// and a file that is no picture; the caller's bytes untouched (the pool moves what it sends, and
// a Buffer's slice() is a view: a first build detached the CLI's bytes, and `check FILE` failed
// with "Cannot perform Construct on a detached ArrayBuffer"); and the built CLI, one file, gives
// what --concurrency 1 (everything in one thread) gives.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { detect } from '../src/engine/detect.js';
import { PixelOffload } from '../src/engine/pixel-offload.js';
import { embedDwtDct, syntheticPicture, toJpeg, toPng } from './helpers/dwt-dct-encoder.js';
import { parseLines, runBin } from './helpers/run-cli.js';

/** A result without what differs between two runs of the same check. */
function comparable(result: { id?: string; duration_ms?: number }) {
  const { id: _id, duration_ms: _ms, ...rest } = result;
  return rest;
}

describe('the pixel check on a second thread', () => {
  const offload = new PixelOffload();
  const files: Record<string, Uint8Array> = {};
  beforeAll(async () => {
    const picture = syntheticPicture(512, 512, 5);
    files.marked = await toPng(embedDwtDct(picture, PAYLOAD_BITS.sdxl48));
    files.unmarked = await toJpeg(picture, 90);
    files.small = await toPng(syntheticPicture(64, 64, 2));
    files.text = new TextEncoder().encode('not a picture at all\n');
  });
  afterAll(() => offload.close());

  it.each(['marked', 'unmarked', 'small', 'text'])('gives the in-thread result on the %s file', async (name) => {
    // A Node Buffer, as the CLI reads files: its slice() shares memory with it.
    const bytes = Buffer.from(files[name]!);
    const away = await detect(bytes, {}, offload);
    expect(bytes.byteLength).toBe(files[name]!.byteLength);
    expect(comparable(away)).toEqual(comparable(await detect(bytes)));
  });

  it('reads the marked picture on the thread, and leaves refusals to this thread', async () => {
    expect(offload.worth({ bytes: files.marked!, type: 'image/png', sha256: '' })).toBe(true);
    expect(offload.worth({ bytes: files.small!, type: 'image/png', sha256: '' })).toBe(false);
    expect(offload.worth({ bytes: files.text!, type: 'text/plain', sha256: '' })).toBe(false);
    const result = await detect(Buffer.from(files.marked!), { checks: ['invisible_watermark'] }, offload);
    expect(result.matches).toEqual([expect.objectContaining({ check: 'invisible_watermark', result: 'found', watermark: expect.objectContaining({ bits_matched: 48 }) })]);
  });

  it('the built CLI on one file answers as with --concurrency 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prov-offload-'));
    try {
      for (const name of ['marked', 'unmarked']) {
        const path = join(dir, `${name}.${name === 'marked' ? 'png' : 'jpg'}`);
        writeFileSync(path, files[name]!);
        const offloaded = await runBin(['check', '--json', path]);
        const inThread = await runBin(['check', '--json', '--concurrency', '1', path]);
        expect(offloaded.stderr).toBe('');
        expect(offloaded.code).toBe(inThread.code);
        expect(parseLines(offloaded.stdout).map(comparable)).toEqual(parseLines(inThread.stdout).map(comparable));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
