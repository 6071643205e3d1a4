// The build refuses to put a module into more than one output file of one process (issue 34):
// dist/lazy/daemon-http-metrics.js once carried its own copy of ApiError, the error handler's
// `instanceof` failed, and GET /metrics without a token answered 500. Here the real build script
// runs with one module built the old way besides (a self-contained bundle, through
// PROVENANCE_BUILD_DUPLICATE) into a temporary folder, and must fail naming the copies, before
// writing anything.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './daemon/helpers.js';
import { ROOT } from './helpers/corpus.js';

function runBuild(env: Record<string, string>) {
  return spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
}

describe('scripts/build.mjs: one copy of each module per process', () => {
  it('refuses a build where the metrics bundle carries its own copy of ApiError', () => {
    const { dir, cleanup } = tempDir('prov-build-');
    try {
      const out = join(dir, 'dist');
      const r = runBuild({ PROVENANCE_BUILD_OUT: out, PROVENANCE_BUILD_DUPLICATE: 'src/daemon/http/metrics.ts' });
      expect(r.status, r.stderr).not.toBe(0);
      expect(r.stderr).toContain('build refused');
      expect(r.stderr).toMatch(/more than one output file of the CLI realm/);
      // The module with the error class is named, with the outputs that would each hold a copy.
      expect(r.stderr).toMatch(/src\/daemon\/contract\/errors\.ts: .*lazy\/daemon-http-metrics-alone\.js/);
      // Nothing written: a refused build leaves no half-built dist/.
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    } finally {
      cleanup();
    }
  });

  it('builds the real entries with every module once', () => {
    const { dir, cleanup } = tempDir('prov-build-');
    try {
      const out = join(dir, 'dist');
      const r = runBuild({ PROVENANCE_BUILD_OUT: out });
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(join(out, 'cli.js'))).toBe(true);
      expect(existsSync(join(out, 'lazy', 'daemon-http-metrics.js'))).toBe(true);
      expect(existsSync(join(out, 'detect-worker.js'))).toBe(true);
    } finally {
      cleanup();
    }
  });
});
