// The shipped rubrics reach a run read and compiled at build time (scripts/build-rubrics.mjs,
// src/rubrics/shipped-rubrics.ts). The YAML in data/c2pa/asset-rubrics stays their source: the
// built form must be what reading that YAML and compiling its expressions gives now, so a rubric
// file changed without a build, or a json-formula whose trees differ, fails here. And an engine
// running the built trees answers as one that compiles the YAML's expressions itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageDataFile } from '../src/media/package-data.js';
import { evaluateConformance } from '../src/rubrics/conformance.js';
import { inferArities } from '../src/rubrics/formula-engine.js';
import { buildRubric, rubricFromText } from '../src/rubrics/rubric-build.js';
import { RUBRIC_FILES, RUBRIC_NAMES } from '../src/rubrics/rubric-files.js';
import { loadRubric } from '../src/rubrics/shipped-rubrics.js';
import { evaluateSignals } from '../src/rubrics/signals.js';

const dir = packageDataFile('c2pa', 'asset-rubrics');
const madeHere = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'asset-rubrics', 'crjson-made-here.json'), 'utf8')).documents as Record<string, unknown>;

describe('the built rubrics', () => {
  it.each(RUBRIC_NAMES)('%s: the built form is the shipped YAML read and compiled now', async (name) => {
    const built = await loadRubric(name);
    const now = buildRubric(name, dir);
    // Through JSON, as the build writes it: the trees are plain data.
    expect(built).toEqual(JSON.parse(JSON.stringify(now)));
    const fromYaml = rubricFromText(readFileSync(join(dir, RUBRIC_FILES[name]), 'utf8'), RUBRIC_FILES[name]);
    expect({ file: built.file, metadata: built.metadata, statements: built.statements }).toEqual(fromYaml);
    // Every statement and named expression came compiled (none is left to the run).
    const statements = fromYaml.statements.filter((s) => typeof s.expression === 'string').map((s) => String(s.expression).trim());
    expect(Object.keys(built.compiled!.expressions).sort()).toEqual([...new Set(statements)].sort());
    expect(Object.keys(built.compiled!.functions).sort()).toEqual(Object.keys(fromYaml.metadata.expressions ?? {}).sort());
    expect(Object.values(built.compiled!.functions).every((tree) => tree !== null)).toBe(true);
    expect(built.compiled!.arities).toEqual(inferArities(fromYaml.metadata.expressions ?? {}));
  });

  it('answers as the YAML compiled at run time does, on every crJSON document made here', async () => {
    expect(Object.keys(madeHere).length).toBeGreaterThan(10);
    for (const name of RUBRIC_NAMES) {
      const built = await loadRubric(name);
      const fromYaml = rubricFromText(readFileSync(join(dir, RUBRIC_FILES[name]), 'utf8'), RUBRIC_FILES[name]);
      for (const [doc, crJson] of Object.entries(madeHere)) {
        const run = (rubric: typeof built) => (name === 'signals' ? evaluateSignals(crJson, rubric) : evaluateConformance(crJson, rubric));
        expect(run(built), `${name} on ${doc}`).toEqual(run(fromYaml));
      }
    }
  });
});
