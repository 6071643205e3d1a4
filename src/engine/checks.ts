import { DETECTOR_IDS, type DetectorId } from '../types.js';

/** An unknown, repeated or empty check selection. The CLI reports it as a usage error (exit 2);
 * the daemon maps it to 400 invalid_request with param `checks` (CONTRACT "Error body"). */
export class CheckSelectionError extends Error {
  override name = 'CheckSelectionError';
  readonly type = 'invalid_request';
  readonly param = 'checks';
}

const VALID = `Valid check ids: ${DETECTOR_IDS.join(', ')}.`;

/** Validates a selection and returns it in catalogue order; all detectors when none is given. */
export function resolveChecks(requested?: readonly string[]): DetectorId[] {
  if (requested === undefined) return [...DETECTOR_IDS];
  if (requested.length === 0) throw new CheckSelectionError(`checks names no detector. ${VALID}`);
  const seen = new Set<string>();
  for (const id of requested) {
    if (!(DETECTOR_IDS as readonly string[]).includes(id)) {
      throw new CheckSelectionError(`Unknown check id "${id}". ${VALID}`);
    }
    if (seen.has(id)) throw new CheckSelectionError(`Check id "${id}" is named twice. ${VALID}`);
    seen.add(id);
  }
  return DETECTOR_IDS.filter((id) => seen.has(id));
}

/** `--checks c2pa,camera_reference` -> ["c2pa", "camera_reference"] (blanks kept, so they fail). */
export function splitCheckList(value: string): string[] {
  return value.split(',').map((s) => s.trim());
}
