// The trims and the Midjourney match that were regular expressions retried from every character of
// a run (quadratic) and are now linear: on generated text they answer exactly what the regular
// expressions answered (kept here as the reference).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import { readPngChunks } from '../src/media/png-chunks.js';
import { decodeUserComment } from '../src/media/user-comment.js';
import { pngWithText, tEXtBytes } from './helpers/generator-fixtures.js';

const enc = new TextEncoder();
/** The text as the readers decode its UTF-8 (a leading BOM is dropped by the decoder). */
const decoded = (text: string) => new TextDecoder().decode(enc.encode(text));
const UUID = '0f3a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b';
/** Characters around the ends of a value: NUL, ASCII and Unicode spaces, the BOM, text. */
const EDGE = fc.constantFrom('\0', ' ', '\t', '\n', '\r', '\u00a0', '\u3000', '\u2028', '\ufeff', 'a', 'é', '0');
const edgeText = fc.string({ unit: EDGE, maxLength: 12 });

describe('the linear trims answer as the regular expressions did', () => {
  it('UserComment: NULs and spaces (any \\s) off the end, then one BOM off the start', () => {
    fc.assert(
      fc.property(edgeText, (text) => {
        const reference = decoded(text).replace(/[\0\s]+$/, '').replace(/^\uFEFF/, '');
        const out = decodeUserComment(new Uint8Array([...enc.encode('ASCII\0\0\0'), ...enc.encode(text)]), false);
        expect(out?.text).toBe(reference === '' ? undefined : reference);
      }),
      { numRuns: 1000 },
    );
  });

  it('PNG text: NULs off the end, nothing else', () => {
    fc.assert(
      fc.property(edgeText, (text) => {
        const chunks = readPngChunks(pngWithText(tEXtBytes('parameters', enc.encode(text))), () => true)!;
        expect(chunks.texts[0]?.text).toBe(decoded(text).replace(/\0+$/, ''));
      }),
      { numRuns: 1000 },
    );
  });

  it('Midjourney: the first "Job ID: <uuid>" (any case, spaces after the colon), the prompt before it without the spaces', async () => {
    const old = /\s*Job ID:\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    const piece = fc.oneof(fc.constantFrom('Job ID:', 'job id:', 'JOB ID: ', 'Job ID:  ', UUID, UUID.toUpperCase(), UUID.slice(0, 20), ' --ar 16:9', 'a cat'), EDGE);
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 10 }), async (pieces) => {
        const written = pieces.join('');
        const text = decoded(written).replace(/\0+$/, ''); // as the PNG reader gives it
        const m = old.exec(text);
        const out = await judgeGeneratorMetadata({ bytes: pngWithText(tEXtBytes('Description', enc.encode(written))), type: 'image/png', sha256: '' });
        if (!m) {
          expect(out.generator?.tool, text).not.toBe('midjourney');
          return;
        }
        const prompt = text.slice(0, m.index);
        expect(out.generator, JSON.stringify(text)).toEqual({
          tool: 'midjourney',
          app: 'Midjourney',
          where: 'png:tEXt:Description',
          ...(prompt.trim() ? { prompt } : {}),
        });
      }),
      { numRuns: 500 },
    );
  });
});
