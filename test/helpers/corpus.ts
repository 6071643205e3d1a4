// The shared real-world corpus lives beside the project (../shared/corpus) in this workspace
// only; tests that need it skip, with a notice, where it is absent.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasC2paMarker } from '../../src/media/c2pa-markers.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CORPUS_DIR = join(ROOT, '..', 'shared', 'corpus');
export const CORPUS_FILES = join(CORPUS_DIR, 'files');
export const HAS_CORPUS = existsSync(join(CORPUS_DIR, 'expected.json'));

if (!HAS_CORPUS) {
  console.warn(`[provenance tests] ${CORPUS_DIR} is absent: corpus tests are skipped.`);
}

export interface ExpectedEntry {
  type: string;
  bytes: number;
  sha256: string;
  c2pa: {
    result: string;
    issuer?: string | null;
    claim_generator?: string;
    assertions?: string[];
    validation_state?: string;
    c2pa_rs_error?: string;
    also_accepted?: string[];
  };
  camera_reference: { result: string };
}

export function loadExpected(): Record<string, ExpectedEntry> {
  return JSON.parse(readFileSync(join(CORPUS_DIR, 'expected.json'), 'utf8'));
}

/** Every file below the corpus folder that carries C2PA marker bytes (none without the corpus). */
export function corpusFilesWithManifest(): string[] {
  if (!HAS_CORPUS) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size < 64 * 1024 * 1024 && !/\.(json|md)$/.test(name) && hasC2paMarker(readFileSync(p))) out.push(p);
    }
  };
  walk(CORPUS_DIR);
  return out;
}
