// cardExtras (src/report/extras.ts) on bytes that are gone: a buffer moved to a pool worker is
// empty (detached) afterwards, and the Verify page's card once came back without pictures and
// without a word in the log (issue 34). It must refuse, loudly; the pictures of a real file come.
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/engine/detect.js';
import { cardExtras } from '../../src/report/extras.js';
import { tinyJpeg } from '../fixtures/make.js';

describe('cardExtras', () => {
  it("makes the file's thumbnail from its bytes", async () => {
    const bytes = tinyJpeg({ width: 64, height: 48 });
    const result = await detect(bytes, { checks: ['camera_reference'] });
    expect((await cardExtras(bytes, result)).thumbnail).toMatch(/^data:image\/webp;base64,/);
  });

  it('refuses bytes moved away (a detached buffer) instead of drawing nothing', async () => {
    const bytes = tinyJpeg({ width: 64, height: 48 });
    const result = await detect(bytes, { checks: ['camera_reference'] });
    const owned = new Uint8Array(bytes);
    structuredClone(owned.buffer, { transfer: [owned.buffer] });
    expect(owned.byteLength).toBe(0);
    await expect(cardExtras(owned, result)).rejects.toThrow(/detached/);
  });
});
