// The settings line of an AUTOMATIC1111-style text, read as A1111's own parser reads it
// (modules/infotext_utils.py: re_param_code searched along the last line by findall). The scan in
// generator-a1111.ts is hand-written (the regex backtracks on hostile lines); here it is held to
// the regex itself, which JavaScript runs the same way on ASCII text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { a1111Candidate, parseA1111 } from '../src/detectors/generator-a1111.js';

/** A1111's re_param_code, verbatim. */
const RE_PARAM = /\s*(\w[\w \-/]+):\s*("(?:\\.|[^\\"])+"|[^,]*)(?:,|$)/g;
const QUOTED = /^"(?:\\.|[^\\"])+"$/;

/**
 * What A1111 reads from `line`, in our reader's terms: keys trimmed, at most 64 characters, the
 * first of a repeated key kept (A1111 keeps the last); a quoted value without its quotes (A1111
 * then unescapes it as JSON), an unquoted one trimmed.
 */
function reference(line: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of line.matchAll(RE_PARAM)) {
    const key = m[1]!.trim();
    const v = m[2]!;
    if (key.length <= 64 && !out.has(key)) out.set(key, QUOTED.test(v) ? v.slice(1, -1) : v.trim());
  }
  return out;
}

describe('the A1111 settings line', () => {
  it('a bare segment (a key alone, as A1111 writes a value equal to its key) does not hide the Seed after it', () => {
    const text = 'a lighthouse at dusk\nNegative prompt: blurry\nSteps: 20, Sampler: DPM++ 2M, Hires upscale, Seed: 1234, Size: 512x512, Model: dreamshaper_8';
    const parsed = parseA1111(text)!;
    expect(Object.fromEntries(parsed.settings)).toEqual({ Steps: '20', Sampler: 'DPM++ 2M', Seed: '1234', Size: '512x512', Model: 'dreamshaper_8' });
    expect(a1111Candidate(text, 'png:tEXt:parameters')?.record).toEqual({
      tool: 'automatic1111',
      app: 'AUTOMATIC1111',
      where: 'png:tEXt:parameters',
      model: 'dreamshaper_8',
      seed: '1234',
      prompt: 'a lighthouse at dusk',
    });
  });

  it('reads what re_param_code reads: keys after bare segments and keyless colons, quoted values only when they close', () => {
    const cases: [string, Record<string, string>][] = [
      ['Steps: 20, ADetailer, Seed: 5, Size: 1x1', { Steps: '20', Seed: '5', Size: '1x1' }],
      ['Steps: 20, (x): 1, Seed: 5, Size: 1x1', { Steps: '20', Seed: '5', Size: '1x1' }],
      ['Steps: 20, Lora hashes: "a: 1, b: 2", Seed: 5', { Steps: '20', 'Lora hashes': 'a: 1, b: 2', Seed: '5' }],
      ['Steps: 20, Prompt: "a, b" tail, Seed: 5', { Steps: '20', Prompt: '"a', Seed: '5' }],
      ['Steps: 20, Note: "unterminated, Seed: 5', { Steps: '20', Note: '"unterminated', Seed: '5' }],
      ['Steps: 20, Empty: "", Seed: 5', { Steps: '20', Empty: '""', Seed: '5' }],
      ['Steps: 20, a: 1, Seed : 5, -x-y: 2', { Steps: '20', Seed: '5', 'x-y': '2' }],
      ['Steps: 20, Model: v1:5, Seed: 5', { Steps: '20', Model: 'v1:5', Seed: '5' }],
    ];
    for (const [line, want] of cases) {
      expect(Object.fromEntries(parseA1111(line)!.settings), line).toEqual(want);
      expect(Object.fromEntries(reference(line)), `re_param_code on ${line}`).toEqual(want);
    }
  });

  it('agrees with re_param_code on generated settings lines', () => {
    const piece = fc.oneof(
      fc.constantFrom('Steps', 'Seed', 'Size', 'Model', 'Hires upscale', 'ADetailer model', 'a', 'x-y', '/p', '-k', ' ', ', ', ': ', ':', ',', '"', '\\', '\\"', '"a, b"', '12', 'v1:5', '\t', '(', ')'),
      fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '1', '_', ' ', '-', '/', ',', ':', '"', '\\', '\t', '.'), maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const line = `Steps: 1, Seed: 2, Size: 3x3, ${pieces.join('')}`.trim();
        expect(Object.fromEntries(parseA1111(line)!.settings)).toEqual(Object.fromEntries(reference(line)));
      }),
      { numRuns: 2000 },
    );
  });
});
