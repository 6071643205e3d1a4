// NovelAI's records (generator-novelai.ts), shaped as NovelAI writes them: PNG text chunks
// Software "NovelAI", Source (the model), Description (the prompt), Comment (the generation
// settings as JSON, with signed_hash), or one JSON object with those keys in the alpha channel
// (the "stealth_pngcomp" copy, whose Comment is a JSON string).
import { describe, expect, it } from 'vitest';
import { RANK } from '../src/detectors/generator-fields.js';
import { alphaNovelAiFields, novelAiCandidate } from '../src/detectors/generator-novelai.js';

const SETTINGS = {
  prompt: '1girl, cherry blossoms',
  steps: 28,
  height: 1216,
  width: 832,
  scale: 5,
  uncond_scale: 1,
  seed: 3014159265,
  noise_schedule: 'karras',
  legacy_v3_extend: false,
  request_type: 'PromptGenerateRequest',
  signed_hash: 'c2lnbmF0dXJl',
};
const COMMENT = JSON.stringify(SETTINGS);
const SOURCE = 'NovelAI Diffusion V4.5 4BDE2A90';
const WHERE = 'png:tEXt:Comment';

describe('novelAiCandidate', () => {
  it('the whole record: model from Source, seed and prompt from the Comment, the Comment kept for the signature', () => {
    const c = novelAiCandidate({ software: 'NovelAI', source: SOURCE, description: 'from the Description', comment: COMMENT }, WHERE)!;
    expect(c).toStrictEqual({
      record: { tool: 'novelai', app: 'NovelAI', where: WHERE, model: SOURCE, seed: '3014159265', prompt: '1girl, cherry blossoms' },
      rank: RANK.specific,
      strength: 'structured',
      novelAiComment: COMMENT,
    });
  });

  it('Software "NovelAI" alone names it; the prompt then comes from the Description', () => {
    expect(novelAiCandidate({ software: 'NovelAI', description: 'a cat' }, 'png:tEXt:Software')).toStrictEqual({
      record: { tool: 'novelai', app: 'NovelAI', where: 'png:tEXt:Software', prompt: 'a cat' },
      rank: RANK.specific,
      strength: 'named',
    });
    expect(novelAiCandidate({ software: 'NovelAI Diffusion' }, WHERE)?.record.tool).toBe('novelai');
    expect(novelAiCandidate({ software: 'NovelAIx' }, WHERE)).toBeUndefined();
    expect(novelAiCandidate({ software: 'Not NovelAI' }, WHERE)).toBeUndefined();
    expect(novelAiCandidate({}, WHERE)).toBeUndefined();
  });

  it.each(['signed_hash', 'noise_schedule', 'uncond_scale', 'v4_prompt', 'legacy_v3_extend', 'request_type'])(
    'a Comment with %s names NovelAI without Software',
    (key) => {
      const comment = JSON.stringify({ prompt: 'a cat', seed: 7, [key]: 1 });
      expect(novelAiCandidate({ comment }, WHERE)?.record).toStrictEqual({ tool: 'novelai', app: 'NovelAI', where: WHERE, seed: '7', prompt: 'a cat' });
    },
  );

  it('a Comment with none of those keys, or not JSON, names nobody', () => {
    expect(novelAiCandidate({ comment: JSON.stringify({ prompt: 'a cat', seed: 7, steps: 28 }) }, WHERE)).toBeUndefined();
    expect(novelAiCandidate({ comment: 'signed_hash' }, WHERE)).toBeUndefined();
  });

  it('a Comment that is not JSON beside Software "NovelAI": named, no Comment kept', () => {
    const c = novelAiCandidate({ software: 'NovelAI', comment: 'not json' }, WHERE)!;
    expect(c.strength).toBe('named');
    expect(c.novelAiComment).toBeUndefined();
  });

  it("a Comment whose own Comment is a JSON string: the settings are that string's", () => {
    const outer = JSON.stringify({ Comment: JSON.stringify({ seed: 5, prompt: 'inner', request_type: 'PromptGenerateRequest' }), prompt: 'outer' });
    expect(novelAiCandidate({ comment: outer }, WHERE)?.record).toMatchObject({ seed: '5', prompt: 'inner' });
    const notJson = JSON.stringify({ Comment: 'plain text', prompt: 'outer', request_type: 'x' });
    expect(novelAiCandidate({ comment: notJson }, WHERE)?.record.prompt).toBe('outer');
    // A "Comment" that is not a string is only a key of the settings.
    for (const inner of [{ seed: 5 }, 5, null]) {
      const c = JSON.stringify({ Comment: inner, seed: 6, request_type: 'x' });
      expect(novelAiCandidate({ comment: c }, WHERE)?.record).toStrictEqual({ tool: 'novelai', app: 'NovelAI', where: WHERE, seed: '6' });
    }
  });

  it('a seed past 2^53 as written', () => {
    const comment = '{"prompt": "a", "seed": 18446744073709551615, "request_type": "x"}';
    expect(novelAiCandidate({ comment }, WHERE)?.record.seed).toBe('18446744073709551615');
  });
});

describe('alphaNovelAiFields', () => {
  it("the alpha payload's fields, trimmed; Comment as the string it is", () => {
    const payload = JSON.stringify({ Description: ' a cat ', Software: 'NovelAI', Source: SOURCE, Comment: COMMENT, 'Generation time': '1.2' });
    expect(alphaNovelAiFields(payload)).toStrictEqual({ software: 'NovelAI', source: SOURCE, description: 'a cat', comment: COMMENT });
  });

  it('a Comment that is not a string is none; text that is not a JSON object is no payload', () => {
    expect(alphaNovelAiFields(JSON.stringify({ Software: 'NovelAI', Comment: SETTINGS }))).toStrictEqual({
      software: 'NovelAI',
      source: undefined,
      description: undefined,
      comment: undefined,
    });
    expect(alphaNovelAiFields('a cat\nSteps: 20, Seed: 1, Size: 1x1')).toBeUndefined();
  });
});
