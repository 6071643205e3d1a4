// What the build makes of a shipped rubric (scripts/build-rubrics.mjs): the YAML read as the
// evaluators split it (rubric-yaml.ts), and every expression compiled by json-formula with the
// globals its evaluator runs it with. Also what test/rubric-built.test.ts compares the built form
// with. Never part of a run: the YAML reader ships in no bundle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRubricEngine } from './formula-engine.js';
import { evaluatorGlobals, evaluatorOf, RUBRIC_FILES, type Rubric, type RubricMetadata, type RubricName, type RubricStatement } from './rubric-files.js';
import { parseYamlDocuments } from './rubric-yaml.js';

export { RUBRIC_NAMES } from './rubric-files.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A rubric from its YAML text: the first document is the metadata (when it is a mapping), the
 * statements are every later document's list items, or the document itself when it is a
 * mapping that is not a `block` (both evaluators' rule).
 */
export function rubricFromText(text: string, file: string): Rubric {
  const docs = parseYamlDocuments(text);
  const metadata = (docs.length > 0 && isRecord(docs[0]) ? docs[0] : {}) as RubricMetadata;
  const statements: RubricStatement[] = [];
  for (const doc of docs.slice(1)) {
    if (Array.isArray(doc)) statements.push(...(doc as RubricStatement[]));
    else if (isRecord(doc) && !('block' in doc)) statements.push(doc as RubricStatement);
  }
  return { file, metadata, statements };
}

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
