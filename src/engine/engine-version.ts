// Which engine made a result, for the scan cache's keys (scan-cache.ts): results of another
// engine are never read back. The package version, and the build's fingerprint: `npm run build`
// hashes the sources that decide results (every source file of the detection engine's bundle:
// engine, detectors, media readers, rubrics, types), the packages it bundles or loads (c2pa-wasm,
// json-formula, sharp) and the shipped data (data/c2pa: bundled trust lists, rubrics, Conforming
// Products List) into __PROVENANCE_ENGINE_BUILD__ (scripts/build.mjs), so a changed engine or
// list never answers from the entries of another, even at the same package version.
declare const __PROVENANCE_ENGINE_BUILD__: string | undefined;

/** package.json's version (test/engine-version.test.ts holds the two together). */
export const PACKAGE_VERSION = '0.1.0';

export function engineVersion(): string {
  const build = typeof __PROVENANCE_ENGINE_BUILD__ === 'string' ? __PROVENANCE_ENGINE_BUILD__ : 'source';
  return `${PACKAGE_VERSION}+${build}`;
}
