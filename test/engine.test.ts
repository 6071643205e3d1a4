// Real files through the engine: fixtures the tests make, read back by detect().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckSelectionError } from '../src/engine/checks.js';
import { detect } from '../src/engine/detect.js';
import type { DetectionResult, Match } from '../src/types.js';
import { APPLE_MAKER_NOTE, EMPTY, NOT_MEDIA, exifApp1, sha256Hex, tamper, tinyJpeg, tinyTiff, truncate } from './fixtures/make.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';

const ALL = ['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference', 'generator_metadata', 'invisible_watermark'];

function match(result: DetectionResult, check: string): Match {
  const found = result.matches.find((m) => m.check === check);
  if (!found) throw new Error(`no ${check} match`);
  return found;
}

let signed: SignedSet;
beforeAll(async () => {
  signed = await makeSignedSet();
});
afterAll(() => signed?.cleanup());

describe('detection result shape (SPEC 2.2, CONTRACT)', () => {
  it('has a chk_ id, media facts, every check in catalogue order and an integer duration', async () => {
    const bytes = tinyJpeg({ seed: 7 });
    const result = await detect(bytes);
    expect(result.id).toMatch(/^chk_[A-Za-z0-9_-]{24}$/);
    expect(result.media).toEqual({ type: 'image/jpeg', bytes: bytes.length, sha256: sha256Hex(bytes) });
    expect(result.checks_run).toEqual(ALL);
    expect(result.matches.map((m) => m.check)).toEqual(ALL);
    expect(Number.isInteger(result.duration_ms)).toBe(true);
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    for (const m of result.matches) {
      expect(m.confidence).toBeGreaterThanOrEqual(0);
      expect(m.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('with the hosted catalogue: exactly the hosted five, and the others are unknown ids', async () => {
    const result = await detect(tinyJpeg({ seed: 7 }), { catalogue: 'hosted' });
    expect(result.checks_run).toEqual(ALL.slice(0, 5));
    expect(result.matches.map((m) => m.check)).toEqual(ALL.slice(0, 5));
    await expect(detect(tinyJpeg(), { catalogue: 'hosted', checks: ['generator_metadata'] })).rejects.toThrow(/not in the hosted catalogue/);
  });

  it('gives planned detectors unavailable with a reason and confidence 0', async () => {
    const result = await detect(tinyJpeg());
    for (const id of ['watermark_a', 'watermark_b', 'open_content_seal']) {
      expect(match(result, id)).toEqual({
        check: id,
        result: 'unavailable',
        confidence: 0,
        reason: `The ${id} check is planned and not available yet.`,
      });
    }
  });

  it('runs a selection in catalogue order whatever order it was named in', async () => {
    const result = await detect(tinyJpeg(), { checks: ['camera_reference', 'c2pa'] });
    expect(result.checks_run).toEqual(['c2pa', 'camera_reference']);
    expect(result.matches.map((m) => m.check)).toEqual(['c2pa', 'camera_reference']);
  });

  it.each([
    [['nope'], /Unknown check id "nope"/],
    [['c2pa', 'c2pa'], /named twice/],
    [[], /names no detector/],
    [[''], /Unknown check id ""/],
  ])('rejects the selection %j', async (checks, message) => {
    const attempt = detect(tinyJpeg(), { checks });
    await expect(attempt).rejects.toBeInstanceOf(CheckSelectionError);
    await expect(attempt).rejects.toThrow(message);
    await expect(attempt).rejects.toThrow(/Valid check ids: c2pa, watermark_a, watermark_b, open_content_seal, camera_reference/);
  });
});

describe('c2pa on signed fixtures', () => {
  it.each([
    ['JPEG (claim v2)', () => signed.jpeg, 'image/jpeg'],
    ['JPEG (claim v1)', () => signed.jpegV1, 'image/jpeg'],
    ['PNG', () => signed.png, 'image/png'],
    ['MP4', () => signed.mp4, 'video/mp4'],
  ])('%s: found, with signer, tool, assertions and a valid credential', async (_name, bytes, type) => {
    const result = await detect(bytes(), { checks: ['c2pa'] });
    expect(result.media.type).toBe(type);
    const c2pa = match(result, 'c2pa');
    expect(c2pa.result).toBe('found');
    expect(c2pa.confidence).toBe(1);
    expect(c2pa.issuer).toBe('Provenance Test Signer');
    expect(c2pa.claims?.claim_generator).toBe('provenance-fixtures/1.0');
    // c2pa-rs's builder records its actions as c2pa.actions.v2 in v1 and v2 claims alike; like
    // c2patool, the list shows an MP4's BMFF hash assertion and hides a JPEG's or PNG's data hash.
    expect(c2pa.claims?.assertions).toEqual(type === 'video/mp4' ? ['c2pa.hash.bmff.v3', 'c2pa.actions.v2'] : ['c2pa.actions.v2']);
    expect(c2pa.claims?.signature_verified).toBe(false);
    expect(c2pa.claims?.validation).toEqual({ state: 'valid', codes: ['signingCredential.untrusted'] });
  });

  it.each([
    ['JPEG', () => signed.jpeg, 'image/jpeg', 'assertion.dataHash.mismatch'],
    ['PNG', () => signed.png, 'image/png', 'assertion.dataHash.mismatch'],
    ['MP4', () => signed.mp4, 'video/mp4', 'assertion.bmffHash.mismatch'],
  ])('a tampered %s is found but invalid, with the mismatch code', async (_name, bytes, type, code) => {
    const c2pa = match(await detect(tamper(bytes(), type), { checks: ['c2pa'] }), 'c2pa');
    expect(c2pa.result).toBe('found');
    expect(c2pa.claims?.validation?.state).toBe('invalid');
    expect(c2pa.claims?.validation?.codes).toContain(code);
    expect(c2pa.claims?.signature_verified).toBe(false);
  });

  it('a plain JPEG has no manifest: not_found with confidence 1', async () => {
    expect(match(await detect(tinyJpeg()), 'c2pa')).toEqual({ check: 'c2pa', result: 'not_found', confidence: 1 });
  });

  it.each([10, 200, 1000, 4000])('a signed JPEG truncated to %i bytes never crashes', async (n) => {
    const c2pa = match(await detect(truncate(signed.jpeg, n), { checks: ['c2pa'] }), 'c2pa');
    expect(['unavailable', 'not_found']).toContain(c2pa.result);
    if (c2pa.result === 'unavailable') expect(c2pa.reason).toMatch(/damaged|not read/);
  });

  it('a truncated signed MP4 is unavailable with a reason, not a crash', async () => {
    const cut = truncate(signed.mp4, Math.floor(signed.mp4.length * 0.6));
    const c2pa = match(await detect(cut, { checks: ['c2pa'] }), 'c2pa');
    expect(['unavailable', 'not_found']).toContain(c2pa.result);
    expect(c2pa.confidence).toBe(c2pa.result === 'unavailable' ? 0 : 1);
  });
});

describe('camera_reference on EXIF variants', () => {
  const apple = (tags: Parameters<typeof exifApp1>[0]) => tinyJpeg({ exif: exifApp1(tags) });

  it('Make, maker note, model and iOS version agree: found 0.9', async () => {
    const bytes = apple({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE });
    expect(match(await detect(bytes), 'camera_reference')).toEqual({ check: 'camera_reference', result: 'found', confidence: 0.9 });
  });

  it('an editor in Software lowers it to 0.7', async () => {
    const bytes = apple({ make: 'Apple', model: 'iPhone 12', software: 'Adobe Photoshop 25.0', makerNote: APPLE_MAKER_NOTE });
    expect(match(await detect(bytes), 'camera_reference')).toMatchObject({ result: 'found', confidence: 0.7 });
  });

  it('Make without the maker note is not_found 0.8', async () => {
    const bytes = apple({ make: 'Apple', model: 'iPhone 12', software: '17.0' });
    expect(match(await detect(bytes), 'camera_reference')).toEqual({ check: 'camera_reference', result: 'not_found', confidence: 0.8 });
  });

  it('an Apple maker note under another Make is not_found', async () => {
    const bytes = apple({ make: 'Canon', model: 'iPhone 12', software: '17.0', makerNote: APPLE_MAKER_NOTE });
    expect(match(await detect(bytes), 'camera_reference').result).toBe('not_found');
  });

  it('a JPEG without EXIF is not_found', async () => {
    expect(match(await detect(tinyJpeg()), 'camera_reference').result).toBe('not_found');
  });

  it('reads TIFF files too', async () => {
    const bytes = tinyTiff({ make: 'Apple', model: 'iPad Pro', software: '16.4.1', makerNote: APPLE_MAKER_NOTE });
    const result = await detect(bytes);
    expect(result.media.type).toBe('image/tiff');
    expect(match(result, 'camera_reference')).toMatchObject({ result: 'found', confidence: 0.9 });
  });

  it('is unavailable for a type it does not read, naming the type', async () => {
    const m = match(await detect(signed.png), 'camera_reference');
    expect(m).toEqual({
      check: 'camera_reference',
      result: 'unavailable',
      confidence: 0,
      reason: 'The media type image/png is not read by the camera_reference check.',
    });
  });

  it('confidence is never 1', async () => {
    const variants = [
      apple({ make: 'Apple', model: 'iPhone 15', software: '17.1', makerNote: APPLE_MAKER_NOTE }),
      apple({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }),
      apple({ make: 'Apple' }),
      tinyJpeg(),
    ];
    for (const bytes of variants) expect(match(await detect(bytes), 'camera_reference').confidence).toBeLessThan(1);
  });
});

describe('bad input', () => {
  it('a text file is application/octet-stream and every check is unavailable', async () => {
    const result = await detect(NOT_MEDIA);
    expect(result.media.type).toBe('application/octet-stream');
    for (const m of result.matches) {
      expect(m.result).toBe('unavailable');
      expect(m.confidence).toBe(0);
      expect(m.reason).toBeTruthy();
    }
    expect(match(result, 'c2pa').reason).toBe('The media type application/octet-stream is not read by the c2pa check.');
  });

  it('an empty file is checked: 0 bytes, the empty digest, every check unavailable', async () => {
    const result = await detect(EMPTY);
    expect(result.media).toEqual({
      type: 'application/octet-stream',
      bytes: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
    expect(result.matches.every((m) => m.result === 'unavailable')).toBe(true);
  });

  it('a truncated JPEG header still gets an answer for every check', async () => {
    const result = await detect(truncate(tinyJpeg({ exif: exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) }), 40));
    expect(result.media.type).toBe('image/jpeg');
    expect(result.matches).toHaveLength(7);
    const cam = match(result, 'camera_reference');
    expect(['not_found', 'unavailable']).toContain(cam.result);
  });
});
