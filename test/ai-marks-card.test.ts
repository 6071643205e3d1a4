// The watermark card and the detector's description say what the check does (issue 31): it reads
// a lossless cut-out of a marked picture on the generator's block grid (dwt-dct-crop.ts; the AI
// corpus' crop10 files are found), so "does not survive cropping" is no longer true.
import { describe, expect, it } from 'vitest';
import { invisibleWatermark } from '../src/detectors/invisible-watermark.js';
import { makeStyle } from '../src/ui/style.js';
import { watermarkLines } from '../src/ui/ai-marks-card.js';

describe('the watermark card and description', () => {
  const card = watermarkLines(
    { check: 'invisible_watermark', result: 'found', confidence: 0.9, watermark: { method: 'dwtDct', payload: 'sdxl48', bits_matched: 48, bits_total: 48 } },
    makeStyle(false),
  );

  it('say that lossless crops are read on the generator\'s grid, and what still erases the mark', () => {
    expect(card.rows).toEqual([
      'the dwtDct mark of the SDXL and Stable Video Diffusion pipelines',
      "in the pixels: read through metadata stripping, lossless crops (on the generator's block grid), halving and most JPEG/WebP saves at quality 90-95; other resizes and lower JPEG qualities mostly erase it",
    ]);
    expect(invisibleWatermark.description).toContain("lossless crops (a cut-out is read on the generator's 8-pixel block grid, at every offset), a halving of the picture and most JPEG or WebP saves at quality 90-95; other resizes and JPEG at quality 85 or below mostly erase it.");
  });

  it('no longer say that cropping defeats it', () => {
    for (const text of [...card.rows, invisibleWatermark.description]) expect(text).not.toMatch(/not[^.;]*crop/i);
  });
});
