import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// test/readme.test.ts runs the README's `npm test` as a real subprocess. That nested run sets
// PROVENANCE_NESTED_TEST and runs one quick file, so the suite does not start itself forever.
const nested = Boolean(process.env.PROVENANCE_NESTED_TEST);

// Tests never see the developer's own setup: an empty config folder (no stored key, trust
// anchors or settings) and no API key or URL from the environment, or a logged-in machine would
// run the local-mode tests against a remote API. Tests that need these set them themselves.
const isolated = {
  PROVENANCE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'prov-test-config-')),
  PROVENANCE_API_KEY: '',
  PROVENANCE_API_URL: '',
};

export default defineConfig({
  test: {
    include: nested ? ['test/checks.test.ts'] : ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: isolated,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
