// The settings line of an AUTOMATIC1111-style text, read as A1111's own parser reads it
// (modules/infotext_utils.py: re_param_code searched along the last line by findall). The scan in
// generator-a1111.ts is hand-written (the regex backtracks on hostile lines); here it is held to
// the regex itself, which JavaScript runs the same way on ASCII text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { a1111Candidate, dreamCandidate, parseA1111 } from '../src/detectors/generator-a1111.js';
import { RANK } from '../src/detectors/generator-fields.js';

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
      // quote() in create_infotext: a value with `,`, `:` or a newline is json.dumps'd, escapes and all,
      // and may be the last setting of the line.
      ['Steps: 20, Seed: 5, Note: "a \\"b\\", c"', { Steps: '20', Seed: '5', Note: 'a \\"b\\", c' }],
      ['Steps: 20, Seed: 5, Note: "a, b"', { Steps: '20', Seed: '5', Note: 'a, b' }],
      ['Steps: 20, Seed: 5, Note: "x, ab:c", Size: 3', { Steps: '20', Seed: '5', Note: 'x, ab:c', Size: '3' }],
      // `\s*` before a value is any whitespace (tab, CR), and only whitespace.
      ['Steps: 20, Seed: 5, Note:\t"a, b", Size: 3', { Steps: '20', Seed: '5', Note: 'a, b', Size: '3' }],
      ['Steps: 20, Seed: 5, Note:\r"a, b", Size: 3', { Steps: '20', Seed: '5', Note: 'a, b', Size: '3' }],
      ['Steps: 20, Seed: 5, Note:\u0001"a, b", Size: 3', { Steps: '20', Seed: '5', Note: '\u0001"a', Size: '3' }],
      // Keys: digits and `_` are word characters, `~` is not (the key starts after it).
      ['Steps: 20, Seed: 5, v9: 1, 9x: 2, ab~cd: 3', { Steps: '20', Seed: '5', v9: '1', '9x': '2', cd: '3' }],
      // A colon at the very start of the line has no key; the pairs after it are read.
      [':x, Steps: 20, Seed: 5, Size: 3', { Steps: '20', Seed: '5', Size: '3' }],
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

describe('what an A1111 text is, and the record it gives', () => {
  const settings = 'Steps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1234, Size: 512x512, Model: dreamshaper_8';

  it('needs three pairs on its last line, with Steps or Seed among them', () => {
    expect(parseA1111('a cat\nSteps: 20, Seed: 5')).toBeUndefined();
    expect(parseA1111('a cat\nSampler: Euler, Size: 1x1, Model: m')).toBeUndefined();
    expect(parseA1111('a cat\nSteps: 20, Sampler: Euler, Size: 1x1')?.settings.get('Steps')).toBe('20');
    expect(parseA1111('a cat\nSeed: 5, Sampler: Euler, Size: 1x1')?.settings.get('Seed')).toBe('5');
  });

  it('the prompt is every line before the settings (or before "Negative prompt:"), trimmed; a trailing newline is no last line', () => {
    expect(parseA1111(`a cat\non a mat  \n${settings}\n`)?.prompt).toBe('a cat\non a mat');
    expect(parseA1111(`a cat\nNegative prompt: blurry\n${settings}`)?.prompt).toBe('a cat');
    expect(parseA1111(`Negative prompt: blurry\n${settings}`)?.prompt).toBe('');
  });

  it('reads the settings line up to 64 KiB and 500 pairs, keys up to 64 characters', () => {
    const pad = 'x'.repeat(64 * 1024);
    expect(parseA1111(`${settings}, Pad: ${pad}, Late: 1`)?.settings.has('Late')).toBe(false);
    const many = Array.from({ length: 497 }, (_, i) => `k${i}: ${i}`).join(', ');
    const parsed = parseA1111(`Steps: 1, Seed: 2, Size: 3, ${many}, Last: 1`)!;
    expect(parsed.settings.size).toBe(500);
    expect(parsed.settings.has('Last')).toBe(false);
    const long = `K${'k'.repeat(64)}`;
    expect(parseA1111(`Steps: 1, Seed: 2, Size: 3, ${long}: 1, ${long.slice(1)}: 2`)!.settings.get(long.slice(1))).toBe('2');
    expect(parseA1111(`Steps: 1, Seed: 2, Size: 3, ${long}: 1`)!.settings.has(long)).toBe(false);
  });

  // The fork from App and Version (sd-metadata's rules); A1111's own Version is `git describe --tags`
  // (modules/launch_utils.py git_tag), such as "v1.6.0-2-g4afaaf8a" on a checkout past a tag.
  it.each([
    ['Version: v1.6.0-2-g4afaaf8a', 'automatic1111', 'AUTOMATIC1111'],
    ['Version: v1.10.1-neon', 'automatic1111', 'AUTOMATIC1111'],
    ['Version: neo', 'automatic1111', 'Forge Neo'],
    ['Version: classic-1.2', 'automatic1111', 'Forge Classic'],
    ['Version: v1.10.1-classic', 'automatic1111', 'AUTOMATIC1111'],
    ['Version: v1.10.1-RC-reForge', 'automatic1111', 'reForge'],
    ['Version: f2.0.1v1.10.1-previous-313-g8a042934', 'automatic1111', 'Stable Diffusion WebUI Forge'],
    ['Version: Fooocus v2.5.5', 'fooocus', 'Fooocus'],
    ['Version: v1.10.1 Fooocus', 'automatic1111', 'AUTOMATIC1111'],
    ['Version: ComfyUI', 'comfyui', 'ComfyUI'],
    ['Version: v1.10.1 ComfyUI', 'automatic1111', 'AUTOMATIC1111'],
    ['App: SD.Next, Version: 2f3b8a1', 'automatic1111', 'SD.Next'],
    ['App: SDNext, Version: 2f3b8a1', 'automatic1111', 'SD.Next'],
    ['App: Not SD.Next', 'automatic1111', 'AUTOMATIC1111'],
    ['App: SD.Next fork', 'automatic1111', 'AUTOMATIC1111'],
  ])('%s: tool %s, app %s', (extra, tool, app) => {
    const c = a1111Candidate(`a cat\n${settings}, ${extra}`, 'png:tEXt:parameters')!;
    expect(c.record).toStrictEqual({ tool, app, where: 'png:tEXt:parameters', model: 'dreamshaper_8', seed: '1234', prompt: 'a cat' });
    expect(c.rank).toBe(tool === 'fooocus' ? RANK.specific : RANK.generic);
    expect(c.strength).toBe('structured');
  });

  it('states only the fields the text has', () => {
    expect(a1111Candidate('Steps: 20, Sampler: Euler, Size: 1x1', 'exif:UserComment')?.record).toStrictEqual({
      tool: 'automatic1111',
      app: 'AUTOMATIC1111',
      where: 'exif:UserComment',
    });
    expect(a1111Candidate('just a caption', 'exif:UserComment')).toBeUndefined();
  });

  // sd-dynamic-prompts up to 2.17.0 (until 34ec7fd) appended `Template: ` and `Negative Template: ` lines after the
  // settings line (pnginfo_saver.py update_pnginfo; the whole files: generator-records.test.ts).
  it("Dynamic Prompts' template lines: the settings are the line before the first of them", () => {
    const text = `a cat\nNegative prompt: blurry\n${settings}\nTemplate: a {cat|dog}\nSteps: 1, Seed: 2, Size: 3\nNegative Template: __bad__`;
    const parsed = parseA1111(text)!;
    expect(parsed.prompt).toBe('a cat');
    expect(parsed.settings.get('Seed')).toBe('1234');
    expect(parseA1111(`a cat\n${settings}\nNegative Template: {blurry|noisy}`)?.settings.get('Seed')).toBe('1234');
  });

  it('a template line after something that is no settings line changes nothing: the last line is read', () => {
    // As the first line (nothing before it), and after a prompt line.
    expect(parseA1111(`Template: a {cat|dog}\n${settings}`)).toEqual({ prompt: 'Template: a {cat|dog}', settings: parseA1111(settings)!.settings });
    expect(parseA1111(`a cat\nTemplate: x\n${settings}`)?.prompt).toBe('a cat\nTemplate: x');
    expect(parseA1111(`a cat\nSteps: 20, Seed: 5\nTemplate: x`)).toBeUndefined();
    // Only `Template: ` and `Negative Template: ` at the start of a line, as the extension writes them.
    expect(parseA1111(`a cat\n${settings}\nMy Template: x`)).toBeUndefined();
    expect(parseA1111(`a cat\n${settings}\nTemplate:x`)).toBeUndefined();
    expect(parseA1111(`a cat\n${settings}\n Template: x`)).toBeUndefined();
    expect(parseA1111(`a cat\n${settings}\nnegative Template: x`)).toBeUndefined();
  });
});

// InvokeAI 2.x's Dream (ldm/invoke/args.py dream_prompt_str): the prompt, quoted before 2.2, then
// the switches `-s steps -S seed -W -H -C -A`, which argparse also reads without the space.
describe("InvokeAI 2.x's Dream text", () => {
  const record = (seed?: string, prompt?: string) => ({
    tool: 'invokeai',
    app: 'InvokeAI',
    where: 'png:tEXt:Dream',
    ...(seed === undefined ? {} : { seed }),
    ...(prompt === undefined ? {} : { prompt }),
  });
  const read = (text: string) => dreamCandidate(text, 'png:tEXt:Dream');

  it.each([
    ['"a cat" -s 50 -S 42 -W 512 -H 512 -C 7.5 -A k_lms', '42', 'a cat'],
    ['a cat -s 50 -S 42 -W 512 -H 512', '42', 'a cat'],
    ['a "quoted" cat -s 50 -S 42', '42', 'a "quoted" cat'],
    ['a"quoted" cat -S 42', '42', 'a"quoted" cat'],
    ['"a \\"quoted\\" cat" -S 42', '42', 'a \\"quoted\\" cat'],
    ['"a cat"-S 42', '42', 'a cat'],
    ['"a cat" -S42', '42', 'a cat'],
    ['"a cat" --seed=42', '42', 'a cat'],
    ['"a cat" --seed 42', '42', 'a cat'],
    ['"a cat" -s 50', undefined, 'a cat'],
    ['"a cat" -s50', undefined, 'a cat'],
    ['"" -S 42', '42', undefined],
  ])('%s', (text, seed, prompt) => {
    const c = read(text)!;
    expect(c.record).toStrictEqual(record(seed, prompt));
    expect(c.rank).toBe(RANK.specific);
    expect(c.strength).toBe('structured');
  });

  it('no steps or seed switch: no Dream record', () => {
    expect(read('"a cat" -W 512 -H 512')).toBeUndefined();
    expect(read('a cat x-S 42 y-s 50')).toBeUndefined();
  });

  it('reads the first 64 KiB for the quoted form', () => {
    const long = `"${'a'.repeat(70 * 1024)}" -S 42`;
    expect(read(long)!.record.prompt).toBe(`"${'a'.repeat(499)}`);
  });
});
