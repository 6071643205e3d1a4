// `--fail-on CHECK=RESULT` (repeatable): a CI gate. The run still checks every input; the exit
// code is 4 when any file's CHECK came out as RESULT. `--fail-on verdict=generated` (or
// `contains`, `none_found`) gates on the file's verdict (src/verdict) instead of one check.
import { DETECTOR_IDS, VERDICT_AI, type CheckResult, type DetectionResult, type DetectorId, type VerdictAi } from '../types.js';

export type FailCondition = { check: DetectorId; result: CheckResult } | { check: 'verdict'; result: VerdictAi };

const RESULTS: readonly CheckResult[] = ['found', 'not_found', 'unavailable'];

export class FailOnError extends Error {}

export function parseFailOn(values: readonly string[]): FailCondition[] {
  return values.map((value) => {
    const [check, result, extra] = value.split('=');
    if (extra !== undefined || !check || !result) {
      throw new FailOnError(`--fail-on takes CHECK=RESULT, e.g. c2pa=not_found or verdict=generated; got "${value}".`);
    }
    if (check === 'verdict') {
      if (!(VERDICT_AI as readonly string[]).includes(result)) {
        throw new FailOnError(`--fail-on: unknown verdict "${result}". Valid verdicts: ${VERDICT_AI.join(', ')}.`);
      }
      return { check, result: result as VerdictAi };
    }
    if (!(DETECTOR_IDS as readonly string[]).includes(check)) {
      throw new FailOnError(`--fail-on: unknown check "${check}". Valid: ${DETECTOR_IDS.join(', ')}, or verdict.`);
    }
    if (!(RESULTS as readonly string[]).includes(result)) {
      throw new FailOnError(`--fail-on: unknown result "${result}". Valid results: ${RESULTS.join(', ')}.`);
    }
    return { check: check as DetectorId, result: result as CheckResult };
  });
}

/**
 * The conditions this result meets (a check that did not run meets none). `verdict`: the file's
 * verdict (src/verdict, above the engine), for the `verdict=` conditions; none meet without it.
 */
export function failuresOf(result: DetectionResult, conditions: readonly FailCondition[], verdict?: VerdictAi): FailCondition[] {
  return conditions.filter((c) =>
    c.check === 'verdict' ? c.result === verdict : result.matches.some((m) => m.check === c.check && m.result === c.result),
  );
}
