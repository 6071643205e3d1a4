import type { Detector, DetectorInfo } from '../types.js';

/** A catalogue entry that is on the roadmap: it never runs and always says so (SPEC 2.5). */
export function plannedDetector(info: Omit<DetectorInfo, 'status'>): Detector {
  return {
    ...info,
    status: 'planned',
    async run() {
      return {
        result: 'unavailable',
        confidence: 0,
        reason: `The ${info.id} check is planned and not available yet.`,
      };
    },
  };
}
