// The detector catalogue in SPEC 2.1 order. Adding a detector = one file + one line here.
import type { Detector, DetectorId, DetectorInfo, DetectorsBody } from '../types.js';
import { c2pa } from './c2pa.js';
import { cameraReference } from './camera-reference.js';
import { openContentSeal } from './open-content-seal.js';
import { watermarkA } from './watermark-a.js';
import { watermarkB } from './watermark-b.js';

export const CATALOGUE: readonly Detector[] = [c2pa, watermarkA, watermarkB, openContentSeal, cameraReference];

export function detectorById(id: DetectorId): Detector {
  const found = CATALOGUE.find((d) => d.id === id);
  if (!found) throw new Error(`no detector ${id}`);
  return found;
}

function info({ id, name, description, media_types, status, inverse }: Detector): DetectorInfo {
  return { id, name, description, media_types: [...media_types], status, inverse };
}

/** The body of GET /v1/detectors (SPEC 4.2). */
export function detectorsBody(): DetectorsBody {
  return { detectors: CATALOGUE.map(info) };
}
