// `--fail-on CHECK=RESULT` (repeatable): a CI gate. The run still checks every input; the exit
// code is 4 when any file's CHECK came out as RESULT.
import { DETECTOR_IDS, type CheckResult, type DetectionResult, type DetectorId } from '../types.js';

export interface FailCondition {
  check: DetectorId;
  result: CheckResult;
}

const RESULTS: readonly CheckResult[] = ['found', 'not_found', 'unavailable'];

export class FailOnError extends Error {}

export function parseFailOn(values: readonly string[]): FailCondition[] {
  return values.map((value) => {
    const [check, result, extra] = value.split('=');
    if (extra !== undefined || !check || !result) {
      throw new FailOnError(`--fail-on takes CHECK=RESULT, e.g. c2pa=not_found; got "${value}".`);
    }
    if (!(DETECTOR_IDS as readonly string[]).includes(check)) {
      throw new FailOnError(`--fail-on: unknown check "${check}". Valid check ids: ${DETECTOR_IDS.join(', ')}.`);
    }
    if (!(RESULTS as readonly string[]).includes(result)) {
      throw new FailOnError(`--fail-on: unknown result "${result}". Valid results: ${RESULTS.join(', ')}.`);
    }
    return { check: check as DetectorId, result: result as CheckResult };
  });
}

/** The conditions this result meets (a check that did not run meets none). */
export function failuresOf(result: DetectionResult, conditions: readonly FailCondition[]): FailCondition[] {
  return conditions.filter((c) => result.matches.some((m) => m.check === c.check && m.result === c.result));
}
