import { describe, expect, it } from 'vitest';
import { CheckSelectionError, parseCatalogue, resolveChecks, splitCheckList } from '../src/engine/checks.js';
import { detectorsBody } from '../src/detectors/catalogue.js';

describe('check selection', () => {
  it('defaults to the whole catalogue: the hosted five in SPEC 2.1 order, then this project\'s two', () => {
    expect(resolveChecks()).toEqual(['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference', 'generator_metadata', 'invisible_watermark']);
  });
  it('with the hosted catalogue: exactly the hosted five, and the other two are unknown there', () => {
    expect(resolveChecks(undefined, 'hosted')).toEqual(['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference']);
    expect(resolveChecks(['camera_reference', 'c2pa'], 'hosted')).toEqual(['c2pa', 'camera_reference']);
    expect(() => resolveChecks(['generator_metadata'], 'hosted')).toThrow(
      'Check id "generator_metadata" is not in the hosted catalogue. Valid check ids: c2pa, watermark_a, watermark_b, open_content_seal, camera_reference.',
    );
    expect(() => resolveChecks(['nope'], 'hosted')).toThrow('Unknown check id "nope". Valid check ids: c2pa, watermark_a, watermark_b, open_content_seal, camera_reference.');
    expect(resolveChecks(['invisible_watermark', 'generator_metadata'], 'full')).toEqual(['generator_metadata', 'invisible_watermark']);
  });
  it('reads a catalogue name in any letter case, and refuses another name', () => {
    expect(parseCatalogue('hosted')).toBe('hosted');
    expect(parseCatalogue(' Full ')).toBe('full');
    expect(() => parseCatalogue('all')).toThrow('Unknown catalogue "all": use full (every detector, the default) or hosted (the hosted service\'s five).');
  });
  it('orders a selection by the catalogue', () => {
    expect(resolveChecks(['camera_reference', 'watermark_a'])).toEqual(['watermark_a', 'camera_reference']);
  });
  it('splits a comma list, keeping blanks so they are refused', () => {
    expect(splitCheckList('c2pa, camera_reference')).toEqual(['c2pa', 'camera_reference']);
    expect(() => resolveChecks(splitCheckList('c2pa,'))).toThrow(CheckSelectionError);
  });
  it('errors carry the daemon mapping: invalid_request on param checks', () => {
    try {
      resolveChecks(['x']);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CheckSelectionError);
      expect((err as CheckSelectionError).type).toBe('invalid_request');
      expect((err as CheckSelectionError).param).toBe('checks');
    }
  });
});

describe('catalogue (SPEC 2.1)', () => {
  it('lists the seven detectors with their status, inverse flag and media types', () => {
    const { detectors } = detectorsBody();
    expect(detectors.map((d) => [d.id, d.status, d.inverse])).toEqual([
      ['c2pa', 'available', false],
      ['watermark_a', 'planned', false],
      ['watermark_b', 'planned', false],
      ['open_content_seal', 'planned', false],
      ['camera_reference', 'available', true],
      ['generator_metadata', 'available', false],
      ['invisible_watermark', 'available', false],
    ]);
    expect(detectors[0]!.media_types).toEqual([
      'image/jpeg', 'image/png', 'image/webp', 'image/tiff', 'image/heic', 'image/heif', 'image/avif', 'video/mp4', 'video/quicktime', 'audio/mp4',
    ]);
    expect(detectors[1]!.media_types).toEqual(['image/jpeg', 'image/png', 'image/webp', 'audio/wav', 'video/mp4']);
    expect(detectors[2]!.media_types).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(detectors[3]!.media_types).toEqual(['image/jpeg', 'image/png', 'video/mp4', 'audio/wav']);
    expect(detectors[4]!.media_types).toEqual(['image/jpeg', 'image/tiff']);
    expect(detectors[5]!.media_types).toEqual(['image/png', 'image/jpeg', 'image/webp']);
    expect(detectors[6]!.media_types).toEqual(['image/png', 'image/jpeg', 'image/webp']);
    for (const d of detectors) expect(Object.keys(d)).toEqual(['id', 'name', 'description', 'media_types', 'status', 'inverse']);
  });
});

describe('the hosted catalogue (--catalogue hosted)', () => {
  it('serves exactly the hosted five, entries equal to the full catalogue\'s', () => {
    const hosted = detectorsBody('hosted').detectors;
    expect(hosted.map((d) => d.id)).toEqual(['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference']);
    expect(hosted).toEqual(detectorsBody().detectors.slice(0, 5));
  });
});
