// What the build makes of a shipped rubric (scripts/build-rubrics.mjs): the YAML read as the
// evaluators split it, and every expression compiled by json-formula with the globals its
// evaluator runs it with, as one JSON text. Also what test/rubric-built.test.ts compares the
// built form with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRubricEngine } from './formula-engine.js';
import { evaluatorGlobals, evaluatorOf, RUBRIC_FILES, rubricFromText, type Rubric, type RubricName } from './rubric-files.js';

export { RUBRIC_NAMES } from './rubric-files.js';

/** The rubric of that name read from `dir` (data/c2pa/asset-rubrics) and its expressions compiled. */
export function buildRubric(name: RubricName, dir: string): Rubric {
  const file = RUBRIC_FILES[name];
  const rubric = rubricFromText(readFileSync(join(dir, file), 'utf8'), file);
  const engine = createRubricEngine(rubric.metadata, { globals: evaluatorGlobals(evaluatorOf(name), file) });
  for (const stmt of rubric.statements) {
    const expr = typeof stmt === 'object' && stmt !== null ? stmt.expression : undefined;
    if (expr === undefined || expr === null) continue;
    try {
      engine.prepare(String(expr).trim());
    } catch {
      // Left to the run, whose compile throws json-formula's own error (the statement's answer).
    }
  }
  return { ...rubric, compiled: engine.compiledTrees() };
}
