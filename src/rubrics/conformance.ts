// A C2PA conformance rubric (spec 2.2 or 2.4) over a crJSON document, the way the C2PA's own
// c2pa_conformance_rubric_evaluator.py runs it (conformance-public 7dbff51): every statement
// evaluated by json-formula against the whole crJSON, its answer read as true, false or warning
// (`failIfMatched`, `warnIfMatched`), its report text picked and filled, and the output in the
// official format (asset-rubric-conformance-output.schema.json). The evaluator's pruning step
// is not here: its list of traits that cut a branch off is empty in that release, so it never
// changes an answer; a release that fills it is a change to the evaluator, not to the data.
import { createRubricEngine, type RubricEngine } from './formula-engine.js';
import { evaluatorGlobals, type Rubric, type RubricStatement } from './rubric-files.js';
import { rubricLabel } from './rubric-label.js';

export interface ConformanceEntry {
  trait: string;
  reportText: string;
  asserted_by?: { CN: unknown; O: unknown; OU?: unknown };
}

export type ConformanceOutcome = Record<string, ConformanceEntry[]>;

export interface ConformanceOutput {
  rubricName: unknown;
  rubricVersion: unknown;
  true: ConformanceOutcome;
  false: ConformanceOutcome;
  warning: ConformanceOutcome;
}

type Json = Record<string, unknown>;
type State = 'true' | 'false' | 'warn' | null;

interface Result {
  trait: string;
  category: string;
  value: State;
  reportText: string;
  asserted_by?: ConformanceEntry['asserted_by'];
}

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const field = (v: unknown, key: string): unknown => (isRecord(v) ? v[key] : undefined);
const truthy = (v: unknown): boolean =>
  v === undefined || v === null ? false : Array.isArray(v) ? v.length > 0 : isRecord(v) ? Object.keys(v).length > 0 : Boolean(v);

/** Python's str() for the values a rubric's matches hold. */
function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

function reportTextOf(texts: Json, key: string): string | undefined {
  if (!(key in texts)) return undefined;
  const value = texts[key];
  return isRecord(value) ? pyStr(value.en ?? '') : pyStr(value);
}

function evaluateStatement(stmt: RubricStatement, run: (expr: string) => unknown, out: Result[]): void {
  const stmtId = truthy(stmt.id) ? String(stmt.id) : 'unnamed_trait';
  const expr = stmt.expression;
  const texts = isRecord(stmt.reportText) ? stmt.reportText : {};
  const failIfMatched = truthy(stmt.failIfMatched);
  const warnIfMatched = truthy(stmt.warnIfMatched);
  let traitName = stmtId;
  if (stmtId === 'c2pa:signal_compliance') {
    const trueText = field(texts.true, 'en');
    if (truthy(trueText)) traitName = String(trueText).startsWith('Contains ') ? String(trueText).slice(9) : String(trueText);
  }
  let category = 'general';
  let displayName = traitName;
  const colon = traitName.indexOf(':');
  if (colon >= 0) {
    category = traitName.slice(0, colon);
    displayName = traitName.slice(colon + 1);
  }
  if (!truthy(expr)) return;
  const partial: Result[] = [];
  try {
    const value = run(String(expr).trim());
    let state: State = 'false';
    let matches: unknown[] = [];
    if (failIfMatched || warnIfMatched) {
      if (Array.isArray(value) && value.length > 0) {
        state = failIfMatched ? 'false' : 'warn';
        matches = value;
      } else {
        state = 'true';
      }
    } else if (Array.isArray(value)) {
      const first = value[0];
      if (value.length > 0 && isRecord(first) && ('label' in first || 'signature' in first)) {
        matches = value;
        state = 'true';
      } else {
        state = value.length > 0 ? 'true' : 'false';
      }
    } else if (typeof value === 'boolean') state = value ? 'true' : 'false';
    else if (typeof value === 'number') state = value > 0 ? 'true' : 'false';
    else state = value !== null && value !== undefined ? 'true' : 'false';

    let textKey: string = state;
    if (textKey === 'warn' && !('warn' in texts)) textKey = 'false';
    let reportText = reportTextOf(texts, textKey) ?? reportTextOf(texts, 'default') ?? '';
    if (matches.length > 0 && typeof matches[0] === 'string') reportText = reportText.replaceAll('{{matches}}', matches.map(pyStr).join(', '));

    if (matches.length > 0 && !failIfMatched && !warnIfMatched) {
      // One true entry per matched manifest, naming its signer.
      for (const manifest of matches) {
        if (!isRecord(manifest)) throw new Error(`a match is not a manifest: ${pyStr(manifest)}`);
        const subject = field(field(field(manifest, 'signature'), 'certificateInfo'), 'subject');
        const cn = field(subject, 'CN');
        const o = field(subject, 'O');
        const ou = field(subject, 'OU');
        const assertedBy: NonNullable<Result['asserted_by']> = { CN: cn === undefined ? 'Unknown CN' : cn, O: o === undefined ? 'Unknown O' : o };
        if (truthy(ou)) assertedBy.OU = ou;
        partial.push({ trait: displayName, category, value: 'true', reportText, asserted_by: assertedBy });
      }
    } else {
      partial.push({ trait: displayName, category, value: state, reportText });
    }
    out.push(...partial);
  } catch (err) {
    // As the evaluator: entries made before the failure stay, and the failure is one more entry.
    out.push(...partial, { trait: displayName, category, value: null, reportText: `Error: ${(err as Error).message}` });
  }
}

const priority = (v: State) => (v === 'true' ? 0 : v === 'warn' ? 1 : 2);
const CATEGORY_NAMES: Record<string, string> = { inception: 'inceptions', transformation: 'transformations' };

const engines = new WeakMap<Rubric, RubricEngine>();

/** One engine per rubric per process, with the evaluator's `$expected_spec_version` among its globals. */
function engineFor(rubric: Rubric): RubricEngine {
  let engine = engines.get(rubric);
  if (!engine) {
    const globals = evaluatorGlobals('conformance', rubric.file);
    engines.set(rubric, (engine = createRubricEngine(rubric.metadata, { globals, compiled: rubric.compiled })));
  }
  return engine;
}

/** The official conformance output for a crJSON document. */
export function evaluateConformance(crJson: unknown, rubric: Rubric): ConformanceOutput {
  const { search } = engineFor(rubric);
  const results: Result[] = [];
  for (const stmt of rubric.statements) {
    if (!isRecord(stmt)) continue;
    evaluateStatement(stmt, (expr) => search(expr, crJson), results);
  }
  results.sort((a, b) => priority(a.value) - priority(b.value) || (a.trait < b.trait ? -1 : a.trait > b.trait ? 1 : 0));

  const categories = new Set<string>();
  for (const stmt of rubric.statements) {
    if (!isRecord(stmt) || !('id' in stmt)) continue;
    const id = String(stmt.id);
    if (id.includes(':')) {
      const cat = id.slice(0, id.indexOf(':'));
      categories.add(CATEGORY_NAMES[cat] ?? cat);
    } else categories.add('general');
  }
  if (categories.size === 0) categories.add('general');
  const sorted = [...categories].sort();
  const empty = () => Object.fromEntries(sorted.map((c) => [c, [] as ConformanceEntry[]]));
  const label = rubricLabel(rubric);
  const output: ConformanceOutput = { rubricName: label.name, rubricVersion: label.version, true: empty(), false: empty(), warning: empty() };
  for (const r of results) {
    const cat = CATEGORY_NAMES[r.category] ?? r.category;
    const outcome = r.value === 'warn' ? 'warning' : r.value === 'true' ? 'true' : 'false';
    const entry: ConformanceEntry = { trait: r.trait, reportText: r.reportText };
    if (r.asserted_by) entry.asserted_by = r.asserted_by;
    (output[outcome][cat] ??= []).push(entry);
  }
  return output;
}
