// The shipped rubrics as a run takes them: read from data/c2pa/asset-rubrics/*.yml and their
// expressions compiled by json-formula at build time (scripts/build-rubrics.mjs writes one
// built-<name>.ts per rubric), so a cold check of a signed file parses JSON instead of YAML and
// json-formula compiles nothing (docs/PERFORMANCE.md, issue 38's cost). The YAML stays the
// source: test/rubric-built.test.ts holds this form equal to reading and compiling the shipped
// files at run time, so a new rubric release is a data update and a build. The signals rubric
// comes from signals.ts, whose output file holds its text (the one a check loads).
import type { Rubric, RubricName } from './rubric-files.js';

const parsed = new Map<RubricName, Rubric>();

/** Each conformance rubric's built module, loaded only when that rubric is asked for. */
const CONFORMANCE: Readonly<Record<Exclude<RubricName, 'signals'>, () => Promise<{ default: string }>>> = {
  'conformance-2.2': () => import('./built-conformance-2-2.js'),
  'conformance-2.4': () => import('./built-conformance-2-4.js'),
};

/** The shipped rubric of that name, parsed once per process. */
export async function loadRubric(name: RubricName): Promise<Rubric> {
  if (name === 'signals') return (await import('./signals.js')).shippedSignalsRubric();
  let rubric = parsed.get(name);
  if (!rubric) parsed.set(name, (rubric = JSON.parse((await CONFORMANCE[name]()).default) as Rubric));
  return rubric;
}
