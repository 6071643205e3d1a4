// cardExtras (src/report/extras.ts) on bytes that are gone: a buffer moved to a pool worker is
// empty (detached) afterwards, and the Verify page's card once came back without pictures and
// without a word in the log (issue 34). It must refuse, loudly; the pictures of a real file come.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/engine/detect.js';
import { decodeGate } from '../../src/media/pixels.js';
import { makeThumbnail, THUMBNAIL_MAX_INPUT_PIXELS, THUMBNAIL_PIXEL_BYTES, thumbnailDecode } from '../../src/media/thumbnail.js';
import { detailCard } from '../../src/report/card.js';
import { cardExtras } from '../../src/report/extras.js';
import { makePki, signC2pa, simpleManifest, tinyJpeg, type Pki } from '../fixtures/make.js';

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

// Issue 40 item 5: the card's pictures come from bounded decodes. A manifest carrying huge PNG
// thumbnails (eleven of 20,000 x 20,000 took `check --html` 10.8 s and 477 MB, a daemon 1.5 GB)
// gets its small pictures, and a note for the rest, which are never decoded; each decode takes
// its cost from the process's decoded-pixel gate and from the caller's budget (PictureLimits),
// and none begins after the caller's time limit.
describe('cardExtras: pictures within the limits', () => {
  let pki: Pki;
  let signed: Uint8Array;
  let big: Uint8Array;
  const dir = mkdtempSync(join(tmpdir(), 'prov-extras-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    pki = makePki(dir);
    // 4,000 x 4,000: 16 MP, over the 3,072 x 3,072 a picture is decoded at (a PNG is not shrunk on load).
    big = new Uint8Array(await sharp({ create: { width: 4000, height: 4000, channels: 3, background: { r: 90, g: 20, b: 200 } } }).png().toBuffer());
    const small = new Uint8Array(await sharp({ create: { width: 200, height: 150, channels: 3, background: { r: 10, g: 200, b: 20 } } }).png().toBuffer());
    const manifest = {
      ...simpleManifest('huge-thumbs.jpg', 'image/jpeg'),
      ingredients: [
        { title: 'a.png', format: 'image/png', relationship: 'componentOf', thumbnail: { format: 'image/png', identifier: 'big-a.png' } },
        { title: 'b.png', format: 'image/png', relationship: 'componentOf', thumbnail: { format: 'image/png', identifier: 'big-b.png' } },
        { title: 'c.png', format: 'image/png', relationship: 'componentOf', thumbnail: { format: 'image/png', identifier: 'small.png' } },
      ],
    };
    signed = await signC2pa(tinyJpeg({ width: 64, height: 48, seed: 40 }), 'image/jpeg', manifest, pki, {
      thumbnail: { format: 'image/png', bytes: big },
      resources: [
        { id: 'big-a.png', bytes: big },
        { id: 'big-b.png', bytes: big },
        { id: 'small.png', bytes: small },
      ],
    });
  }, 120_000);

  it('refuses a picture over 3,072 x 3,072 from its header, before any decode', async () => {
    expect(thumbnailDecode(big)).toEqual({ refused: '4,000 x 4,000 pixels, more than a picture is decoded at (3,072 x 3,072)', size: '4,000 x 4,000 pixels' });
    await expect(makeThumbnail(big)).rejects.toMatchObject({ name: 'ThumbnailError', tooLarge: true });
    // A baseline JPEG is decoded shrunk (1/8 at most): a 4,000 x 4,000 one is pictured from 500 x 500.
    const photo = new Uint8Array(await sharp({ create: { width: 4000, height: 4000, channels: 3, background: { r: 1, g: 2, b: 3 } } }).jpeg().toBuffer());
    expect(thumbnailDecode(photo)).toEqual({ pixels: 500 * 500, cost: 500 * 500 * THUMBNAIL_PIXEL_BYTES, inputLimit: THUMBNAIL_MAX_INPUT_PIXELS });
    expect(await makeThumbnail(photo)).toMatch(/^data:image\/webp;base64,/);
  });

  it('a manifest with huge thumbnails: the small ones pictured, the rest named in a note, none decoded', async () => {
    const result = await detect(signed, { checks: ['c2pa'] });
    expect(result.matches[0]!.result).toBe('found');
    const costs: number[] = [];
    let peakGate = 0;
    const extras = await cardExtras(signed, result, {
      limits: {
        around: async (cost, make) => {
          costs.push(cost);
          const made = await make();
          peakGate = Math.max(peakGate, decodeGate().inUse);
          return made;
        },
      },
    });
    expect(extras.claimThumbnail).toBeUndefined();
    expect(Object.keys(extras.ingredientThumbnails ?? {})).toHaveLength(1);
    expect(extras.picturesNote).toBe('3 pictures over 3,072 x 3,072 pixels, not decoded (4,000 x 4,000 pixels)');
    // Only the file's own thumbnail and the small ingredient's went through the caller's budget, by their decode's cost.
    expect(costs).toEqual([64 * 48 * THUMBNAIL_PIXEL_BYTES, 200 * 150 * THUMBNAIL_PIXEL_BYTES]);
    expect(decodeGate().inUse).toBe(0); // every hold given back
    const html = detailCard('huge-thumbs.jpg', result, extras);
    expect(html).toContain('<section class="check pictures" aria-label="pictures"><h4>pictures</h4><p class="dim">3 pictures over 3,072 x 3,072 pixels, not decoded (4,000 x 4,000 pixels)</p></section>');
  }, 60_000);

  it('begins no picture once the time limit has passed, and says so; a refused budget leaves that picture out', async () => {
    const result = await detect(signed, { checks: ['c2pa'] });
    const late = new AbortController();
    late.abort();
    const extras = await cardExtras(signed, result, { limits: { signal: late.signal } });
    expect(extras.thumbnail).toBeUndefined();
    expect(extras.picturesNote).toBe('2 pictures not made within the time limit; 3 pictures over 3,072 x 3,072 pixels, not decoded (4,000 x 4,000 pixels)');
    const busy = await cardExtras(signed, result, {
      limits: {
        around: async () => {
          throw new Error('The server is busy');
        },
      },
    });
    expect(busy.thumbnail).toBeUndefined();
    expect(busy.picturesNote).toContain('2 pictures not made: The server is busy');
  }, 60_000);
});
