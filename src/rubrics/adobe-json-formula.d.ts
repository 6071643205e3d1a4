// The parts of @adobe/json-formula 2.0.0 (plain JavaScript, no types of its own) the rubric
// evaluator uses: the engine, compile/search, and what a custom function receives.
declare module '@adobe/json-formula' {
  export interface JsonFormulaInterpreter {
    /** The globals of the running search (`$name` -> value); a custom function may set one. */
    globals: Record<string, unknown>;
    search(ast: unknown, data: unknown): unknown;
  }
  export interface CustomFunction {
    _func: (args: unknown[], data: unknown, interpreter: JsonFormulaInterpreter) => unknown;
    _signature: { types: number[]; optional?: boolean; variadic?: boolean }[];
  }
  export const dataTypes: { TYPE_ANY: number };
  export default class JsonFormula {
    constructor(customFunctions?: Record<string, CustomFunction>, stringToNumber?: ((s: string) => number) | null, debug?: string[]);
    search(expression: string, json: unknown, globals?: Record<string, unknown>, language?: string): unknown;
    compile(expression: string, allowedGlobalNames?: string[]): unknown;
    run(ast: unknown, json: unknown, language: string, globals: Record<string, unknown>): unknown;
  }
}
