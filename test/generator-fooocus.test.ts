// FooocusPlus's records (generator-fooocus.ts), from its writer: modules/async_worker.py's
// (label, key, value) triples, kept as labels by the "simple" scheme (meta_parser.py line 1049) and
// as keys by the "fooocus" scheme; Software "FooocusPlus <ver>.<hotfix>, Preset: <preset>" in a
// JPEG or WebP (meta_parser.py get_exif, lines 1310-1314).
import { describe, expect, it } from 'vitest';
import { RANK, type Candidate } from '../src/detectors/generator-fields.js';
import { asFooocusPlus, fooocusPlusCandidate, fooocusPlusNameCandidate, hasBackendEngine, namesFooocusPlus } from '../src/detectors/generator-fooocus.js';

const SIMPLE = { Prompt: 'a red fox', 'Base Model': 'juggernautXL_v9.safetensors', Seed: '1234567', 'Backend Engine': 'Fooocus', Version: 'FooocusPlus 1.0.0.1' };
const KEYS = { prompt: 'a red fox', base_model: 'juggernautXL_v9.safetensors', seed: '1234567', backend_engine: 'Fooocus', version: 'FooocusPlus 1.0.0.1' };

describe('namesFooocusPlus and hasBackendEngine', () => {
  it('Software as get_exif writes it', () => {
    expect(namesFooocusPlus('FooocusPlus 1.0.0.1, Preset: default')).toBe(true);
    expect(namesFooocusPlus('FooocusPlusX')).toBe(false);
    expect(namesFooocusPlus('Fooocus v2.5.5')).toBe(false);
    expect(namesFooocusPlus('Not FooocusPlus')).toBe(false);
    expect(namesFooocusPlus(undefined)).toBe(false);
  });

  it('either spelling of Backend Engine', () => {
    expect(hasBackendEngine(SIMPLE)).toBe(true);
    expect(hasBackendEngine(KEYS)).toBe(true);
    expect(hasBackendEngine({ prompt: 'x' })).toBe(false);
  });
});

describe('fooocusPlusCandidate', () => {
  const want = (where: string) => ({
    record: { tool: 'fooocus', app: 'FooocusPlus', where, model: 'juggernautXL_v9.safetensors', seed: '1234567', prompt: 'a red fox' },
    rank: RANK.specific,
    strength: 'structured',
  });

  it('the "simple" scheme (labels) and the "fooocus" scheme (keys)', () => {
    expect(fooocusPlusCandidate(SIMPLE, JSON.stringify(SIMPLE), 'png:tEXt:Comment', false)).toStrictEqual(want('png:tEXt:Comment'));
    expect(fooocusPlusCandidate(KEYS, JSON.stringify(KEYS), 'png:tEXt:parameters', false)).toStrictEqual(want('png:tEXt:parameters'));
  });

  it('without Backend Engine only when another field named FooocusPlus; only the fields it has', () => {
    const json = { Prompt: 'a red fox' };
    expect(fooocusPlusCandidate(json, '', 'exif:UserComment', false)).toBeUndefined();
    expect(fooocusPlusCandidate(json, '', 'exif:UserComment', true)?.record).toStrictEqual({
      tool: 'fooocus',
      app: 'FooocusPlus',
      where: 'exif:UserComment',
      prompt: 'a red fox',
    });
    expect(fooocusPlusCandidate(undefined, '', 'exif:UserComment', true)).toBeUndefined();
    expect(fooocusPlusCandidate({ 'Backend Engine': 'Fooocus', Seed: '1' }, '', 'exif:UserComment', false)?.record).toStrictEqual({
      tool: 'fooocus',
      app: 'FooocusPlus',
      where: 'exif:UserComment',
      seed: '1',
    });
  });

  it('a numeric seed past 2^53 from the raw text', () => {
    const raw = '{"Backend Engine": "Fooocus", "Seed": 18446744073709551615}';
    expect(fooocusPlusCandidate(JSON.parse(raw), raw, 'w', false)?.record.seed).toBe('18446744073709551615');
  });
});

describe('asFooocusPlus and fooocusPlusNameCandidate', () => {
  const fooocus: Candidate = { record: { tool: 'fooocus', app: 'Fooocus', where: 'w', seed: '1' }, rank: RANK.specific, strength: 'structured' };

  it('a Fooocus record is renamed FooocusPlus when another field says so; others are left alone', () => {
    expect(asFooocusPlus(fooocus, true)).toStrictEqual({ ...fooocus, record: { ...fooocus.record, app: 'FooocusPlus' } });
    expect(fooocus.record.app).toBe('Fooocus');
    expect(asFooocusPlus(fooocus, false)).toBe(fooocus);
    const a1111: Candidate = { ...fooocus, record: { tool: 'automatic1111', app: 'AUTOMATIC1111', where: 'w' } };
    expect(asFooocusPlus(a1111, true)).toBe(a1111);
    expect(asFooocusPlus(undefined, true)).toBeUndefined();
  });

  it('a Software value alone names FooocusPlus', () => {
    expect(fooocusPlusNameCandidate('FooocusPlus 1.0.0.1, Preset: default', 'exif:Software')).toStrictEqual({
      record: { tool: 'fooocus', app: 'FooocusPlus', where: 'exif:Software' },
      rank: RANK.specific,
      strength: 'named',
    });
    expect(fooocusPlusNameCandidate('Fooocus v2.5.5', 'exif:Software')).toBeUndefined();
  });
});
