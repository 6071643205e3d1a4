// invisible_watermark against the AI-provenance corpus (../shared/corpus/ai): on every file and
// every payload, the reference-equivalent reading counts the bits the reference decoder
// (imwatermark dwtDct via cv2.imread) counted, exactly on PNGs and within 2 bits on JPEG/WebP
// (another IDCT may differ in borderline blocks); the detector finds at least what the reference
// finds, never a payload that was not embedded, and nothing on unmarked pictures, there or in
// ../shared/corpus/files. Skipped where the corpus is absent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYLOAD_BITS } from '../src/detectors/invisible-watermark-payloads.js';
import { invisibleWatermark, uprightPixels } from '../src/detectors/invisible-watermark.js';
import { matchingBits, readBlockBits, voteBits } from '../src/media/dwt-dct.js';
import { sniffMediaType } from '../src/media/sniff.js';
import { WATERMARK_PAYLOADS, type DetectorOutcome, type Media, type WatermarkPayload } from '../src/types.js';
import { CORPUS_DIR, CORPUS_FILES } from './helpers/corpus.js';

const AI_DIR = join(CORPUS_DIR, 'ai');
const HAS_AI = existsSync(join(AI_DIR, 'expected.json'));
if (!HAS_AI) console.warn(`[provenance tests] ${AI_DIR} is absent: the invisible_watermark corpus tests are skipped.`);

interface ReferenceDecode {
  bits_matched?: number;
  bits_total?: number;
  error?: string;
}

interface AiEntry {
  file: string;
  category: 'watermark' | 'negative' | 'generator';
  format: 'png' | 'jpeg' | 'webp';
  variant?: string;
  width: number;
  height: number;
  watermark: { payload: WatermarkPayload; bits_matched: number; reference_verdict: string; embedded_by: string } | null;
  reference_decode: Record<WatermarkPayload, ReferenceDecode>;
}

const entries: AiEntry[] = HAS_AI ? JSON.parse(readFileSync(join(AI_DIR, 'expected.json'), 'utf8')) : [];

/** What the reference concluded: detect.py's "likely" or better for sdxl48, byte-exact otherwise. */
function referenceFound(entry: AiEntry): boolean {
  const mark = entry.watermark;
  if (!mark) return false;
  return mark.payload === 'sdxl48' ? mark.bits_matched >= 34 : mark.reference_verdict === 'exact';
}

describe.skipIf(!HAS_AI)('invisible_watermark on ../shared/corpus/ai', () => {
  const media = new Map<string, Media>();
  const outcomes = new Map<string, DetectorOutcome>();

  beforeAll(async () => {
    for (const entry of entries) {
      const bytes = new Uint8Array(readFileSync(join(AI_DIR, entry.file)));
      const m: Media = { bytes, type: await sniffMediaType(bytes), sha256: '' };
      media.set(entry.file, m);
      outcomes.set(entry.file, await invisibleWatermark.run(m, {}));
    }
  });

  it.each(entries.map((e) => [e.file, e] as const))('%s: bits_matched agrees with the reference on every payload', async (_file, entry) => {
    const m = media.get(entry.file)!;
    const refused = WATERMARK_PAYLOADS.filter((p) => entry.reference_decode[p].error !== undefined);
    if (refused.length > 0) {
      // The reference refuses the whole file (the corpus' only refusal: under 256 x 256).
      expect(refused).toEqual([...WATERMARK_PAYLOADS]);
      expect(entry.reference_decode.sdxl48.error).toMatch(/too small/);
      const outcome = outcomes.get(entry.file)!;
      expect(outcome.result).toBe('not_found');
      expect(outcome.note).toMatch(/fewer pixels than 256 x 256/);
      return;
    }
    const blocks = readBlockBits(await uprightPixels(m));
    for (const payload of WATERMARK_PAYLOADS) {
      const expected = PAYLOAD_BITS[payload];
      const ours = matchingBits(voteBits(blocks, expected.length), expected);
      const reference = entry.reference_decode[payload];
      expect(reference.bits_total).toBe(expected.length);
      if (entry.format === 'png') {
        expect(ours, `${payload} on ${entry.file}`).toBe(reference.bits_matched);
      } else {
        expect(Math.abs(ours - reference.bits_matched!), `${payload} on ${entry.file}: ours ${ours}, reference ${reference.bits_matched}`).toBeLessThanOrEqual(2);
      }
    }
  });

  it.each(entries.map((e) => [e.file, e] as const))('%s: the verdict', (_file, entry) => {
    const outcome = outcomes.get(entry.file)!;
    if (!entry.watermark) {
      expect(outcome.result, 'an unmarked picture').toBe('not_found');
      return;
    }
    if (outcome.result === 'found') {
      // Never a payload other than the one embedded.
      expect(outcome.watermark!.payload).toBe(entry.watermark.payload);
      expect(outcome.watermark!.bits_total).toBe(PAYLOAD_BITS[entry.watermark.payload].length);
      expect(outcome.confidence).toBeGreaterThanOrEqual(0.7);
      expect(outcome.confidence).toBeLessThanOrEqual(0.9);
    }
    if (referenceFound(entry)) {
      expect(outcome.result, 'the reference finds it').toBe('found');
      // Found on the reference's own reading: the reference's count and no note.
      expect(outcome.watermark!.bits_matched).toBe(entry.watermark.bits_matched);
      expect(outcome.note).toBeUndefined();
    } else {
      expect(outcome.result).not.toBe('unavailable');
    }
  });

  it('finds every marked SDXL PNG as saved, which the reference misses when diffusers swapped the channels or float32 inverted the bits', () => {
    const pristine = entries.filter((e) => e.watermark?.payload === 'sdxl48' && e.variant === 'png');
    expect(pristine.length).toBeGreaterThan(0);
    for (const entry of pristine) expect(outcomes.get(entry.file)!.result, entry.file).toBe('found');
  });

  it('finds every marked lossy WebP, reading the chroma before the decoder smoothed it', () => {
    const webps = entries.filter((e) => e.watermark && e.format === 'webp');
    expect(webps.length).toBeGreaterThan(0);
    for (const entry of webps) expect(outcomes.get(entry.file)!.result, entry.file).toBe('found');
  });

  it('finds the byte payloads of the cropped PNGs (crop10: the central 90 %, a grid shifted by 25 pixels)', () => {
    const crops = entries.filter((e) => e.watermark && e.watermark.payload !== 'sdxl48' && e.variant === 'crop10');
    expect(crops.length).toBeGreaterThan(0);
    for (const entry of crops) expect(outcomes.get(entry.file)!.note, entry.file).toMatch(/shifted block grid/);
  });

  it('finds every marked picture of every kind but JPEG q85 and q75 (issue 39), each with its own payload', () => {
    const kinds = ['png', 'png_stripped', 'webp_q90', 'jpeg_q95', 'resize05', 'crop10'];
    const marked = entries.filter((e) => e.watermark && kinds.includes(e.variant ?? ''));
    expect(marked.length).toBeGreaterThanOrEqual(25);
    for (const entry of marked) {
      expect(outcomes.get(entry.file)).toMatchObject({ result: 'found', watermark: { payload: entry.watermark!.payload } });
    }
  });

  it('states the false-alarm bound of a find on the soft statistic in its note', () => {
    const soft = entries.filter((e) => /soft statistic/.test(outcomes.get(e.file)?.note ?? ''));
    expect(soft.length).toBeGreaterThanOrEqual(8);
    for (const entry of soft) expect(outcomes.get(entry.file)!.note).toMatch(/an unmarked picture reaches it at most 1 time in [\d,]+/);
  });

  afterAll(() => {
    // Recall per variant, ours vs the reference: the figures quoted in the module's comments.
    const rows = new Map<string, { files: number; reference: number; ours: number }>();
    for (const entry of entries.filter((e) => e.watermark)) {
      const row = rows.get(entry.variant ?? '?') ?? { files: 0, reference: 0, ours: 0 };
      row.files++;
      if (referenceFound(entry)) row.reference++;
      if (outcomes.get(entry.file)?.result === 'found') row.ours++;
      rows.set(entry.variant ?? '?', row);
    }
    if (rows.size > 0) console.log('invisible_watermark recall per variant (files, reference, ours):', Object.fromEntries(rows));
  });
});

describe.skipIf(!existsSync(CORPUS_FILES))('invisible_watermark on ../shared/corpus/files', () => {
  const names = existsSync(CORPUS_FILES) ? readdirSync(CORPUS_FILES).sort() : [];

  it.each(names)('%s: no watermark found', async (name) => {
    const bytes = new Uint8Array(readFileSync(join(CORPUS_FILES, name)));
    const type = await sniffMediaType(bytes);
    if (!invisibleWatermark.media_types.includes(type)) return; // not a type this check reads
    const outcome = await invisibleWatermark.run({ bytes, type, sha256: '' }, {});
    expect(outcome.result).not.toBe('found');
    expect(outcome.result).not.toBe('unavailable');
  });
});
