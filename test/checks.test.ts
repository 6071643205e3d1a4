import { describe, expect, it } from 'vitest';
import { CheckSelectionError, resolveChecks, splitCheckList } from '../src/engine/checks.js';
import { detectorsBody } from '../src/detectors/catalogue.js';

describe('check selection', () => {
  it('defaults to the whole catalogue in SPEC 2.1 order', () => {
    expect(resolveChecks()).toEqual(['c2pa', 'watermark_a', 'watermark_b', 'open_content_seal', 'camera_reference']);
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
  it('lists the five detectors with their status, inverse flag and media types', () => {
    const { detectors } = detectorsBody();
    expect(detectors.map((d) => [d.id, d.status, d.inverse])).toEqual([
      ['c2pa', 'available', false],
      ['watermark_a', 'planned', false],
      ['watermark_b', 'planned', false],
      ['open_content_seal', 'planned', false],
      ['camera_reference', 'available', true],
    ]);
    expect(detectors[0]!.media_types).toEqual([
      'image/jpeg', 'image/png', 'image/webp', 'image/tiff', 'image/heic', 'image/heif', 'image/avif', 'video/mp4', 'video/quicktime', 'audio/mp4',
    ]);
    expect(detectors[1]!.media_types).toEqual(['image/jpeg', 'image/png', 'image/webp', 'audio/wav', 'video/mp4']);
    expect(detectors[2]!.media_types).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(detectors[3]!.media_types).toEqual(['image/jpeg', 'image/png', 'video/mp4', 'audio/wav']);
    expect(detectors[4]!.media_types).toEqual(['image/jpeg', 'image/tiff']);
    for (const d of detectors) expect(Object.keys(d)).toEqual(['id', 'name', 'description', 'media_types', 'status', 'inverse']);
  });
});
