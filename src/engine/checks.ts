import { DETECTOR_IDS, HOSTED_DETECTOR_IDS, type CatalogueName, type DetectorId } from '../types.js';

/** An unknown, repeated or empty check selection. The CLI reports it as a usage error (exit 2);
 * the daemon maps it to 400 invalid_request with param `checks` (CONTRACT "Error body"). */
export class CheckSelectionError extends Error {
  override name = 'CheckSelectionError';
  readonly type = 'invalid_request';
  readonly param = 'checks';
}

/** The detector ids a catalogue serves and runs, in catalogue order. */
export function catalogueIds(catalogue: CatalogueName = 'full'): readonly DetectorId[] {
  return catalogue === 'hosted' ? HOSTED_DETECTOR_IDS : DETECTOR_IDS;
}

/** Validates a selection and returns it in catalogue order; every detector of the catalogue when
 * none is given. With `hosted`, this project's own detectors are unknown ids, as they are to the
 * hosted service. */
export function resolveChecks(requested?: readonly string[], catalogue: CatalogueName = 'full'): DetectorId[] {
  const ids = catalogueIds(catalogue);
  if (requested === undefined) return [...ids];
  const valid = `Valid check ids: ${ids.join(', ')}.`;
  if (requested.length === 0) throw new CheckSelectionError(`checks names no detector. ${valid}`);
  const seen = new Set<string>();
  for (const id of requested) {
    if (!(ids as readonly string[]).includes(id)) {
      const hostedOnly = catalogue === 'hosted' && (DETECTOR_IDS as readonly string[]).includes(id);
      const why = hostedOnly ? `Check id "${id}" is not in the hosted catalogue.` : `Unknown check id "${id}".`;
      throw new CheckSelectionError(`${why} ${valid}`);
    }
    if (seen.has(id)) throw new CheckSelectionError(`Check id "${id}" is named twice. ${valid}`);
    seen.add(id);
  }
  return ids.filter((id) => seen.has(id));
}

/** `--checks c2pa,camera_reference` -> ["c2pa", "camera_reference"] (blanks kept, so they fail). */
export function splitCheckList(value: string): string[] {
  return value.split(',').map((s) => s.trim());
}

/** `--catalogue hosted`, the `catalogue` setting, the daemon's flag: the name, or an error saying
 * which names there are. */
export function parseCatalogue(value: string): CatalogueName {
  const name = value.trim().toLowerCase();
  if (name === 'full' || name === 'hosted') return name;
  throw new CheckSelectionError(`Unknown catalogue "${value}": use full (every detector, the default) or hosted (the hosted service's five).`);
}
