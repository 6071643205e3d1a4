// A json-formula engine for one rubric, set up exactly as the C2PA's evaluators set theirs up
// (c2pa_conformance_rubric_evaluator.py `create_json_formula_engine`, which the signals
// evaluator imports): the rubric's named expressions become custom functions, their arguments
// reach the body as the global `$args` array, `@` stays the caller's data, and each function's
// arity is inferred from how the rubric calls it. The expressions themselves are the rubric's,
// run by @adobe/json-formula: nothing of a rubric's logic is written here.
import JsonFormula, { dataTypes, type CustomFunction, type JsonFormulaInterpreter } from '@adobe/json-formula';
import type { CompiledTrees, RubricMetadata } from './rubric-files.js';

export interface RubricEngine {
  engine: JsonFormula;
  /** The rubric's `variables` (each name starts with `$`), passed as globals to every search. */
  variables: Record<string, unknown>;
  /**
   * `engine.search(expression, data, variables)`, with the expression compiled once per engine
   * (the evaluators compile it on every search; the answer is the same, the parse is not repeated
   * for each manifest and file).
   */
  search(expression: string, data: unknown): unknown;
  /** Compiles an expression as `search` would, without running it (the build's precompiling). */
  prepare(expression: string): void;
  /** Every tree compiled so far, as `createRubricEngine` takes them back (`compiled`). */
  compiledTrees(): CompiledTrees;
}

export interface RubricEngineOptions {
  /** Globals besides the rubric's variables (the conformance evaluator's `$expected_spec_version`). */
  globals?: Record<string, unknown>;
  /** Trees compiled ahead for this very rubric and these globals; compiled here when absent. */
  compiled?: CompiledTrees;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The evaluator's `str(expr_val) if expr_val is not None else ''` (rubric bodies are strings). */
const bodyText = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/**
 * Each named expression's arity, the evaluator's two passes (`_infer_arities`): the most
 * arguments any body calls it with (commas at the call's own depth, as the evaluator counts
 * them), and at least N+1 when its own body reads `$args[N]` (1 for a bare `$args`).
 */
export function inferArities(expressions: Record<string, unknown>): Record<string, number> {
  const arities: Record<string, number> = {};
  for (const name of Object.keys(expressions)) arities[name] = 0;
  for (const name of Object.keys(expressions)) {
    const call = new RegExp(`\\b${escapeRegExp(name)}\\s*\\(`, 'g');
    for (const value of Object.values(expressions)) {
      const text = bodyText(value);
      for (const match of text.matchAll(call)) {
        const rest = text.slice(match.index! + match[0].length);
        let count: number;
        if (rest.startsWith(')')) {
          count = 0;
        } else {
          let depth = 1;
          count = 1;
          for (const c of rest) {
            if (c === '(') depth += 1;
            else if (c === ')') {
              depth -= 1;
              if (depth === 0) break;
            } else if (c === ',' && depth === 1) count += 1;
          }
        }
        arities[name] = Math.max(arities[name]!, count);
      }
    }
  }
  for (const [name, value] of Object.entries(expressions)) {
    const text = bodyText(value);
    const indexes = [...text.matchAll(/\$args\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (indexes.length) arities[name] = Math.max(arities[name]!, Math.max(...indexes) + 1);
    else if (/\$args\b/.test(text)) arities[name] = Math.max(arities[name]!, 1);
  }
  return arities;
}

/** The engine and globals for a rubric's metadata (its first YAML document). */
export function createRubricEngine(metadata: RubricMetadata, options: RubricEngineOptions = {}): RubricEngine {
  const variables: Record<string, unknown> = { ...(metadata.variables ?? {}), ...options.globals };
  const expressions: Record<string, unknown> = { ...(metadata.expressions ?? {}) };
  const ahead = options.compiled;
  // The arities' two passes run a regular expression per name over every body: done at build time.
  const arities = ahead?.arities ?? inferArities(expressions);

  /** Every `$name` a body uses is a global to the parser (else `$args` would read as a field). */
  const allowedInBodies = () => {
    const dollarVars = new Set(Object.keys(metadata.variables ?? {}));
    for (const value of Object.values(expressions)) for (const m of bodyText(value).matchAll(/\$[a-zA-Z0-9_]+/g)) dollarVars.add(m[0]);
    return [...dollarVars, ...Object.keys(expressions)];
  };
  let allowed: string[] | undefined;

  // One instance: its custom functions read their trees from `functionTrees`, filled below by
  // this very engine's compile() (or from the trees compiled ahead), before any search runs.
  const functionTrees: Record<string, unknown> = {};
  const custom: Record<string, CustomFunction> = {};
  for (const name of Object.keys(expressions)) {
    const arity = arities[name]!;
    const run = (args: unknown[], data: unknown, interpreter: JsonFormulaInterpreter): unknown => {
      const ast = functionTrees[name];
      if (ast === null) throw new Error(`Expression '${name}' failed to compile`);
      if (arity === 0) return interpreter.search(ast, data);
      const saved = interpreter.globals.$args;
      interpreter.globals.$args = [...args];
      try {
        return interpreter.search(ast, data);
      } finally {
        if (saved === null || saved === undefined) delete interpreter.globals.$args;
        else interpreter.globals.$args = saved;
      }
    };
    custom[name] = { _func: run, _signature: Array.from({ length: arity }, () => ({ types: [dataTypes.TYPE_ANY] })) };
  }
  const engine = new JsonFormula(custom, null, []);
  for (const [name, value] of Object.entries(expressions)) {
    if (ahead && Object.prototype.hasOwnProperty.call(ahead.functions, name)) {
      functionTrees[name] = ahead.functions[name];
      continue;
    }
    try {
      functionTrees[name] = engine.compile(bodyText(value).trim(), (allowed ??= allowedInBodies()));
    } catch {
      functionTrees[name] = null; // as the evaluator: the call fails, the statement that made it reads as an error
    }
  }
  const compiled = new Map<string, unknown>(Object.entries(ahead?.expressions ?? {}));
  const treeOf = (expression: string): unknown => {
    let ast = compiled.get(expression);
    if (ast === undefined) {
      ast = engine.compile(expression, Object.keys(variables));
      compiled.set(expression, ast);
    }
    return ast;
  };
  return {
    engine,
    variables,
    search: (expression, data) => engine.run(treeOf(expression), data, 'en-US', variables),
    prepare: (expression) => void treeOf(expression),
    compiledTrees: () => ({ functions: { ...functionTrees }, expressions: Object.fromEntries(compiled), arities: { ...arities } }),
  };
}
