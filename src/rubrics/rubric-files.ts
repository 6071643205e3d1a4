// The C2PA Asset Rubrics shipped as data (data/c2pa/asset-rubrics/, byte for byte as the C2PA
// publishes them; data/c2pa/README.md): which file each `--rubric` name is, and a rubric read
// into its metadata and statements (rubric-build.ts reads the YAML as the official evaluators split
// its documents, at build time; a run takes the built form: shipped-rubrics.ts).

/** `--rubric` names and the rubric file each one evaluates. */
export type RubricName = 'signals' | 'conformance-2.2' | 'conformance-2.4';

export const RUBRIC_FILES: Readonly<Record<RubricName, string>> = {
  signals: 'asset-rubric-signals-local.yml',
  'conformance-2.2': 'asset-rubric-conformance0.2-spec2.2.yml',
  'conformance-2.4': 'asset-rubric-conformance0.2-spec2.4.yml',
};
export const RUBRIC_NAMES = Object.keys(RUBRIC_FILES) as RubricName[];

export function isRubricName(name: string): name is RubricName {
  return Object.prototype.hasOwnProperty.call(RUBRIC_FILES, name);
}

export interface RubricMetadata {
  rubric_metadata?: { name?: unknown; version?: unknown };
  variables?: Record<string, unknown>;
  expressions?: Record<string, unknown>;
}

/** One rubric statement (a trait): the fields the evaluators read. */
export interface RubricStatement {
  id?: unknown;
  expression?: unknown;
  reportText?: Record<string, unknown>;
  failIfMatched?: unknown;
  warnIfMatched?: unknown;
  [key: string]: unknown;
}

/**
 * json-formula's syntax trees of a rubric's expressions, compiled ahead (at build time,
 * scripts/build-rubrics.mjs): plain JSON, which json-formula runs as it runs the trees its
 * compile() returns. `functions`: each named expression's tree, null where it does not compile
 * (the call then fails, as the evaluator's does); `expressions`: each statement's tree, by its
 * text, for those that compile (any other is compiled at run time, which throws json-formula's
 * own error).
 */
export interface CompiledTrees {
  functions: Record<string, unknown>;
  expressions: Record<string, unknown>;
  /** Each named expression's arity (inferArities), found at build time with the trees. */
  arities: Record<string, number>;
}

export interface Rubric {
  file: string;
  metadata: RubricMetadata;
  statements: RubricStatement[];
  /** json-formula's trees of its expressions, compiled at build time (the shipped rubrics only). */
  compiled?: CompiledTrees;
}

/** Which of the C2PA's two evaluators runs a rubric. */
export type RubricEvaluator = 'signals' | 'conformance';
export const evaluatorOf = (name: RubricName): RubricEvaluator => (name === 'signals' ? 'signals' : 'conformance');

/** The spec version a conformance rubric checks, from its file name (`...spec2.4.yml` -> `2.4`), as the evaluator finds it. */
export function specVersionOf(file: string): string | undefined {
  return /spec(\d+\.\d+)/.exec(file)?.[1];
}

/**
 * The globals an evaluator adds to the rubric's variables: the conformance evaluator's
 * `$expected_spec_version` (when the file name gives one); the signals evaluator adds none. The
 * build compiles each rubric's expressions with these, as the run that evaluates it does.
 */
export function evaluatorGlobals(evaluator: RubricEvaluator, file: string): Record<string, unknown> {
  if (evaluator === 'signals') return {};
  const spec = specVersionOf(file);
  return spec === undefined ? {} : { $expected_spec_version: spec };
}
