// The helpers every generator reader shares (generator-fields.ts): bounded JSON, exact seeds,
// prompts cut to the contract's 500 characters, model names.
import { describe, expect, it } from 'vitest';
import {
  MAX_JSON_CHARS,
  MAX_PROMPT_CHARS,
  clipPrompt,
  isObject,
  modelName,
  obj,
  parseJsonObject,
  seedString,
  str,
} from '../src/detectors/generator-fields.js';

describe('parseJsonObject', () => {
  it('an object, after leading whitespace; nothing else', () => {
    expect(parseJsonObject(' \n{"a": 1}')).toEqual({ a: 1 });
    expect(parseJsonObject('[{"a": 1}]')).toBeUndefined();
    expect(parseJsonObject('null')).toBeUndefined();
    expect(parseJsonObject('{"a": ')).toBeUndefined();
    expect(parseJsonObject('')).toBeUndefined();
    expect(parseJsonObject(undefined)).toBeUndefined();
  });

  it(`reads up to ${MAX_JSON_CHARS} characters of JSON, no more`, () => {
    const fill = (n: number) => `{"a":"${'x'.repeat(n - 8)}"}`;
    expect(fill(MAX_JSON_CHARS)).toHaveLength(MAX_JSON_CHARS);
    expect(parseJsonObject(fill(MAX_JSON_CHARS))?.['a']).toHaveLength(MAX_JSON_CHARS - 8);
    expect(parseJsonObject(fill(MAX_JSON_CHARS + 1))).toBeUndefined();
  });
});

describe('isObject, str, obj', () => {
  it('isObject: a plain object, not null or an array', () => {
    expect(isObject({})).toBe(true);
    expect(isObject(null)).toBe(false);
    expect(isObject([])).toBe(false);
    expect(isObject('x')).toBe(false);
  });

  it('str: a string trimmed, undefined when blank or not a string', () => {
    expect(str(' a b ')).toBe('a b');
    expect(str(' \t')).toBeUndefined();
    expect(str(5)).toBeUndefined();
  });

  it("obj: a key's value when it is an object", () => {
    expect(obj({ k: { a: 1 } }, 'k')).toEqual({ a: 1 });
    expect(obj({ k: [1] }, 'k')).toBeUndefined();
    expect(obj({ k: 'x' }, 'k')).toBeUndefined();
    expect(obj([{ a: 1 }], '0')).toBeUndefined();
    expect(obj(undefined, 'k')).toBeUndefined();
  });
});

describe('seedString', () => {
  it('decimal strings of up to 40 digits, trimmed, with a minus sign', () => {
    expect(seedString(' 42 ')).toBe('42');
    expect(seedString('-7')).toBe('-7');
    expect(seedString('9'.repeat(40))).toBe('9'.repeat(40));
    expect(seedString('9'.repeat(41))).toBeUndefined();
    expect(seedString('4.2')).toBeUndefined();
    expect(seedString('x42')).toBeUndefined();
    expect(seedString('42x')).toBeUndefined();
    expect(seedString('')).toBeUndefined();
  });

  it('integers exactly: safe ones as numbers, bigints, larger ones from the raw JSON literal', () => {
    expect(seedString(1234)).toBe('1234');
    expect(seedString(-1)).toBe('-1');
    expect(seedString(12345678901234567890n)).toBe('12345678901234567890');
    expect(seedString(1.5)).toBeUndefined();
    expect(seedString(Number.NaN)).toBeUndefined();
    expect(seedString(true)).toBeUndefined();
    expect(seedString(undefined)).toBeUndefined();
    // 2^64 - 1 parses to 2^64; the literal says which integer was written.
    const raw = '{"other": 1234567890123456789, "seed": 18446744073709551615}';
    const parsed = JSON.parse(raw) as { seed: number };
    expect(seedString(parsed.seed, raw)).toBe('18446744073709551615');
    expect(seedString(-parsed.seed, raw.replace('18446', '-18446'))).toBe('-18446744073709551615');
    // Without the text (or without the literal in it), the double's own integer.
    expect(seedString(parsed.seed)).toBe('18446744073709551616');
    expect(seedString(parsed.seed, '{"seed": 1}')).toBe('18446744073709551616');
    expect(seedString(2 ** 53)).toBe('9007199254740992');
    // A safe integer is written as it is, even when a zero-padded run of the same digits comes first.
    expect(seedString(1234567890123456, '{"name": "img_01234567890123456", "seed": 1234567890123456}')).toBe('1234567890123456');
  });
});

describe('clipPrompt', () => {
  it('as written, leading space kept; undefined when blank or not a string', () => {
    expect(clipPrompt(' a cat ')).toBe(' a cat ');
    expect(clipPrompt('  ')).toBeUndefined();
    expect(clipPrompt(5)).toBeUndefined();
  });

  it(`cut to ${MAX_PROMPT_CHARS} characters, never inside a surrogate pair`, () => {
    expect(clipPrompt('x'.repeat(MAX_PROMPT_CHARS))).toBe('x'.repeat(MAX_PROMPT_CHARS));
    // Whole at exactly 500, even ending in a lone high surrogate (only a cut looks at the last one).
    const lone = `${'x'.repeat(MAX_PROMPT_CHARS - 1)}\ud800`;
    expect(clipPrompt(lone)).toBe(lone);
    expect(clipPrompt('x'.repeat(MAX_PROMPT_CHARS + 1))).toBe('x'.repeat(MAX_PROMPT_CHARS));
    const pairAcross = `${'x'.repeat(MAX_PROMPT_CHARS - 1)}😀tail`;
    expect(clipPrompt(pairAcross)).toBe('x'.repeat(MAX_PROMPT_CHARS - 1));
    const pairInside = `${'x'.repeat(MAX_PROMPT_CHARS - 2)}😀tail`;
    expect(clipPrompt(pairInside)).toBe(`${'x'.repeat(MAX_PROMPT_CHARS - 2)}😀`);
    // A lone low surrogate at the cut is not the start of a pair: cut where it is.
    const low = `${'x'.repeat(MAX_PROMPT_CHARS - 1)}\udc00tail`;
    expect(clipPrompt(low)).toHaveLength(MAX_PROMPT_CHARS);
    const highEdge = `${'x'.repeat(MAX_PROMPT_CHARS - 1)}\udbffz`;
    expect(clipPrompt(highEdge)).toHaveLength(MAX_PROMPT_CHARS - 1);
    const justBelow = `${'x'.repeat(MAX_PROMPT_CHARS - 1)}\ud7ffz`;
    expect(clipPrompt(justBelow)).toHaveLength(MAX_PROMPT_CHARS);
    const firstHigh = `${'x'.repeat(MAX_PROMPT_CHARS - 1)}\ud800\udc00`;
    expect(clipPrompt(firstHigh)).toHaveLength(MAX_PROMPT_CHARS - 1);
  });
});

describe('modelName', () => {
  it('trimmed, up to 1024 characters', () => {
    expect(modelName(' sd_xl_base_1.0.safetensors ')).toBe('sd_xl_base_1.0.safetensors');
    expect(modelName('m'.repeat(1024))).toHaveLength(1024);
    expect(modelName('m'.repeat(1025))).toBeUndefined();
    expect(modelName('')).toBeUndefined();
    expect(modelName({ name: 'm' })).toBeUndefined();
  });
});
