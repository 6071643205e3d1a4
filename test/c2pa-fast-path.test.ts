// The c2pa fast path skips c2pa-rs for files without any C2PA marker bytes. This proves, on the
// corpus and on our own fixtures, that skipping changes no result the contract accepts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest } from '../src/detectors/c2pa.js';
import { c2pa } from '../src/detectors/c2pa.js';
import { hasC2paMarker } from '../src/media/c2pa-markers.js';
import { describeMedia } from '../src/engine/detect.js';
import { exifApp1, APPLE_MAKER_NOTE, tinyJpeg, tinyMp4, tinyPng, tinyTiff } from './fixtures/make.js';
import { CORPUS_FILES, HAS_CORPUS, loadExpected } from './helpers/corpus.js';

describe.skipIf(!HAS_CORPUS)('fast path on the corpus', () => {
  const expected = HAS_CORPUS ? loadExpected() : {};
  const names = HAS_CORPUS ? readdirSync(CORPUS_FILES).sort() : [];

  it.each(names)('%s: the fast path and the full c2pa-rs read agree', async (name) => {
    const media = await describeMedia(readFileSync(join(CORPUS_FILES, name)));
    if (!c2pa.media_types.includes(media.type)) return; // the engine never runs c2pa on it
    const full = await readManifest(media);
    const fast = await c2pa.run(media);
    if (hasC2paMarker(media.bytes)) {
      expect(fast).toEqual(full); // with a marker, the fast path is the full read
      return;
    }
    expect(fast).toEqual({ result: 'not_found', confidence: 1 });
    // Without marker bytes c2pa-rs finds nothing either, or refuses a hostile file that the
    // corpus marks as also correctly reported not_found.
    const accepted = [expected[name]!.c2pa.result, ...(expected[name]!.c2pa.also_accepted ?? [])];
    expect(full.result === 'not_found' || accepted.includes('not_found')).toBe(true);
  });

  it('the fast path is actually taken for most unsigned corpus files', async () => {
    const skipped = names.filter((n) => !hasC2paMarker(readFileSync(join(CORPUS_FILES, n))));
    expect(skipped.length).toBeGreaterThanOrEqual(10);
  });
});

describe('fast path on fixtures', () => {
  it.each([
    ['JPEG', () => tinyJpeg()],
    ['camera JPEG', () => tinyJpeg({ exif: exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) })],
    ['PNG', () => tinyPng()],
    ['TIFF', () => tinyTiff()],
    ['MP4', () => tinyMp4()],
  ])('an unsigned %s has no marker and c2pa-rs agrees it has no manifest', async (_n, make) => {
    const media = await describeMedia(make());
    expect(hasC2paMarker(media.bytes)).toBe(false);
    expect(await readManifest(media)).toEqual({ result: 'not_found', confidence: 1 });
  });
});

describe('hasC2paMarker', () => {
  const bytes = (...parts: string[]) => Buffer.from(parts.join(''), 'latin1');
  it.each([
    ['nothing', bytes('\xff\xd8 plain image data \xff\xd9'), false],
    ['a JUMBF box type', bytes('\x00\x00\x00\x20jumb\x00\x00\x00\x18jumd'), true],
    ['a c2pa label alone (no JUMBF box)', bytes('xx c2pa yy'), false],
    ['dcterms:provenance', bytes('<rdf:Description dcterms:provenance="https://x/m.c2pa"/>'), true],
    ['"provenance" at the very end', bytes('abc provenance'), true],
    ['"provenance" at the very start', bytes('provenance abc'), true],
    ['"proven" alone', bytes('a proven fact'), false],
    ['"proven" at the very end', bytes('it is proven'), false],
    ['"provenanc" cut short', bytes('provenanc'), false],
    ['"provenance" after a false "proven"', bytes('proven, then provenance'), true],
    ['"provenance" straddling "proven"', bytes('provenprovenance'), true],
  ])('%s', (_name, buf, expected) => {
    expect(hasC2paMarker(buf)).toBe(expected);
    // The same answer from a view into a larger buffer (byteOffset other than 0).
    const padded = Buffer.concat([Buffer.from('\x00\x01\x02'), buf, Buffer.from('\x03')]);
    expect(hasC2paMarker(padded.subarray(3, 3 + buf.length))).toBe(expected);
  });
});
