// camera_reference pinned value by value (issue 18, "Tests that pin behaviour"): real JPEGs
// through the engine, each differing from an iPhone capture in one field.
import { describe, expect, it } from 'vitest';
import { cameraReference } from '../src/detectors/camera-reference.js';
import { detect, runCheck } from '../src/engine/detect.js';
import type { DetectionResult } from '../src/types.js';
import { APPLE_MAKER_NOTE, concat, exifApp1, tinyJpeg } from './fixtures/make.js';

const IPHONE = { make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE };
type Tags = Parameters<typeof exifApp1>[0];

async function camera(tags: Partial<Tags>, bytes = tinyJpeg({ exif: exifApp1({ ...IPHONE, ...tags }) })) {
  const result: DetectionResult = await detect(bytes, { checks: ['camera_reference'] });
  const { result: r, confidence } = result.matches[0]!;
  return { result: r, confidence };
}

const FOUND_ALL = { result: 'found', confidence: 0.9 };
const FOUND_SOME = { result: 'found', confidence: 0.7 };
const NOT_FOUND = { result: 'not_found', confidence: 0.8 };
const latin1 = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));

describe('the maker note must be Apple\'s, whatever the Make says', () => {
  it('Make Apple with an iPhone maker note: found 0.9 (the reference)', async () => {
    expect(await camera({})).toEqual(FOUND_ALL);
  });

  it.each([
    ['a Nikon maker note', concat(latin1('Nikon\0\x02\x10\0\0'), new Uint8Array(32))],
    ['a Canon maker note (no signature, an IFD)', concat(Uint8Array.from([0, 3, 0, 1, 0, 3, 0, 0, 0, 4]), new Uint8Array(32))],
    ['a Samsung-style text note', latin1('SAMSUNG\0\0\0\0\0\0\0\0\0')],
    ['"Apple iOS" without its NUL', concat(latin1('Apple iOS '), new Uint8Array(16))],
    ['"Apple iO" and NUL', concat(latin1('Apple iO\0\0'), new Uint8Array(16))],
    ['lower-case "apple iOS"', concat(latin1('apple iOS\0'), new Uint8Array(16))],
    ['the signature one byte in', concat(latin1(' Apple iOS\0'), new Uint8Array(16))],
    ['a maker note shorter than the signature', latin1('Apple iO')],
  ])('Make Apple with %s: not_found 0.8', async (_name, makerNote) => {
    expect(await camera({ makerNote })).toEqual(NOT_FOUND);
  });

  it('a maker note that is exactly the signature "Apple iOS" and NUL, nothing after it: found', async () => {
    expect(await camera({ makerNote: latin1('Apple iOS\0') })).toEqual(FOUND_ALL);
  });

  it('the Make must be "Apple" (surrounding spaces are trimmed, as exifr does; nothing else is)', async () => {
    for (const make of ['apple', 'Apple Inc.', 'APPLE', 'Appl']) expect(await camera({ make }), make).toEqual(NOT_FOUND);
  });
});

describe('model and software only move the confidence', () => {
  it.each([
    ['iPhone 15 Pro', FOUND_ALL],
    ['iPhone', FOUND_ALL],
    ['iPad Pro (11-inch)', FOUND_ALL],
    ['Not an iPhone', FOUND_SOME],
    ['My iPad', FOUND_SOME],
    ['iPhoneX', FOUND_SOME],
    ['iPod touch', FOUND_SOME],
    ['iphone 12', FOUND_SOME],
  ])('model %j: %o', async (model, want) => {
    expect(await camera({ model })).toEqual(want);
  });

  it('no model at all: found 0.7', async () => {
    expect(await camera({ model: undefined })).toEqual(FOUND_SOME);
  });

  it.each([
    ['17.1', FOUND_ALL],
    ['17.10', FOUND_ALL],
    ['8.3', FOUND_ALL],
    ['16.4.1', FOUND_ALL],
    ['17.10.12', FOUND_ALL],
    ['17', FOUND_ALL],
    ['17.1 edited', FOUND_SOME],
    ['v17.1', FOUND_SOME],
    ['17.1.2.3', FOUND_SOME],
    ['117.1', FOUND_SOME],
    ['17.100', FOUND_SOME],
    ['17.', FOUND_SOME],
    ['Adobe Photoshop 25.0', FOUND_SOME],
  ])('software %j: %o', async (software, want) => {
    expect(await camera({ software })).toEqual(want);
  });

  it('no software at all: found 0.7', async () => {
    expect(await camera({ software: undefined })).toEqual(FOUND_SOME);
  });
});

describe('where the EXIF sits in the JPEG', () => {
  /** An APP1 segment holding XMP, as Photoshop and iOS both write one. */
  function xmpApp1(): Uint8Array {
    const payload = latin1('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>');
    const head = Buffer.alloc(4);
    head.writeUInt16BE(0xffe1);
    head.writeUInt16BE(payload.length + 2, 2);
    return concat(head, payload);
  }

  it('an XMP APP1 segment before the Exif one does not hide it', async () => {
    const plain = tinyJpeg({ exif: exifApp1(IPHONE) });
    const withXmpFirst = concat(plain.subarray(0, 2), xmpApp1(), plain.subarray(2));
    expect(await camera({}, withXmpFirst)).toEqual(FOUND_ALL);
  });

  it('an XMP APP1 alone is no EXIF: not_found', async () => {
    const plain = tinyJpeg();
    expect(await camera({}, concat(plain.subarray(0, 2), xmpApp1(), plain.subarray(2)))).toEqual(NOT_FOUND);
  });
});

describe('the detector itself', () => {
  it('its catalogue entry is SPEC 2.1\'s row: available, inverse, JPEG and TIFF', () => {
    const { run: _run, ...entry } = cameraReference;
    expect(entry).toEqual({
      id: 'camera_reference',
      name: 'Camera reference',
      description:
        "Reads EXIF data for one camera vendor's make and that vendor's maker note, as written by its phone and tablet cameras. A match points to a camera capture. Inverse signal (inverse is true). EXIF can be edited, so a match is a hint, not proof.",
      media_types: ['image/jpeg', 'image/tiff'],
      status: 'available',
      inverse: true,
    });
  });

  it('a failure that is not damage in the file is not blamed on the file', async () => {
    // No bytes at all: a caller's fault, a TypeError in the reader, not ExifDamage.
    const media = { bytes: undefined as unknown as Uint8Array, type: 'image/tiff', sha256: '' };
    await expect(cameraReference.run(media, {})).rejects.toThrow(TypeError);
    const match = await runCheck(cameraReference, media);
    expect(match).toMatchObject({ check: 'camera_reference', result: 'unavailable', confidence: 0 });
    expect(match.reason).toMatch(/^The camera_reference check failed on this file: /);
  });
});
