import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { adminUrl, unreachableReason } from './test/helpers/postgres.js';

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
  // test/examples/offline-client.test.ts (the README's example) finds the CLI here.
  PROVENANCE_BIN: join(import.meta.dirname, 'bin', 'provenance.js'),
  PROVENANCE_DATABASE_URL: '',
};

// The daemon contract suite, run a second time against PostgreSQL (the `postgres` project), and
// the tests that need several daemons on one database (test/postgres/): every daemon file that
// builds its app with test/daemon/helpers.ts makeApp and goes through the store. Of those, left out:
//   store-journal, failing-disk: the embedded store's own files (its journal, a failing disk);
//   slow-clients: socket timeouts below the routes (the store only makes its key);
//   workers: /healthz kept fast by the worker threads, in milliseconds; on PostgreSQL /healthz
//     asks the database, and the timings would measure that round trip instead;
//   signin-mail: the mail transports and the outbox (files in the data dir, daemons started as
//     subprocesses on the embedded store); sign-in itself is signin.test.ts, run on both.
const CONTRACT_FILES = [
  'test/daemon/detect.test.ts',
  'test/daemon/catalogue.test.ts',
  'test/daemon/uploads.test.ts',
  'test/daemon/upload-limits.test.ts',
  'test/daemon/limits.test.ts',
  'test/daemon/oversize.test.ts',
  'test/daemon/url-source.test.ts',
  'test/daemon/inline-buffers.test.ts',
  'test/daemon/docs-logs.test.ts',
  'test/daemon/signin.test.ts',
  'test/daemon/dashboard.test.ts',
  'test/daemon/openapi.test.ts',
  'test/daemon/empty-media.test.ts',
  'test/daemon/key-format.test.ts',
  'test/daemon/headers.test.ts',
  'test/daemon/test-mode.test.ts',
  'test/daemon/dashboard-requests.test.ts',
  'test/daemon/transport-errors.test.ts',
  'test/daemon/browser.test.ts',
  'test/daemon/hostile-input.test.ts',
  'test/daemon/media-budget.test.ts',
  'test/daemon/fuzz-hostile-strings.test.ts',
  'test/daemon/web-security.test.ts',
  'test/daemon/readyz.test.ts',
  'test/daemon/metrics.test.ts',
  'test/daemon/suite-target.test.ts',
  'test/daemon/detect-time-limit.test.ts',
];
const POSTGRES_ONLY = 'test/postgres/**/*.test.ts';
// The Verify page's tests, which build their apps with makeApp as the contract files do: with
// those, the pages' tests of the `dist` project (the report's pages come from the built CLI in
// test/report/ in every project).
const PAGE_FILES = ['test/daemon/verify.test.ts', 'test/daemon/verify-browser.test.ts'];

// What ships is what is tested (issue 34): the `dist` and `postgres` projects run the contract
// suite on the bundles in dist/ that `provenance daemon start` runs, with the worker pool on
// (PROVENANCE_SUITE_DIST, test/daemon/helpers.ts); the `file` project runs it from src/ with
// detection on the main thread (fast, and what mutation testing measures). Node loads dist/
// itself (server.deps.external below), as it does for users, not vitest's module runner.
const SUITE_DIST = { PROVENANCE_SUITE_DIST: '1' };

/** The postgres project when a server answers; else a visible notice (and, under CI, a failure). */
async function postgresProjects() {
  if (nested) return [];
  const reason = await unreachableReason();
  if (reason) {
    const where = adminUrl().replace(/:[^:@/]*@/, ':***@');
    if (process.env.CI) throw new Error(`PostgreSQL at ${where} is needed in CI and does not answer: ${reason}`);
    // vitest may evaluate this config more than once per run: one notice is enough.
    if (process.env.PROVENANCE_PG_NOTICE_SHOWN) return [];
    process.env.PROVENANCE_PG_NOTICE_SHOWN = '1';
    process.stderr.write(
      `\nNOTICE: PostgreSQL at ${where} does not answer (${reason}); the PostgreSQL suites are SKIPPED. ` +
        'Set PROVENANCE_TEST_DATABASE_URL to run them.\n\n',
    );
    return [];
  }
  return [
    {
      extends: true as const,
      test: {
        name: 'postgres',
        include: [...CONTRACT_FILES, ...PAGE_FILES, POSTGRES_ONLY],
        env: { ...isolated, ...SUITE_DIST, PROVENANCE_TEST_STORE: 'postgres' },
        globalSetup: ['test/helpers/pg-global-setup.ts'],
      },
    },
  ];
}

export default defineConfig(async () => ({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: isolated,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    server: { deps: { external: [/\/dist\//] } },
    projects: [
      {
        extends: true as const,
        test: {
          name: 'file',
          include: nested ? ['test/checks.test.ts'] : ['test/**/*.test.ts'],
          exclude: [POSTGRES_ONLY, '**/node_modules/**'],
        },
      },
      // The contract suite again on the built daemon, workers on (above), in --test-mode
      // (issue 15): with the clock unmoved and no forced answer asked for, a test-mode daemon
      // answers as any other. One project for both keeps CI's time (three Node versions).
      ...(nested
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'dist',
                include: [...CONTRACT_FILES, ...PAGE_FILES],
                env: { ...isolated, ...SUITE_DIST, PROVENANCE_SUITE_TEST_MODE: '1' },
              },
            },
          ]),
      ...(await postgresProjects()),
    ],
  },
}));
