import { defineConfig } from 'vitest/config';

// test/readme.test.ts runs the README's `npm test` as a real subprocess. That nested run sets
// PROVENANCE_NESTED_TEST and runs one quick file, so the suite does not start itself forever.
const nested = Boolean(process.env.PROVENANCE_NESTED_TEST);

export default defineConfig({
  test: {
    include: nested ? ['test/checks.test.ts'] : ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
