// The rubric YAML reader (src/rubrics/rubric-yaml.ts) reads the shipped C2PA rubrics exactly as a
// full YAML 1.1 parser does (the `yaml` package, YAML 1.1 as PyYAML reads it), and refuses what it
// does not read instead of guessing: a rubric release that needs more fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { packageDataFile } from '../src/media/package-data.js';
import { parseYamlDocuments, RubricYamlError } from '../src/rubrics/rubric-yaml.js';

const full = (text: string) => parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS());

describe('the rubric YAML reader', () => {
  const dir = packageDataFile('c2pa', 'asset-rubrics');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));

  it('reads every shipped rubric as a full YAML 1.1 parser does', () => {
    expect(files.sort()).toEqual(['asset-rubric-conformance0.2-spec2.2.yml', 'asset-rubric-conformance0.2-spec2.4.yml', 'asset-rubric-signals-local.yml']);
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(parseYamlDocuments(text), file).toEqual(full(text));
    }
  });

  it('reads the forms PyYAML writes: folded quotes, escapes, line joins, block scalars, typed plain scalars', () => {
    const text = [
      'a: plain text',
      "b: 'it''s folded",
      '',
      "  over lines'",
      'c: "tab\\tand \\u00e9 and a \\',
      '  joined line"',
      'd: |-',
      '  keep',
      '    indented',
      'e: >',
      '  folded',
      '  text',
      '',
      '  para',
      'f: 12',
      'g: -1.5',
      'h: yes',
      'i: ~',
      'j:',
      '- x',
      '- k: 1',
      '  l: [no]',
      "'quoted key': v",
      '---',
      '- id: t',
      '  expression: plain',
      '    continued',
    ].join('\n').replace('[no]', "'no'");
    expect(parseYamlDocuments(text)).toEqual(full(text));
  });

  it.each([
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a flow sequence', 'a: [1, 2]\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a bare timestamp', 'a: 2026-08-06\n'],
    ['a directive', '%YAML 1.1\n---\na: 1\n'],
    ['a key twice', 'a: 1\na: 2\n'],
    ['an unclosed quote', "a: 'open\n"],
  ])('refuses %s with its line', (_, text) => {
    expect(() => parseYamlDocuments(text)).toThrow(RubricYamlError);
    expect(() => parseYamlDocuments(text)).toThrow(/^rubric YAML line \d+: /);
  });
});
