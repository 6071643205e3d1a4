// generator_metadata on the shared corpus: every AI-corpus generator file named with its tool and
// where (app, model, seed and prompt where expected.json has them), every NovelAI signature judged
// as expected, and nothing found on the negatives, on the watermark files that carry no record,
// or on any file of the main corpus. Skips where the corpus is absent.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatorMetadata } from '../src/detectors/generator-metadata.js';
import { readFileFields } from '../src/detectors/generator-sources.js';
import { sniffKnownType } from '../src/media/sniff.js';
import { CORPUS_DIR, CORPUS_FILES, HAS_CORPUS } from './helpers/corpus.js';

const AI_DIR = join(CORPUS_DIR, 'ai');
const HAS_AI = existsSync(join(AI_DIR, 'expected.json'));
if (!HAS_AI) console.warn(`[provenance tests] ${AI_DIR} is absent: generator_metadata corpus tests are skipped.`);

interface AiEntry {
  file: string;
  category: 'generator' | 'negative' | 'watermark';
  format: 'png' | 'jpeg' | 'webp';
  generator: { tool: string; app: string; where: string; fields: Record<string, unknown>; also?: string[] } | null;
  novelai_signature: 'valid' | 'invalid' | 'absent';
}

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
const entries: AiEntry[] = HAS_AI ? JSON.parse(readFileSync(join(AI_DIR, 'expected.json'), 'utf8')) : [];

async function run(file: string, type: string) {
  const bytes = new Uint8Array(readFileSync(file));
  return generatorMetadata.run({ bytes, type, sha256: '' }, {});
}

/**
 * The corpus's `app` is a description ("AUTOMATIC1111 (cropped to 1x1 by sd-parsers)", "NovelAI
 * file modified here"); ours is the program's name. They agree when ours contains the first word
 * of the corpus's, and equal it where the corpus gives a bare name ("SwarmUI", "Forge Neo").
 */
function appAgrees(ours: string | undefined, corpus: string): boolean {
  if (!ours) return false;
  if (!/[ (]/.test(corpus.replace(/ Neo$/, ''))) return ours === corpus;
  return ours.toLowerCase().includes(corpus.split(' ')[0]!.toLowerCase());
}

describe.skipIf(!HAS_AI)('generator_metadata on the AI corpus', () => {
  const withRecord = entries.filter((e) => e.generator);

  it.each(withRecord.map((e) => [e.file, e] as const))('%s: tool, where, app, fields, signature', async (_file, e) => {
    const g = e.generator!;
    const out = await run(join(AI_DIR, e.file), TYPES[e.format]);
    expect(out.result).toBe('found');
    expect(out.generator).toMatchObject({ tool: g.tool, where: g.where });
    expect(appAgrees(out.generator!.app, g.app), `app ${out.generator!.app} vs ${g.app}`).toBe(true);
    for (const key of ['model', 'seed'] as const) if (g.fields[key] !== undefined) expect(out.generator![key]).toBe(g.fields[key]);
    const prefix = g.fields['prompt_prefix'];
    if (typeof prefix === 'string') expect(out.generator!.prompt?.startsWith(prefix)).toBe(true);
    expect(out.generator!.signature ?? 'absent').toBe(e.novelai_signature);
    const encoding = g.fields['user_comment_encoding'];
    if (encoding !== undefined) {
      const bytes = new Uint8Array(readFileSync(join(AI_DIR, e.file)));
      expect(readFileFields(bytes, TYPES[e.format]).userCommentEncoding).toBe(encoding);
    }
    // CONTRACT: metadata stays below 0.9 unless a valid signature makes it 0.99.
    if (e.novelai_signature === 'valid') expect(out.confidence).toBe(0.99);
    else expect(out.confidence).toBeLessThan(0.9);
  });

  it('every NovelAI signature is judged as expected.json says', async () => {
    const judged = [];
    for (const e of entries) {
      const out = await run(join(AI_DIR, e.file), TYPES[e.format]);
      judged.push([e.file, out.generator?.signature ?? 'absent']);
    }
    expect(judged).toEqual(entries.map((e) => [e.file, e.novelai_signature]));
    expect(entries.filter((e) => e.novelai_signature !== 'absent').length).toBeGreaterThanOrEqual(3);
  });

  it('finds nothing on the files without a generator record (negatives, stripped watermark files, re-encodes)', async () => {
    const without = entries.filter((e) => !e.generator);
    expect(without.length).toBeGreaterThan(40);
    for (const e of without) {
      const out = await run(join(AI_DIR, e.file), TYPES[e.format]);
      expect(out, e.file).toEqual({ result: 'not_found', confidence: 0.6 });
    }
  });
});

describe.skipIf(!HAS_CORPUS)('generator_metadata on the main corpus', () => {
  it('finds nothing on any file, and never throws', async () => {
    const names = readdirSync(CORPUS_FILES);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      const bytes = new Uint8Array(readFileSync(join(CORPUS_FILES, name)));
      const type = sniffKnownType(bytes) ?? 'application/octet-stream';
      if (!generatorMetadata.media_types.includes(type)) continue;
      const out = await generatorMetadata.run({ bytes, type, sha256: '' }, {});
      expect(out, name).toEqual({ result: 'not_found', confidence: 0.6 });
    }
  });
});
