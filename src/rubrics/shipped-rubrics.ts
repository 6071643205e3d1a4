// The shipped rubrics as a run takes them: read from data/c2pa/asset-rubrics/*.yml and their
// expressions compiled by json-formula at build time (scripts/build-rubrics.mjs writes one
// built-<name>.ts per rubric), so a cold check of a signed file parses JSON instead of YAML and
// json-formula compiles nothing (docs/PERFORMANCE.md, issue 38's cost). The YAML stays the
// source: test/rubric-built.test.ts holds this form equal to reading and compiling the shipped
// files at run time, so a new rubric release is a data update and a build.
import type { Rubric, RubricName } from './rubric-files.js';

const parsed = new Map<RubricName, Rubric>();

/** A shipped rubric from its built JSON text, parsed once per process. */
export function shippedRubric(name: RubricName, builtText: string): Rubric {
  let rubric = parsed.get(name);
  if (!rubric) parsed.set(name, (rubric = JSON.parse(builtText) as Rubric));
  return rubric;
}

/** Each rubric's built module, loaded only when that rubric is asked for. */
const BUILT: Readonly<Record<RubricName, () => Promise<{ default: string }>>> = {
  signals: () => import('./built-signals.js'),
  'conformance-2.2': () => import('./built-conformance-2-2.js'),
  'conformance-2.4': () => import('./built-conformance-2-4.js'),
};

/** The shipped rubric of that name. */
export async function loadRubric(name: RubricName): Promise<Rubric> {
  return shippedRubric(name, (await BUILT[name]()).default);
}
