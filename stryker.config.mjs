// @ts-check
// `npm run mutation`: StrykerJS over the modules of scripts/mutation-targets.mjs (issue 18).
// Not part of CI: all 46 modules take over an hour and a half on two cores (docs/TESTING.md). One or a few:
//   MUTATE=key-format,url-guard npm run mutation -- --concurrency 1
// Figures and the survivors that change nothing are in docs/TESTING.md.
import { selectedTargets } from './scripts/mutation-targets.mjs';

const targets = selectedTargets();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: targets.map((t) => t.source),
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
export default config;
