// The vitest configuration Stryker runs (stryker.config.mjs): the base one's settings (time
// limits, the isolated environment), limited to the test files that pin the modules being
// mutated (scripts/mutation-targets.mjs), in one project, without the summary reporter.
import { defineConfig } from 'vitest/config';
import { selectedTargets } from './scripts/mutation-targets.mjs';
import baseConfig from './vitest.config.js';

const tests = [...new Set((selectedTargets() as { tests: string[] }[]).flatMap((t) => t.tests))];

export default defineConfig(async (env) => {
  // vitest.config.ts is a function (it asks PostgreSQL whether to add the `postgres` project).
  const base = typeof baseConfig === 'function' ? await baseConfig(env) : baseConfig;
  // Not mergeConfig: it would append to the base include list instead of replacing it; and no
  // projects, whose own include lists would run every test file again.
  const { projects: _projects, ...test } = base.test ?? {};
  return { ...base, test: { ...test, include: tests, reporters: ['default'] } };
});
