// The detector catalogue in SPEC 2.1 order. Adding a detector = one file + one line here.
import { HOSTED_DETECTOR_IDS, type CatalogueName, type Detector, type DetectorId, type DetectorInfo, type DetectorsBody } from '../types.js';
import { c2pa } from './c2pa.js';
import { cameraReference } from './camera-reference.js';
import { generatorMetadata } from './generator-metadata.js';
import { invisibleWatermark } from './invisible-watermark.js';
import { openContentSeal } from './open-content-seal.js';
import { watermarkA } from './watermark-a.js';
import { watermarkB } from './watermark-b.js';

/** Every detector: the hosted five (SPEC 2.1 order), then this project's own (CONTRACT
 * "Detectors beyond the hosted catalogue"). */
export const CATALOGUE: readonly Detector[] = [
  c2pa,
  watermarkA,
  watermarkB,
  openContentSeal,
  cameraReference,
  generatorMetadata,
  invisibleWatermark,
];

export function detectorById(id: DetectorId): Detector {
  const found = CATALOGUE.find((d) => d.id === id);
  if (!found) throw new Error(`no detector ${id}`);
  return found;
}

function info({ id, name, description, media_types, status, inverse }: Detector): DetectorInfo {
  return { id, name, description, media_types: [...media_types], status, inverse };
}

/** The body of GET /v1/detectors (SPEC 4.2): every detector, or with `hosted` the hosted five. */
export function detectorsBody(catalogue: CatalogueName = 'full'): DetectorsBody {
  const served = catalogue === 'hosted' ? CATALOGUE.filter((d) => (HOSTED_DETECTOR_IDS as readonly string[]).includes(d.id)) : CATALOGUE;
  return { detectors: served.map(info) };
}
